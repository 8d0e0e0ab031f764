/**
 * OpenAI Responses API, decoding: the `input` items of a request into a history
 * (`fromOpenAIResponses`), and a response into an assistant message (`fromOpenAIResponse`).
 * Everything is untrusted JSON: every bad field is reported by path.
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../../message/failure.ts'
import type { Part, ToolResultBlock, ToolResultPart } from '../../message/part-model.ts'
import type { Message, Messages } from '../../message/message.ts'
import { type Context, newContext } from '../convert.ts'
import { fromDataUrl } from '../media.ts'
import { errorText, fromMessage, optional, type Reader, reader, replyMessage, settleStatuses, TaggedC } from '../decode.ts'
import { unsafeJson } from '../json-text.ts'
import { itemsOfMessage, referenceOf } from './responses.ts'
import {
  isKeptItem,
  keptPart,
  messageMetadata,
  OPENAI_RESPONSES_CONTENT,
  OPENAI_RESPONSES_KEPT_ITEMS,
  OPENAI_RESPONSES_MAPPED_ITEMS,
  sameJson,
  withOpenAIFields,
  without,
} from './_vocab.ts'
import { isObject } from '../../internal/object.ts'

// --- from ---

const MessageItemC = t.type({ role: t.keyof({ system: null, developer: null, user: null, assistant: null }), content: t.union([t.string, t.array(t.unknown)]) })
const FunctionCallC = t.type({ call_id: t.string, name: t.string, arguments: t.string })
const CustomCallC = t.type({ call_id: t.string, name: t.string, input: t.string })
const FunctionOutputC = t.type({ call_id: t.string, output: t.union([t.string, t.array(t.unknown)]) })
const ReasoningItemC = t.partial({ id: optional(t.string), summary: optional(t.array(t.type({ text: t.string }))), encrypted_content: optional(t.string) })
const InputTextC = t.type({ text: t.string })
const InputImageC = t.partial({ image_url: optional(t.string), file_id: optional(t.string) })
const InputFileC = t.partial({ file_data: t.string, file_url: t.string, filename: t.string, file_id: optional(t.string) })
const RefusalC = t.type({ refusal: t.string })

type Obj = Readonly<Record<string, unknown>>

const CONTENT_TYPES = OPENAI_RESPONSES_CONTENT.map((x) => `"${x}"`).join(' | ')

/** One content part of a user or system message: a built-in part with its residue, or kept whole. */
const contentPart = (r: Reader, u: unknown, at: string, inList: boolean): Part | undefined => {
  const tag = r.read(TaggedC, u, at)?.type
  if (tag === undefined || !isObject(u)) return undefined
  if (tag === 'input_text') {
    const x = r.read(InputTextC, u, at)
    // the one text of a content list keeps its type, so that the list goes back as a list (not a string)
    return x === undefined ? undefined : withOpenAIFields({ type: 'text', text: x.text }, inList ? without(u, 'text') : without(u, 'text', 'type'))
  }
  if (tag === 'input_image') {
    const x = r.read(InputImageC, u, at)
    if (x === undefined) return undefined
    if (typeof x.image_url !== 'string') return keptPart(tag, u)
    const inline = fromDataUrl(x.image_url)
    const rest = without(u, 'type', 'image_url')
    const fields = rest['detail'] === 'auto' ? without(rest, 'detail') : rest
    return withOpenAIFields(
      inline === undefined ? { type: 'image', url: x.image_url } : { type: 'image', data: inline.data, mediaType: inline.mediaType },
      fields,
    )
  }
  if (tag === 'input_file') {
    const x = r.read(InputFileC, u, at)
    if (x === undefined) return undefined
    const filename = x.filename === undefined ? {} : { filename: x.filename }
    const inline = x.file_data === undefined ? undefined : fromDataUrl(x.file_data)
    const fields = without(u, 'type', 'file_data', 'file_url', 'filename')
    if (inline !== undefined) return withOpenAIFields({ type: 'file', data: inline.data, mediaType: inline.mediaType, ...filename }, fields)
    if (x.file_url !== undefined && x.file_data === undefined)
      return withOpenAIFields({ type: 'file', url: x.file_url, mediaType: 'application/octet-stream', ...filename }, fields)
    return keptPart(tag, u)
  }
  if (tag === 'output_text' || tag === 'refusal') return keptPart(tag, u)
  return r.fail(`${at}.type`, CONTENT_TYPES, tag)
}

