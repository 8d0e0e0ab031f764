/**
 * Anthropic Messages, decoding: the `system` and `messages` of a request into a history
 * (`fromAnthropic`), and a response into an assistant message (`fromAnthropicMessage`).
 * Everything is untrusted JSON: every bad field is reported by path.
 *
 * @module
 */
import * as t from 'io-ts'
import type * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../failure.ts'
import type { Part } from '../part.ts'
import type { Message, Messages } from '../message.ts'
import {
  bytesOf,
  fromMessage,
  replyMessage,
  optional,
  reader,
  type Reader,
  settleStatuses,
  TaggedC,
  errorText,
} from './shared.ts'
import { jsonText } from './json-text.ts'

// --- from ---

const TextC = t.type({ text: t.string })
const ThinkingC = t.intersection([t.type({ thinking: t.string }), t.partial({ signature: optional(t.string) })])
const RedactedC = t.type({ data: t.string })
const ToolUseC = t.type({ id: t.string, name: t.string, input: t.unknown })
const ToolResultC = t.intersection([
  t.type({ tool_use_id: t.string }),
  t.partial({ content: optional(t.union([t.string, t.array(t.unknown)])), is_error: optional(t.boolean) }),
])
const SourceC = t.intersection([t.type({ type: t.string }), t.partial({ media_type: t.string, data: t.string, url: t.string })])
const MediaC = t.intersection([t.type({ source: SourceC }), t.partial({ title: optional(t.string) })])

const utf8Bytes = new TextEncoder()

/** An image or document block as a part. */
const mediaPart = (r: Reader, u: unknown, at: string, kind: 'image' | 'document'): Part | undefined => {
  const x = r.read(MediaC, u, at)
  if (x === undefined) return undefined
  const { source } = x
  const filename = typeof x.title === 'string' ? { filename: x.title } : {}
  if (source.type === 'url' && source.url !== undefined) {
    return kind === 'image' ? { type: 'image', url: source.url } : { type: 'file', url: source.url, mediaType: 'application/pdf', ...filename }
  }
  if (source.type === 'text' && kind === 'document' && source.data !== undefined) {
    return { type: 'file', data: utf8Bytes.encode(source.data), mediaType: 'text/plain', ...filename }
  }
  if (source.type === 'base64' && source.data !== undefined && source.media_type !== undefined) {
    const data = bytesOf(source.data)
    if (data === undefined) return r.fail(`${at}.source.data`, 'base64 string', source.data)
    return kind === 'image' ? { type: 'image', data, mediaType: source.media_type } : { type: 'file', data, mediaType: source.media_type, ...filename }
  }
  return r.fail(`${at}.source`, 'a base64, URL or text source', source)
}

/** The parts of a block list, or of a string. Tool results come out apart, in order. */
const blockParts = (r: Reader, content: string | ReadonlyArray<unknown>, path: string, inResult = false): { parts: Part[]; results: Part[][] } => {
  if (typeof content === 'string') return { parts: [{ type: 'text', text: content }], results: [] }
  const parts: Part[] = []
  const results: Part[][] = []
  content.forEach((u, j) => {
    const at = `${path}[${j}]`
    const tag = r.read(TaggedC, u, at)?.type
    switch (tag) {
      case undefined:
        return
      case 'text': {
        const x = r.read(TextC, u, at)
        if (x !== undefined) parts.push({ type: 'text', text: x.text })
        return
      }
      case 'thinking': {
        const x = r.read(ThinkingC, u, at)
        if (x !== undefined) parts.push({ type: 'reasoning', text: x.thinking, ...(typeof x.signature === 'string' ? { signature: x.signature } : {}) })
        return
      }
      case 'redacted_thinking': {
        const x = r.read(RedactedC, u, at)
        if (x !== undefined) parts.push({ type: 'reasoning', text: x.data, redacted: true })
        return
      }
      case 'tool_use': {
        const x = r.read(ToolUseC, u, at)
        const input = x === undefined ? undefined : jsonText(r, x.input ?? {}, `${at}.input`)
        if (x !== undefined && input !== undefined) parts.push({ type: 'tool_call', id: x.id, name: x.name, arguments: input, status: 'complete' })
        return
      }
      case 'image':
      case 'document': {
        const p = mediaPart(r, u, at, tag)
        if (p !== undefined) parts.push(p)
        return
      }
      case 'tool_result': {
        // a result holds text, images and documents, never another result: no recursion on nesting
        if (inResult) return void r.fail(`${at}.type`, 'a text, image or document block inside a tool_result', tag)
        const x = r.read(ToolResultC, u, at)
        if (x === undefined) return
        const inner = x.content == null ? { parts: [], results: [] } : blockParts(r, x.content, `${at}.content`, true)
        const content = inner.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')
        const media = inner.parts.filter((p) => p.type === 'image' || p.type === 'file')
        results.push([{ type: 'tool_result', toolCallId: x.tool_use_id, content, isError: x.is_error === true }, ...media])
        return
      }
      default:
        // server tools, citations, search results…: not part of chatfold's model, left out
        return
    }
  })
  return { parts, results }
}

