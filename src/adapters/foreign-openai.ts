/**
 * What OpenAI's own blocks and fields become on other providers (see `foreign.ts`). Every kind
 * without a documented mapping is left out with its reason, which the adapter turns into a note.
 *
 * @module
 */
import { dropAllFields, type PortableRules } from './foreign-kit.ts'

/** OpenAI's rules: no mapping yet, so every block and field is left out with a note. */
export const openAIPortable: PortableRules = {
  part: (p) => ({ kind: 'drop', reason: `OpenAI's "${p.kind}" has no equivalent on other providers` }),
  fields: dropAllFields,
}
