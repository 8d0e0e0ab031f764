/**
 * The shape of a provider's rules for what its own blocks and fields become on other providers,
 * shared by `foreign.ts` and each provider's `…/foreign.ts`. Private to the adapters.
 *
 * @module
 */
import type { Part, ProviderPart } from '../message/part-model.ts'

// --- model ---

/**
 * What a provider part becomes on another provider: built-in parts (a `tool_result` among them
 * splits the message so that the result follows its call), or nothing, with the reason.
 */
export type Portable =
  | { readonly kind: 'parts'; readonly parts: ReadonlyArray<Part> }
  | { readonly kind: 'drop'; readonly reason: string }

/**
 * What a built-in part with another provider's fields becomes: the part (possibly changed, e.g.
 * citations appended to a text as sources), plus the fields left out.
 */
export type PortableFields = { readonly part: Part; readonly dropped: ReadonlyArray<string> }

/**
 * One provider's rules for its own blocks and fields on other providers; `messageFields` names
 * what of a message's `metadata.providerFields` is lost elsewhere (every key when absent).
 */
export type PortableRules = {
  readonly part: (p: ProviderPart) => Portable
  readonly fields: (p: Part, fields: Readonly<Record<string, unknown>>) => PortableFields
  readonly messageFields?: (fields: Readonly<Record<string, unknown>>) => ReadonlyArray<string>
}

/** Fields with no mapping: the part without them, every field named. */
export const dropAllFields = (p: Part, fields: Readonly<Record<string, unknown>>): PortableFields => ({ part: p, dropped: Object.keys(fields) })
