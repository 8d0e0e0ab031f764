/**
 * A whole request, not only its messages: the envelope every provider's request body shares in
 * some form (the model, tool definitions and the tool choice, sampling and output settings), with
 * whatever else the provider's body held kept verbatim under `providerFields`. Each provider's
 * `from…Request` decodes its body into a `ModelRequest`, and its `to…Request` writes one, noting
 * each setting and tool the target cannot take (`setting_dropped`, `tool_dropped`).
 *
 * The system prompt is not a field: it is the history's system messages, as in every other
 * conversion.
 *
 * @module
 */
import type { Messages } from '../message/message.ts'
import type { ProviderFields } from '../message/part-model.ts'
import { isObject } from '../internal/object.ts'

// --- model ---

/**
 * A JSON Schema, as a provider's tool definition carries it.
 *
 * @example
 * import type { JsonSchema } from 'chatfold/adapters'
 * const schema: JsonSchema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }
 *
 * @since 0.1.0
 * @category adapters
 */
export type JsonSchema = Readonly<Record<string, unknown>>

/**
 * A tool the model may call: a function with a JSON Schema for its input, which every provider
 * takes, or a tool only one provider knows (a server-side web search, code execution, an MCP
 * server, an OpenAI custom tool with a grammar, …) kept verbatim, like a provider part.
 *
 * @example
 * import type { ToolDefinition } from 'chatfold/adapters'
 * const read: ToolDefinition = { type: 'function', name: 'read_file', description: 'Reads a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }
 * const search: ToolDefinition = { type: 'provider', provider: 'anthropic', kind: 'web_search_20250305', data: { type: 'web_search_20250305', name: 'web_search', max_uses: 5 } }
 *
 * @since 0.1.0
 * @category adapters
 */
export type ToolDefinition =
  | {
    readonly type: 'function'
    readonly name: string
    readonly description?: string
    readonly inputSchema: JsonSchema
    readonly strict?: boolean
    readonly providerFields?: ProviderFields
  }
  | { readonly type: 'provider'; readonly provider: string; readonly kind: string; readonly data: unknown }

/**
 * Which tool the model must call: its choice (`auto`), none (`none`), any (`required`), or the
 * named one (`tool`).
 *
 * @example
 * import type { ToolChoice } from 'chatfold/adapters'
 * const choice: ToolChoice = { type: 'tool', name: 'read_file' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type ToolChoice =
  | { readonly type: 'auto' }
  | { readonly type: 'none' }
  | { readonly type: 'required' }
  | { readonly type: 'tool'; readonly name: string }

/**
 * The sampling and output settings most providers share, by one name each (Anthropic's
 * `max_tokens`, OpenAI's `max_completion_tokens` or `max_output_tokens` and Gemini's
 * `maxOutputTokens` are all `maxOutputTokens`).
 *
 * @example
 * import type { RequestSettings } from 'chatfold/adapters'
 * const settings: RequestSettings = { maxOutputTokens: 1024, temperature: 0.2, stop: ['\n\nHuman:'] }
 *
 * @since 0.1.0
 * @category adapters
 */
export type RequestSettings = {
  readonly maxOutputTokens?: number
  readonly temperature?: number
  readonly topP?: number
  readonly topK?: number
  readonly stop?: ReadonlyArray<string>
  readonly seed?: number
  readonly presencePenalty?: number
  readonly frequencyPenalty?: number
  readonly parallelToolCalls?: boolean
}

/**
 * A request to a model as chatfold holds it: the history (system prompt included, as system messages), and
 * the envelope. `providerFields` keeps, by provider, every other field of the body as it was sent
 * (Anthropic's `thinking` or `metadata`, OpenAI's `reasoning` or `text.format`, Gemini's
 * `safetySettings`, …), which the same provider's `to…Request` writes back and another provider's
 * names in a `setting_dropped` note.
 *
 * @example
 * import { textMessage } from 'chatfold/message'
 * import { type ModelRequest } from 'chatfold/adapters'
 * const request: ModelRequest = {
 *   model: 'claude-sonnet-4-5',
 *   messages: [textMessage('system', 'Be brief.'), textMessage('user', 'List the files.')],
 *   tools: [{ type: 'function', name: 'ls', inputSchema: { type: 'object', properties: {} } }],
 *   toolChoice: { type: 'auto' },
 *   settings: { maxOutputTokens: 1024 },
 * }
 *
 * @since 0.1.0
 * @category adapters
 */
export type ModelRequest = {
  readonly model?: string
  readonly messages: Messages
  readonly tools?: ReadonlyArray<ToolDefinition>
  readonly toolChoice?: ToolChoice
  readonly settings?: RequestSettings
  readonly providerFields?: ProviderFields
}

// --- refinements (private to the package: what a summariser checks of a request it is handed) ---

/** Whether a value is a `ToolDefinition`: a function tool with its name and schema, or a provider's tool. */
export const isToolDefinition = (u: unknown): u is ToolDefinition =>
  isObject(u) &&
  ((u['type'] === 'function' && typeof u['name'] === 'string' && isObject(u['inputSchema'])) ||
    (u['type'] === 'provider' && typeof u['provider'] === 'string' && typeof u['kind'] === 'string'))

/** Whether a value is a `ToolChoice`. */
export const isToolChoice = (u: unknown): u is ToolChoice =>
  isObject(u) && (u['type'] === 'auto' || u['type'] === 'none' || u['type'] === 'required' || (u['type'] === 'tool' && typeof u['name'] === 'string'))
