/**
 * The provider vocabulary: a vendor (who made a model, and so who signs its reasoning) and a wire
 * API (the request shape a history is written in), each wire API with its vendor.
 *
 * @module
 */

/**
 * Who produced a message, and so who may verify its reasoning signatures: `'openai'`,
 * `'anthropic'` or `'google'`. The `from…` functions set it as an assistant message's `provider`.
 *
 * @example
 * import type { Vendor } from 'chatfold/adapters'
 * const vendor: Vendor = 'anthropic'
 *
 * @since 0.1.0
 * @category adapters
 */
export type Vendor = 'openai' | 'anthropic' | 'google'

/** Each wire API and its vendor (`undefined` for the AI SDK, which carries every vendor's). */
export const WIRE_APIS = {
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  anthropic: 'anthropic',
  gemini: 'google',
  'ai-sdk': undefined,
} as const satisfies Readonly<Record<string, Vendor | undefined>>

/**
 * A wire API: the request shape a history is written in, and the name the CLI, `checkRequest` and
 * `countRequest` take: OpenAI Chat Completions (`'openai-chat'`, `{ messages }`), OpenAI Responses
 * (`'openai-responses'`, `{ input }`), Anthropic Messages (`'anthropic'`, `{ system?, messages }`),
 * Gemini `generateContent` (`'gemini'`, `{ systemInstruction?, contents }`), and the AI SDK's
 * `ModelMessage`s (`'ai-sdk'`, `{ messages }`).
 *
 * @example
 * import type { WireApi } from 'chatfold/adapters'
 * const api: WireApi = 'openai-responses'
 *
 * @since 0.1.0
 * @category adapters
 */
export type WireApi = keyof typeof WIRE_APIS

/** The wire APIs, in the order the CLI lists them. */
export const wireApis = Object.keys(WIRE_APIS) as ReadonlyArray<WireApi>

/** The vendor of a wire API; `undefined` for the AI SDK. */
export const vendorOf = (api: WireApi): Vendor | undefined => WIRE_APIS[api]

/** Whether a name is a wire API's. */
export const isWireApi = (name: string): name is WireApi => (wireApis as ReadonlyArray<string>).includes(name)
