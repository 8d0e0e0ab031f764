/**
 * Google Gemini, decoding: the `systemInstruction` and `contents` of a request into a history
 * (`fromGemini`), and a `GenerateContentResponse` (or one stream chunk) into an assistant message
 * (`fromGeminiResponse`). Everything is untrusted JSON: every bad field is reported by path.
 *
 * @module
 */
import * as t from 'io-ts'
import type * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../failure.ts'
import type { Part } from '../part.ts'
import type { Message, Messages } from '../message.ts'
import { newId } from '../internal/id.ts'
import {
  bytesOf,
  errorText,
  fromMessage,
  replyMessage,
  optional,
  reader,
  type Reader,
  settleStatuses,
} from './shared.ts'
import { jsonText } from './json-text.ts'

// --- from ---

const PartC = t.partial({
  text: optional(t.string),
  thought: optional(t.boolean),
  thoughtSignature: optional(t.string),
  inlineData: optional(t.type({ mimeType: t.string, data: t.string })),
  fileData: optional(t.intersection([t.type({ fileUri: t.string }), t.partial({ mimeType: optional(t.string) })])),
  functionCall: optional(t.intersection([t.type({ name: t.string }), t.partial({ id: optional(t.string), args: optional(t.UnknownRecord) })])),
  functionResponse: optional(t.intersection([t.type({ name: t.string }), t.partial({ id: optional(t.string), response: optional(t.UnknownRecord) })])),
})

const ContentC = t.partial({ role: optional(t.string), parts: optional(t.array(t.unknown)) })

/** Ids for calls that come without one, and the pairing of responses that come without one. */
type Calls = { readonly prefix: string; count: number; readonly open: Array<{ readonly id: string; readonly name: string }> }

const media = (mimeType: string | null | undefined, source: { data: Uint8Array } | { url: string }): Part =>
  mimeType != null && mimeType.startsWith('image/')
    ? { type: 'image', ...source, mediaType: mimeType }
    : mimeType == null
      ? 'url' in source
        ? { type: 'image', url: source.url }
        : { type: 'file', data: source.data, mediaType: 'application/octet-stream' }
      : { type: 'file', ...source, mediaType: mimeType }

/** The response text of a function response: `output` or `error` alone, else the whole response as JSON. */
const responseContent = (r: Reader, response: Record<string, unknown>, at: string): { readonly content: string; readonly isError: boolean } | undefined => {
  const keys = Object.keys(response)
  if (keys.length === 1 && typeof response['output'] === 'string') return { content: response['output'], isError: false }
  if (keys.length === 1 && typeof response['error'] === 'string') return { content: response['error'], isError: true }
  const content = jsonText(r, response, at)
  return content === undefined ? undefined : { content, isError: false }
}