const TurnC = t.type({ role: t.keyof({ user: null, assistant: null, system: null }), content: t.union([t.string, t.array(t.unknown)]) })
const RequestC = t.intersection([
  t.type({ messages: t.array(t.unknown) }, 'a Messages request with messages'),
  t.partial({ system: optional(t.union([t.string, t.array(t.unknown)])) }),
])

/**
 * Decodes the `system` and `messages` of an Anthropic Messages request (as `toAnthropic` writes
 * them, or any request body) into a history: `system` becomes a system message; a user turn's
 * `tool_result` blocks become tool messages (one a result, with the tool's name found from its call)
 * and the rest a user message; an assistant turn becomes an assistant message with
 * `provider: 'anthropic'`, thinking blocks as reasoning with their signatures and redacted thinking
 * as reasoning with `redacted: true`. Tool-use input becomes its JSON text. Blocks of Anthropic's
 * server tools are left out. Every bad field is reported by path.
 *
 * @example
 * import { fromAnthropic } from 'chatfold'
 * fromAnthropic({ system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromAnthropic = (u: unknown): E.Either<DecodeFailure, Messages> => {
  const r = reader()
  const request = r.read(RequestC, u, '')
  if (request === undefined) return r.done([])
  const out: Message[] = []
  const names = new Map<string, string>()
  if (request.system != null) out.push(fromMessage({ role: 'system', parts: blockParts(r, request.system, 'system').parts }))
  request.messages.forEach((item, i) => {
    const path = `messages[${i}]`
    const turn = r.read(TurnC, item, path)
    if (turn === undefined) return
    const { parts, results } = blockParts(r, turn.content, `${path}.content`)
    if (turn.role === 'assistant') {
      for (const p of parts) if (p.type === 'tool_call') names.set(p.id, p.name)
      out.push(fromMessage({ role: 'assistant', parts, provider: 'anthropic' }))
      return
    }
    for (const result of results) {
      const named = result.map((p) => {
        const name = p.type === 'tool_result' ? names.get(p.toolCallId) : undefined
        return name === undefined ? p : { ...p, name }
      })
      out.push(fromMessage({ role: 'tool', parts: named }))
    }
    if (parts.length > 0 || results.length === 0) out.push(fromMessage({ role: turn.role, parts }))
  })
  return r.done(settleStatuses(out))
}

const MessageC = t.intersection([
  t.type({ id: t.string, content: t.array(t.unknown) }),
  t.partial({
    model: t.string,
    stop_reason: optional(t.string),
    usage: optional(t.type({ output_tokens: t.number })),
  }),
])

const ErrorBodyC = t.type({ type: t.literal('error'), error: t.type({ type: t.string, message: t.string }) })

/**
 * Decodes an Anthropic Messages response into one assistant message: its id, model,
 * `provider: 'anthropic'`, parts (thinking with signatures, redacted thinking, text, tool use), a
 * finish part with the `stop_reason` as it is (`end_turn`, `tool_use`, `max_tokens`, …) and its
 * output tokens. An error body (`{ type: 'error', error: { type, message } }`) becomes an
 * assistant message with `error` set and no parts. Tool calls are `pending`: nothing has run them yet.
 *
 * @example
 * import { fromAnthropicMessage } from 'chatfold'
 * fromAnthropicMessage({
 *   id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', stop_reason: 'end_turn',
 *   content: [{ type: 'text', text: 'Hi!' }], usage: { input_tokens: 9, output_tokens: 3 },
 * })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromAnthropicMessage = (u: unknown): E.Either<DecodeFailure, Message> => {
  const r = reader()
  if (ErrorBodyC.is(u)) return r.done(fromMessage({ role: 'assistant', parts: [], provider: 'anthropic', error: errorText(u.error.type, u.error.message) }))
  const x = r.read(MessageC, u, '')
  if (x === undefined) return r.done(fromMessage({ role: 'assistant', parts: [] }))
  return r.done(
    replyMessage({
      provider: 'anthropic',
      parts: blockParts(r, x.content, 'content').parts,
      id: x.id,
      model: x.model,
      finish: typeof x.stop_reason === 'string' ? x.stop_reason : undefined,
      output: x.usage?.output_tokens,
    }),
  )
}
