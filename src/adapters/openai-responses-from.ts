/**
 * OpenAI Responses API, decoding: the `input` items of a request into a history
 * (`fromOpenAIResponses`), and a response into an assistant message (`fromOpenAIResponse`).
 * Everything is untrusted JSON: every bad field is reported by path.
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../failure.ts'
import type { Part } from '../part.ts'
import type { Message, Messages } from '../message.ts'
import {
  fromDataUrl,
  fromMessage,
  replyMessage,
  optional,
  reader,
  type Reader,
  settleStatuses,
  TaggedC,
  errorText,
} from './shared.ts'
import { referenceOf } from './openai-responses.ts'
import { isObject } from '../internal/object.ts'

// --- from ---

const MessageItemC = t.type({ role: t.keyof({ system: null, developer: null, user: null, assistant: null }), content: t.union([t.string, t.array(t.unknown)]) })
const FunctionCallC = t.type({ call_id: t.string, name: t.string, arguments: t.string })
const FunctionOutputC = t.type({ call_id: t.string, output: t.union([t.string, t.array(t.unknown)]) })
const ReasoningItemC = t.intersection([
  t.type({ id: t.string }),
  t.partial({ summary: optional(t.array(t.type({ text: t.string }))), encrypted_content: optional(t.string) }),
])
const InputTextC = t.type({ text: t.string })
const InputImageC = t.partial({ image_url: optional(t.string), file_id: optional(t.string) })
const InputFileC = t.partial({ file_data: t.string, file_url: t.string, filename: t.string, file_id: optional(t.string) })
const RefusalC = t.type({ refusal: t.string })

/** The parts of a message item's content. */
const contentParts = (r: Reader, content: string | ReadonlyArray<unknown>, path: string): Part[] => {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  const parts: Part[] = []
  content.forEach((u, j) => {
    const at = `${path}[${j}]`
    const tag = r.read(TaggedC, u, at)?.type
    if (tag === 'input_text' || tag === 'output_text') {
      const x = r.read(InputTextC, u, at)
      if (x !== undefined) parts.push({ type: 'text', text: x.text })
    } else if (tag === 'refusal') {
      const x = r.read(RefusalC, u, at)
      if (x !== undefined) parts.push({ type: 'text', text: x.refusal })
    } else if (tag === 'input_image') {
      const x = r.read(InputImageC, u, at)
      if (x === undefined) return
      if (typeof x.image_url !== 'string') return void r.fail(`${at}.image_url`, 'an image URL (file ids are not supported)', x.image_url)
      const inline = fromDataUrl(x.image_url)
      parts.push(inline === undefined ? { type: 'image', url: x.image_url } : { type: 'image', data: inline.data, mediaType: inline.mediaType })
    } else if (tag === 'input_file') {
      const x = r.read(InputFileC, u, at)
      if (x === undefined) return
      const filename = x.filename === undefined ? {} : { filename: x.filename }
      const inline = x.file_data === undefined ? undefined : fromDataUrl(x.file_data)
      if (inline !== undefined) parts.push({ type: 'file', data: inline.data, mediaType: inline.mediaType, ...filename })
      else if (x.file_url !== undefined) parts.push({ type: 'file', url: x.file_url, mediaType: 'application/octet-stream', ...filename })
      else r.fail(`${at}.file_data`, 'a base64 data URL or a file_url', x.file_data)
    } else if (tag !== undefined) {
      r.fail(`${at}.type`, '"input_text" | "output_text" | "refusal" | "input_image" | "input_file"', tag)
    }
  })
  return parts
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
    const tag = isObject(u) && u['type'] === undefined && 'role' in u ? 'message' : r.read(TaggedC, u, at)?.type
    if (tag === 'message') {
      const x = r.read(MessageItemC, u, at)
      if (x === undefined) return
      const parts = contentParts(r, x.content, `${at}.content`)
      if (x.role === 'assistant') (assistant ??= []).push(...parts)
      else {
        close()
        out.push(fromMessage({ role: x.role === 'user' ? 'user' : 'system', parts }))
      }
    } else if (tag === 'reasoning') {
      const x = r.read(ReasoningItemC, u, at)
      if (x === undefined) return
      // one part a summary, each naming the item, so that the item goes back as the one it was
      const token = referenceOf(x.id, x.encrypted_content)
      const summaries = x.summary ?? []
      if (summaries.length === 0) (assistant ??= []).push({ type: 'reasoning', text: token, redacted: true })
      for (const s of summaries) (assistant ??= []).push({ type: 'reasoning', text: s.text, signature: token })
    } else if (tag === 'function_call') {
      const x = r.read(FunctionCallC, u, at)
      if (x === undefined) return
      names.set(x.call_id, x.name)
      ;(assistant ??= []).push({ type: 'tool_call', id: x.call_id, name: x.name, arguments: x.arguments, status: 'complete' })
    } else if (tag === 'function_call_output') {
      const x = r.read(FunctionOutputC, u, at)
      if (x === undefined) return
      close()
      const content = typeof x.output === 'string' ? x.output : contentParts(r, x.output, `${at}.output`).map((p) => (p.type === 'text' ? p.text : '')).join('')
      const name = names.get(x.call_id)
      out.push(fromMessage({ role: 'tool', parts: [{ type: 'tool_result', toolCallId: x.call_id, content, isError: false, ...(name === undefined ? {} : { name }) }] }))
    } else if (tag !== undefined) {
      r.fail(`${at}.type`, '"message" | "reasoning" | "function_call" | "function_call_output"', tag)
    }
  })
  close()
  return out
}

const RequestC = t.type({ input: t.union([t.string, t.array(t.unknown)]) }, 'a response request with input')

/**
 * Decodes the `input` of a Responses request (`{ input }`, as `toOpenAIResponses` writes it, or any
 * request body) into a history. Consecutive reasoning, assistant message and function call items
 * make one assistant message with `provider: 'openai'`; each `function_call_output` a tool
 * message. A string `input` is one user message. Every bad field is reported by path.
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
  if (typeof request.input === 'string') return r.done([fromMessage({ role: 'user', parts: [{ type: 'text', text: request.input }] })])
  return r.done(settleStatuses(decodeItems(r, request.input, 'input')))
}

const ResponseC = t.intersection([
  t.type({ id: t.string, output: t.array(t.unknown) }),
  t.partial({
    model: t.string,
    status: optional(t.string),
    error: optional(t.type({ message: t.string, code: optional(t.string) })),
    incomplete_details: optional(t.partial({ reason: optional(t.string) })),
    usage: optional(t.intersection([t.type({ output_tokens: t.number }), t.partial({ output_tokens_details: optional(t.partial({ reasoning_tokens: t.number })) })])),
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
 * import { fromOpenAIResponse } from 'chatfold'
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
  const reason =
    x.status === 'incomplete'
      ? incomplete === 'max_output_tokens'
        ? 'max_tokens'
        : (incomplete ?? 'incomplete')
      : x.status === 'completed'
        ? parts.some((p) => p.type === 'tool_call')
          ? 'tool_use'
          : 'end_turn'
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