/** A function output list read as a result's blocks: text, images, files, and other content kept as it came. */
const outputBlocks = (r: Reader, output: ReadonlyArray<unknown>, at: string): ToolResultBlock[] => {
  const blocks: ToolResultBlock[] = []
  output.forEach((u, k) => {
    const p = contentPart(r, u, `${at}[${k}]`, false)
    if (p !== undefined && (p.type === 'text' || p.type === 'image' || p.type === 'file' || p.type === 'provider')) blocks.push(p)
  })
  return blocks
}

/** The text parts of an assistant message item's content list; `undefined` when it holds anything else. */
const assistantContent = (r: Reader, item: Obj, content: ReadonlyArray<unknown>, at: string): Part[] | undefined => {
  const parts: Part[] = []
  for (const [j, u] of content.entries()) {
    const tag = r.read(TaggedC, u, `${at}[${j}]`)?.type
    if (!isObject(u) || tag === undefined) return undefined
    const x = tag === 'refusal'
      ? r.read(RefusalC, u, `${at}[${j}]`)?.refusal
      : tag === 'output_text' || tag === 'input_text'
      ? r.read(InputTextC, u, `${at}[${j}]`)?.text
      : undefined
    if (x === undefined) return undefined
    const rest = without(u, tag === 'refusal' ? 'refusal' : 'text')
    parts.push(withOpenAIFields({ type: 'text', text: x }, j === 0 ? { item, ...rest } : rest))
  }
  return parts.length === 0 ? undefined : parts
}

/** What one item reads as: parts of the assistant turn, a message of its own, or a tool result. */
type Read =
  | { readonly side: 'assistant'; readonly parts: ReadonlyArray<Part> }
  | { readonly side: 'message'; readonly role: 'user' | 'system'; readonly parts: ReadonlyArray<Part>; readonly item?: Obj }
  | { readonly side: 'tool'; readonly part: ToolResultPart }

/** A residue worth keeping: one that differs from what the writer puts by default. */
const unless = (residue: Obj, byDefault: Obj): Obj | undefined => (sameJson(residue, byDefault) ? undefined : residue)

const readItem = (r: Reader, u: unknown, at: string, tag: string): Read | undefined => {
  if (!isObject(u)) return undefined
  switch (tag) {
    case 'message': {
      const x = r.read(MessageItemC, u, at)
      if (x === undefined) return undefined
      const item = without(u, 'content')
      if (x.role === 'assistant') {
        if (typeof x.content === 'string')
          return {
            side: 'assistant',
            parts: [
              withOpenAIFields({ type: 'text', text: x.content }, unless(item, { type: 'message', role: 'assistant' }) === undefined ? undefined : { item }),
            ],
          }
        const parts = assistantContent(r, item, x.content, `${at}.content`)
        return { side: 'assistant', parts: parts ?? [keptPart('message', u)] }
      }
      const role = x.role === 'user' ? 'user' : 'system'
      const parts = typeof x.content === 'string'
        ? [{ type: 'text' as const, text: x.content }]
        : x.content.flatMap((c, j) => contentPart(r, c, `${at}.content[${j}]`, x.content.length === 1) ?? [])
      const kept = unless(item, { type: 'message', role: x.role })
      return { side: 'message', role, parts, ...(kept === undefined ? {} : { item: kept }) }
    }
    case 'reasoning': {
      const x = r.read(ReasoningItemC, u, at)
      if (x === undefined) return undefined
      const id = x.id ?? undefined
      // one part a summary, each naming the item, so that the item goes back as the one it was
      const token = referenceOf(id, x.encrypted_content)
      const residue = without(u, 'type', 'id', 'summary', ...(typeof x.encrypted_content === 'string' ? ['encrypted_content'] : []))
      const summaries = x.summary ?? []
      if (summaries.length === 0) return { side: 'assistant', parts: [withOpenAIFields({ type: 'reasoning', text: token, redacted: true }, residue)] }
      return {
        side: 'assistant',
        parts: summaries.map((s, j) =>
          withOpenAIFields({ type: 'reasoning', text: s.text, signature: token }, j === 0 ? residue : id === undefined ? { continues: true } : undefined)
        ),
      }
    }
    case 'function_call':
    case 'custom_tool_call': {
      const x = tag === 'function_call' ? r.read(FunctionCallC, u, at) : r.read(CustomCallC, u, at)
      if (x === undefined) return undefined
      const args = 'arguments' in x ? x.arguments : JSON.stringify({ input: x.input })
      const residue = without(u, 'call_id', 'name', 'arguments', 'input')
      return {
        side: 'assistant',
        parts: [
          withOpenAIFields({ type: 'tool_call', id: x.call_id, name: x.name, arguments: args, status: 'complete' }, unless(residue, { type: 'function_call' })),
        ],
      }
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const x = r.read(FunctionOutputC, u, at)
      if (x === undefined) return undefined
      const content = typeof x.output === 'string' ? x.output : outputBlocks(r, x.output, `${at}.output`)
      const residue = without(u, 'call_id', 'output')
      return {
        side: 'tool',
        part: withOpenAIFields({ type: 'tool_result', toolCallId: x.call_id, content, isError: false }, unless(residue, { type: 'function_call_output' })),
      }
    }
    default:
      return { side: 'assistant', parts: [keptPart(tag, u)] }
  }
}

