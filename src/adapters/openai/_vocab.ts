/**
 * The vocabulary of OpenAI's two APIs as chatfold handles it: the item and part types each adapter
 * maps to a built-in part or keeps verbatim in a provider part, and the helpers both adapters use
 * to keep what only OpenAI knows.
 *
 * A mapped item or part keeps its other fields (the item `id`, `status`, `phase`, an output text's
 * `annotations` and `logprobs`, an image's `detail`, …) under `providerFields.openai` of the part
 * it became: its "residue", the wire object without the fields the part itself holds. The writer
 * puts the residue back, so the item goes out as it came. An item or part that would not come back
 * identical this way is kept whole, as a provider part, in its place.
 *
 * What the parts cannot show is marked in the same place, in chatfold's own keys: `item` (on the
 * first part of a Responses message item read into an assistant turn: the item's fields but its
 * content), `continues` (a further summary of a reasoning item without an id), `refusal: 'field'`
 * (a Chat refusal sent in the message's `refusal` field), a part `type` (the one text of a content
 * list, which a string would otherwise replace), and on messages `item` / `message` (a Responses
 * message item's or a Chat message's fields), `instructions: true` (a request's instructions),
 * `input: 'string'` (a request's string input) and `chatfold: { content: 'absent' }` (a Chat
 * assistant message sent without `content`). Other providers' rules name only what is lost.
 *
 * @module
 */
import type { Part, ProviderPart } from '../../message/part-model.ts'
import { isObject } from '../../internal/object.ts'

// --- vocabulary ---

/**
 * The Responses input item types mapped to built-in parts: messages to text (and media), reasoning
 * to reasoning, function and custom tool calls and their outputs to tool calls and results.
 *
 * @since 0.1.0
 * @category adapters
 */
export const OPENAI_RESPONSES_MAPPED_ITEMS = [
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
] as const

/**
 * The Responses input item types kept verbatim as provider parts (`provider: 'openai'`, `kind` the
 * item type), in their place: hosted tool calls and their outputs, MCP items, compaction (a
 * compaction boundary), item references, programs, tool search.
 *
 * @since 0.1.0
 * @category adapters
 */
export const OPENAI_RESPONSES_KEPT_ITEMS = [
  'file_search_call',
  'computer_call',
  'computer_call_output',
  'web_search_call',
  'tool_search_call',
  'tool_search_output',
  'additional_tools',
  'compaction',
  'compaction_trigger',
  'image_generation_call',
  'code_interpreter_call',
  'local_shell_call',
  'local_shell_call_output',
  'shell_call',
  'shell_call_output',
  'apply_patch_call',
  'apply_patch_call_output',
  'mcp_list_tools',
  'mcp_approval_request',
  'mcp_approval_response',
  'mcp_call',
  'item_reference',
  'program',
  'program_output',
] as const

/**
 * The content part types of a Responses message: input text, image and file, output text and
 * refusal. Text-like parts become text; images and files by URL or bytes become image and file
 * parts; anything else (a file id only, …) is kept as a provider part in place.
 *
 * @since 0.1.0
 * @category adapters
 */
export const OPENAI_RESPONSES_CONTENT = ['input_text', 'input_image', 'input_file', 'output_text', 'refusal'] as const

/**
 * The Chat Completions message roles, content part types and tool call types chatfold handles.
 * `developer` and `system` messages are system messages; a `function` message (deprecated) is kept
 * as a provider part; custom tool calls are tool calls whose arguments are `{"input": …}`.
 *
 * @since 0.1.0
 * @category adapters
 */
export const OPENAI_CHAT_CONTENT = ['text', 'image_url', 'input_audio', 'file', 'refusal'] as const

/**
 * The Chat Completions message roles chatfold reads and writes back.
 *
 * @since 0.1.0
 * @category adapters
 */
export const OPENAI_CHAT_ROLES = ['developer', 'system', 'user', 'assistant', 'tool', 'function'] as const

/**
 * The Chat Completions tool call types: `function` and `custom`.
 *
 * @since 0.1.0
 * @category adapters
 */
export const OPENAI_CHAT_TOOL_CALLS = ['function', 'custom'] as const

const KEPT: ReadonlySet<string> = new Set(OPENAI_RESPONSES_KEPT_ITEMS)
const MAPPED: ReadonlySet<string> = new Set(OPENAI_RESPONSES_MAPPED_ITEMS)

/** Whether a provider part's kind is a Responses input item (kept or written back whole). */
export const isResponsesItemKind = (kind: string): boolean => KEPT.has(kind) || MAPPED.has(kind)

/** Whether an item type is one the Responses reader keeps verbatim. */
export const isKeptItem = (type: string): boolean => KEPT.has(type)

/** Whether a content type is a Responses message content part. */
export const isResponsesContent = (type: unknown): boolean => typeof type === 'string' && (OPENAI_RESPONSES_CONTENT as ReadonlyArray<string>).includes(type)

// --- residues ---

type Obj = Readonly<Record<string, unknown>>

/** The OpenAI fields of a part (its residue), if any. */
export const openAIFields = (p: Part): Obj | undefined => {
  const all = (p as { readonly providerFields?: Readonly<Record<string, Obj>> }).providerFields
  return all?.['openai']
}

/** A part with `fields` as its OpenAI fields (none when `fields` is empty or absent). */
export const withOpenAIFields = <P extends Part>(p: P, fields: Obj | undefined): P =>
  fields === undefined || Object.keys(fields).length === 0 ? p : ({ ...p, providerFields: { openai: fields } } as P)

/**
 * The OpenAI fields of a message read from one API: `item` (a Responses message item's fields but
 * its content) or `message` (a Chat Completions message's fields but its content and tool calls),
 * under the message's `metadata.providerFields.openai`.
 */
export const messageFields = (m: { readonly metadata?: Readonly<Record<string, unknown>> | undefined }, api: 'item' | 'message'): Obj | undefined => {
  const all = m.metadata?.['providerFields']
  const own = isObject(all) ? all['openai'] : undefined
  const fields = isObject(own) ? own[api] : undefined
  return isObject(fields) ? fields : undefined
}

/** Message metadata holding `fields` as the OpenAI fields of `api` (nothing when absent). */
export const messageMetadata = (api: 'item' | 'message', fields: Obj | undefined): { readonly metadata?: Readonly<Record<string, unknown>> } =>
  fields === undefined ? {} : { metadata: { providerFields: { openai: { [api]: fields } } } }

/** An object without some of its keys. */
export const without = (o: Obj, ...keys: ReadonlyArray<string>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k)) out[k] = v
  return out
}

/** Whether two JSON values are equal, whatever the order of their keys. */
export const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]))
  if (!isObject(a) || !isObject(b) || Array.isArray(b)) return false
  const ka = Object.keys(a).filter((k) => a[k] !== undefined)
  const kb = Object.keys(b).filter((k) => b[k] !== undefined)
  return ka.length === kb.length && ka.every((k) => sameJson(a[k], b[k]))
}

/** The provider part that keeps an OpenAI item or content part whole. */
export const keptPart = (kind: string, data: unknown): ProviderPart => ({ type: 'provider', provider: 'openai', kind, data })