/** The parts of a content, with function responses apart (each a tool message of its own). */
const contentParts = (r: Reader, parts: ReadonlyArray<unknown>, path: string, calls: Calls): { parts: Part[]; results: Part[] } => {
  const out: Part[] = []
  const results: Part[] = []
  parts.forEach((u, j) => {
    const at = `${path}[${j}]`
    const x = r.read(PartC, u, at)
    if (x === undefined) return
    const signature = typeof x.thoughtSignature === 'string' ? x.thoughtSignature : undefined
    if (x.thought === true && (x.text ?? '') === '' && signature !== undefined) {
      out.push({ type: 'reasoning', text: signature, redacted: true })
      return
    }
    if (x.thought === true) {
      out.push({ type: 'reasoning', text: x.text ?? '', ...(signature === undefined ? {} : { signature }) })
      return
    }
    if (signature !== undefined) out.push({ type: 'reasoning', text: signature, redacted: true })
    if (x.functionCall != null) {
      const args = jsonText(r, x.functionCall.args ?? {}, `${at}.functionCall.args`)
      if (args === undefined) return
      const id = x.functionCall.id ?? `${calls.prefix}${x.functionCall.name}-${calls.count++}`
      calls.open.push({ id, name: x.functionCall.name })
      out.push({ type: 'tool_call', id, name: x.functionCall.name, arguments: args, status: 'complete' })
    } else if (x.functionResponse != null) {
      const { name } = x.functionResponse
      const k = calls.open.findIndex((c) => (x.functionResponse?.id == null ? c.name === name : c.id === x.functionResponse.id))
      const id = x.functionResponse.id ?? calls.open[k]?.id ?? `${calls.prefix}${name}-${calls.count++}`
      if (k >= 0) calls.open.splice(k, 1)
      const response = responseContent(r, x.functionResponse.response ?? {}, `${at}.functionResponse.response`)
      if (response !== undefined) results.push({ type: 'tool_result', toolCallId: id, name, ...response })
    } else if (x.inlineData != null) {
      const data = bytesOf(x.inlineData.data)
      if (data === undefined) return void r.fail(`${at}.inlineData.data`, 'base64 string', x.inlineData.data)
      out.push(media(x.inlineData.mimeType, { data }))
    } else if (x.fileData != null) {
      out.push(media(x.fileData.mimeType, { url: x.fileData.fileUri }))
    } else if (typeof x.text === 'string') {
      if (x.text !== '' || signature === undefined) out.push({ type: 'text', text: x.text })
    }
    // executable code, code results, tool calls of server tools: not part of chatfold's model, left out
  })
  return { parts: out, results }
}

const RequestC = t.intersection([
  t.type({ contents: t.array(t.unknown) }, 'a generateContent request with contents'),
  t.partial({ systemInstruction: optional(t.union([t.string, ContentC])) }),
])

/**
 * Decodes the `systemInstruction` and `contents` of a Gemini request (as `toGemini` writes them, or
 * any request body) into a history: `systemInstruction` becomes a system message; a `user`
 * content's function responses become tool messages (one a response) and the rest a user message;
 * a `model` content becomes an assistant message with `provider: 'google'` (thought parts as
 * reasoning with their signatures; a signature on another part as a redacted reasoning part right
 * before it). Every bad field is reported by path.
 *
 * @example
 * import { fromGemini } from 'chatfold'
 * fromGemini({ systemInstruction: { parts: [{ text: 'Be brief.' }] }, contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromGemini = (u: unknown): E.Either<DecodeFailure, Messages> => {
  const r = reader()
  const request = r.read(RequestC, u, '')
  if (request === undefined) return r.done([])
  const out: Message[] = []
  const calls: Calls = { prefix: '', count: 0, open: [] }
  const system = request.systemInstruction
  if (typeof system === 'string') out.push(fromMessage({ role: 'system', parts: [{ type: 'text', text: system }] }))
  else if (system != null) out.push(fromMessage({ role: 'system', parts: contentParts(r, system.parts ?? [], 'systemInstruction.parts', calls).parts }))
  request.contents.forEach((item, i) => {
    const path = `contents[${i}]`
    const c = r.read(ContentC, item, path)
    if (c === undefined) return
    const role = c.role ?? 'user'
    if (role !== 'user' && role !== 'model' && role !== 'function') return void r.fail(`${path}.role`, '"user" | "model"', role)
    const { parts, results } = contentParts(r, c.parts ?? [], `${path}.parts`, calls)
    if (role === 'model') {
      out.push(fromMessage({ role: 'assistant', parts, provider: 'google' }))
      return
    }
    for (const result of results) out.push(fromMessage({ role: 'tool', parts: [result] }))
    if (parts.length > 0 || results.length === 0) out.push(fromMessage({ role: 'user', parts }))
  })
  return r.done(settleStatuses(out))
}

/** chatfold's stop reason for a Gemini `finishReason`. */
export const geminiFinish = (reason: string, calls: boolean): string => {
  switch (reason) {
    case 'STOP':
      return calls ? 'tool_use' : 'end_turn'
    case 'MAX_TOKENS':
      return 'max_tokens'
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'IMAGE_PROHIBITED_CONTENT':
    case 'IMAGE_RECITATION':
      return 'content_filter'
    default:
      return reason.toLowerCase()
  }
}