const scratch = (): Context => newContext('openai-responses', {})

/** The message one read item makes on its own (for the check that it goes back as it came). */
const alone = (x: Read): Message =>
  x.side === 'assistant'
    ? { id: 'check', role: 'assistant', kind: 'normal', parts: x.parts, provider: 'openai' }
    : x.side === 'tool'
    ? { id: 'check', role: 'tool', kind: 'normal', parts: [x.part] }
    : { id: 'check', role: x.role, kind: 'normal', parts: x.parts, ...messageMetadata('item', x.item) }

/** An item as read, or, when that would not go back as it came, the item kept whole. */
const readOrKeep = (r: Reader, u: unknown, at: string, tag: string): Read | undefined => {
  const x = readItem(r, u, at, tag)
  if (x === undefined || sameJson(itemsOfMessage(scratch(), alone(x), 'system'), [u])) return x
  const kept = keptPart(tag, u)
  return x.side === 'message' ? { side: 'message', role: x.role, parts: [kept] } : { side: 'assistant', parts: [kept] }
}

/**
 * The parts of one output item a stream delivers whole (not a message, reasoning or function call,
 * which arrive in pieces): as `fromOpenAIResponse` reads it; none for an item it cannot read.
 */
export const streamedItemParts = (u: unknown): ReadonlyArray<Part> => {
  const r = reader()
  const tag = unsafeJson(u, '') === undefined ? typeOf(r, u, '') : undefined
  if (tag === undefined || (!MAPPED.has(tag) && !isKeptItem(tag))) return []
  const x = readOrKeep(r, u, '', tag)
  return x === undefined ? [] : x.side === 'tool' ? [x.part] : x.parts
}

const ITEM_TYPES = [...OPENAI_RESPONSES_MAPPED_ITEMS, ...OPENAI_RESPONSES_KEPT_ITEMS].map((x) => `"${x}"`).join(' | ')

/** The type of an item: `message` for an easy message without one, `item_reference` for a bare reference. */
const typeOf = (r: Reader, u: unknown, at: string): string | undefined => {
  if (isObject(u) && u['type'] == null && 'role' in u) return 'message'
  if (isObject(u) && u['type'] == null && typeof u['id'] === 'string') return 'item_reference'
  return r.read(TaggedC, u, at)?.type
}

/** Folds items into messages, gathering consecutive assistant-side items into one message. */
const decodeItems = (r: Reader, items: ReadonlyArray<unknown>, path: string): Message[] => {
  const out: Message[] = []
  const names = new Map<string, string>()
  let assistant: Part[] | undefined
  const close = (): void => {
    if (assistant !== undefined) out.push(fromMessage({ role: 'assistant', parts: assistant, provider: 'openai' }))
    assistant = undefined
  }
  items.forEach((u, i) => {
    const at = `${path}[${i}]`
    // an item is kept or compared whole: one nested too deep (or cyclic) is a failure, never a throw
    const unsafe = unsafeJson(u, at)
    if (unsafe !== undefined) return void r.fail(unsafe.path, unsafe.expected, unsafe.actual)
    const tag = typeOf(r, u, at)
    if (tag === undefined) return
    if (!MAPPED.has(tag) && !isKeptItem(tag)) return void r.fail(`${at}.type`, ITEM_TYPES, tag)
    const x = readOrKeep(r, u, at, tag)
    if (x === undefined) return
    if (x.side === 'assistant') {
      for (const p of x.parts) if (p.type === 'tool_call') names.set(p.id, p.name)
      ;(assistant ??= []).push(...x.parts)
    } else if (x.side === 'tool') {
      close()
      const name = names.get(x.part.toolCallId)
      out.push(fromMessage({ role: 'tool', parts: [name === undefined ? x.part : { ...x.part, name }] }))
    } else {
      close()
      out.push(fromMessage({ role: x.role, parts: x.parts, ...messageMetadata('item', x.item) }))
    }
  })
  close()
  return out
}

