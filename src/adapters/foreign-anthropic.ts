/**
 * What Anthropic's own blocks and fields become on other providers (see `foreign.ts`). Every kind
 * without a documented mapping is left out with its reason, which the adapter turns into a note.
 *
 * @module
 */
import { dropAllFields, type PortableRules } from './foreign-kit.ts'

/** Anthropic's rules: no mapping yet, so every block and field is left out with a note. */
export const anthropicPortable: PortableRules = {
  part: (p) => ({ kind: 'drop', reason: `Anthropic's "${p.kind}" has no equivalent on other providers` }),
  fields: dropAllFields,
}