const ResponseC = t.partial({
  candidates: optional(t.array(t.partial({ content: optional(ContentC), finishReason: optional(t.string) }))),
  modelVersion: optional(t.string),
  responseId: optional(t.string),
  usageMetadata: optional(t.partial({ candidatesTokenCount: optional(t.number), thoughtsTokenCount: optional(t.number) })),
  promptFeedback: optional(t.partial({ blockReason: optional(t.string), blockReasonMessage: optional(t.string) })),
})

const ErrorBodyC = t.type({ error: t.intersection([t.type({ message: t.string }), t.partial({ status: optional(t.string) })]) })

/** What one response (or stream chunk) holds, for `fromGeminiResponse` and the stream assembler. */
export const decodeGeminiResponse = (
  r: Reader,
  u: unknown,
  calls: { readonly prefix: string; count: number },
): { readonly parts: Part[]; readonly finish?: string; readonly error?: string; readonly id?: string; readonly model?: string; readonly output?: number; readonly thinking?: number } => {
  if (ErrorBodyC.is(u)) return { parts: [], error: errorText(u.error.status, u.error.message) }
  const x = r.read(ResponseC, u, '')
  if (x === undefined) return { parts: [] }
  const candidate = x.candidates?.[0]
  const prefix = calls.prefix === '' ? `${x.responseId ?? newId()}-` : calls.prefix
  const state: Calls = { prefix, count: calls.count, open: [] }
  const { parts } = contentParts(r, candidate?.content?.parts ?? [], 'candidates[0].content.parts', state)
  calls.count = state.count
  const block = x.promptFeedback?.blockReason
  const usage = x.usageMetadata
  const output = (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0)
  return {
    parts,
    ...(typeof candidate?.finishReason === 'string' ? { finish: geminiFinish(candidate.finishReason, parts.some((p) => p.type === 'tool_call')) } : {}),
    ...(candidate === undefined && typeof block === 'string' ? { error: errorText('blocked', x.promptFeedback?.blockReasonMessage ?? block) } : {}),
    ...(x.responseId == null ? {} : { id: x.responseId }),
    ...(x.modelVersion == null ? {} : { model: x.modelVersion }),
    ...(usage == null ? {} : { output }),
    ...(typeof usage?.thoughtsTokenCount === 'number' ? { thinking: usage.thoughtsTokenCount } : {}),
  }
}

/**
 * Decodes a Gemini `GenerateContentResponse` (its first candidate) into one assistant message: its
 * `responseId` as id, `modelVersion` as model, `provider: 'google'`, parts, a finish part (`STOP` →
 * `end_turn`, or `tool_use` when it calls a function; `MAX_TOKENS` → `max_tokens`; safety reasons →
 * `content_filter`; others in lower case) and its output tokens. A blocked prompt, or an error body
 * (`{ error: { message, status } }`), sets the message's `error`. Function calls are `pending`.
 *
 * @example
 * import { fromGeminiResponse } from 'chatfold'
 * fromGeminiResponse({ responseId: 'r1', modelVersion: 'gemini-2.5-pro', candidates: [
 *   { content: { role: 'model', parts: [{ text: 'Hi!' }] }, finishReason: 'STOP' },
 * ] })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromGeminiResponse = (u: unknown): E.Either<DecodeFailure, Message> => {
  const r = reader()
  const x = decodeGeminiResponse(r, u, { prefix: '', count: 0 })
  return r.done(
    replyMessage({ provider: 'google', parts: x.parts, id: x.id, model: x.model, finish: x.finish, output: x.output, thinking: x.thinking, error: x.error }),
  )
}