const MAPPED: ReadonlySet<string> = new Set(OPENAI_RESPONSES_MAPPED_ITEMS)

const RequestC = t.intersection(
  [t.type({ input: t.union([t.string, t.array(t.unknown)]) }), t.partial({ instructions: optional(t.string) })],
  'a response request with input',
)

/** The system message a request's `instructions` become, marked so that they go back as `instructions`. */
const instructionsMessage = (text: string): Message =>
  fromMessage({ role: 'system', parts: [{ type: 'text', text }], metadata: { providerFields: { openai: { instructions: true } } } })

/**
 * Decodes the `input` of a Responses request (`{ input }`, as `toOpenAIResponses` writes it, or any
 * request body) into a history. Consecutive reasoning, assistant message and function call items
 * make one assistant message with `provider: 'openai'`; each `function_call_output` a tool
 * message. A string `input` is one user message; `instructions` a system message first, which
 * `toOpenAIResponses` writes back as `instructions`. Item types only OpenAI knows are provider
 * parts, in place (see `_vocab.ts`). Every bad field is reported by path.
 *
 * @example
 * import { fromOpenAIResponses } from 'chatfold'
 * fromOpenAIResponses({ input: [
 *   { type: 'message', role: 'user', content: 'Weather in Paris?' },
 *   { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
 *   { type: 'function_call_output', call_id: 'call_1', output: '18°C' },
 * ] })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromOpenAIResponses = (u: unknown): E.Either<DecodeFailure, Messages> => {
  const r = reader()
  const request = r.read(RequestC, u, '')
  if (request === undefined) return r.done([])
  const instructions = typeof request.instructions === 'string' ? [instructionsMessage(request.instructions)] : []
  if (typeof request.input === 'string') return r.done([...instructions, fromMessage({ role: 'user', parts: [{ type: 'text', text: request.input }] })])
  return r.done(settleStatuses([...instructions, ...decodeItems(r, request.input, 'input')]))
}

const ResponseC = t.intersection([
  t.type({ id: t.string, output: t.array(t.unknown) }),
  t.partial({
    model: t.string,
    status: optional(t.string),
    error: optional(t.type({ message: t.string, code: optional(t.string) })),
    incomplete_details: optional(t.partial({ reason: optional(t.string) })),
    usage: optional(
      t.intersection([t.type({ output_tokens: t.number }), t.partial({ output_tokens_details: optional(t.partial({ reasoning_tokens: t.number })) })]),
    ),
  }),
])

const ErrorBodyC = t.type({ error: t.intersection([t.type({ message: t.string }), t.partial({ type: optional(t.string) })]) })

/**
 * Decodes a Responses API response into one assistant message: its id, model, `provider: 'openai'`,
 * the parts of its output items, a finish part (`end_turn`, `tool_use` when it calls a function,
 * `max_tokens` or `content_filter` when incomplete) and its output tokens. A failed response, or
 * an error body, sets the message's `error`. Function calls are `pending`: nothing has run them yet.
 *
 * @example
 * import { fromOpenAIResponse } from 'chatfold/adapters'
 * fromOpenAIResponse({ id: 'resp_1', model: 'gpt-5', status: 'completed', output: [
 *   { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hi!', annotations: [] }] },
 * ] })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromOpenAIResponse = (u: unknown): E.Either<DecodeFailure, Message> => {
  const r = reader()
  if (ErrorBodyC.is(u) && !(isObject(u) && 'output' in u)) {
    return r.done(fromMessage({ role: 'assistant', parts: [], provider: 'openai', error: errorText(u.error.type, u.error.message) }))
  }
  const x = r.read(ResponseC, u, '')
  if (x === undefined) return r.done(fromMessage({ role: 'assistant', parts: [] }))
  const decoded = decodeItems(r, x.output, 'output')
  const parts: Part[] = decoded.flatMap((m) => (m.role === 'assistant' ? m.parts : []))
  const incomplete = x.incomplete_details?.reason
  const reason = x.status === 'incomplete'
    ? incomplete === 'max_output_tokens' ? 'max_tokens' : (incomplete ?? 'incomplete')
    : x.status === 'completed'
    ? parts.some((p) => p.type === 'tool_call') ? 'tool_use' : 'end_turn'
    : undefined
  return r.done(
    replyMessage({
      provider: 'openai',
      parts,
      id: x.id,
      model: x.model,
      finish: reason,
      output: x.usage?.output_tokens,
      thinking: x.usage?.output_tokens_details?.reasoning_tokens,
      error: x.error == null ? undefined : errorText(x.error.code, x.error.message),
    }),
  )
}
