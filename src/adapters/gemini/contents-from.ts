/**
 * Google Gemini, decoding: the `systemInstruction` and `contents` of a request into a history
 * (`fromGemini`), and a `GenerateContentResponse` (or one stream chunk) into an assistant message
 * (`fromGeminiResponse`). Everything is untrusted JSON: every bad field is reported by path.
 *
 * @module
 */
import * as t from 'io-ts'
import type * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../../message/failure.ts'
import type { Part, ToolResultBlock } from '../../message/part-model.ts'
import type { Message, Messages } from '../../message/message.ts'
import { newId } from '../../internal/id.ts'
import { base64Of, bytesOf } from '../media.ts'
import { errorText, fromMessage, optional, type Reader, reader, replyMessage, settleStatuses } from '../decode.ts'
import { jsonText } from '../json-text.ts'
import { providerPart } from '../../message/part-make.ts'
import { isObject } from '../../internal/object.ts'

// --- from ---

/**
 * Every key of a Gemini `Part` that `fromGemini` reads: the data keys (one a part) and the fields
 * beside them. A type-level test checks it against the installed `@google/genai` `Part`.
 *
 * @since 0.1.0
 * @category adapters
 */
export const GEMINI_PART_KEYS = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
  'toolCall',
  'toolResponse',
  'thought',
  'thoughtSignature',
  'videoMetadata',
  'partMetadata',
  'mediaResolution',
] as const

/** The keys that hold a part's data: a part has exactly one. */
const DATA_KEYS: ReadonlyArray<string> = GEMINI_PART_KEYS.slice(0, 9)

/** Data kept verbatim as a provider part: no chatfold part fits. */
const KEPT: ReadonlySet<string> = new Set(['executableCode', 'codeExecutionResult', 'toolCall', 'toolResponse'])

const BlobC = t.type({ mimeType: t.string, data: t.string })
const FileDataC = t.intersection([t.type({ fileUri: t.string }), t.partial({ mimeType: optional(t.string) })])
const CallC = t.intersection([t.type({ name: t.string }), t.partial({ id: optional(t.string), args: optional(t.UnknownRecord) })])
const ResponseBodyC = t.intersection([t.type({ name: t.string }), t.partial({ id: optional(t.string), response: optional(t.UnknownRecord) })])

/** The fields each data object's chatfold part carries; any other field goes to `providerFields.google`. */
const OWN: Readonly<Record<string, ReadonlyArray<string>>> = {
  inlineData: ['mimeType', 'data'],
  fileData: ['fileUri', 'mimeType'],
  functionCall: ['id', 'name', 'args'],
  functionResponse: ['id', 'name', 'response'],
}

const ContentC = t.partial({ role: optional(t.string), parts: optional(t.array(t.unknown)) })

/** Ids for calls that come without one, and the pairing of responses that come without one. */
type Calls = { readonly prefix: string; count: number; readonly open: Array<{ readonly id: string; readonly name: string }> }

const media = (mimeType: string | null | undefined, source: { data: Uint8Array } | { url: string }): Part =>
  mimeType != null && mimeType.startsWith('image/')
    ? { type: 'image', ...source, mediaType: mimeType }
    : mimeType == null
    ? 'url' in source ? { type: 'image', url: source.url } : { type: 'file', data: source.data, mediaType: 'application/octet-stream' }
    : { type: 'file', ...source, mediaType: mimeType }

/**
 * The response text of a function response: `output` or `error` alone, else the whole response as
 * JSON (marked `responseJson`, so that it goes back as the object it was).
 */
const responseContent = (
  r: Reader,
  response: Record<string, unknown>,
  at: string,
): { readonly content: string; readonly isError: boolean; readonly json: boolean } | undefined => {
  const keys = Object.keys(response)
  if (keys.length === 1 && typeof response['output'] === 'string') return { content: response['output'], isError: false, json: false }
  if (keys.length === 1 && typeof response['error'] === 'string') return { content: response['error'], isError: true, json: false }
  const content = jsonText(r, response, at)
  return content === undefined ? undefined : { content, isError: false, json: true }
}

/** Whether `o` has exactly the string fields `keys`. */
const onlyStrings = (o: unknown, keys: ReadonlyArray<string>): o is Readonly<Record<string, string>> =>
  isObject(o) && Object.keys(o).length === keys.length && keys.every((k) => typeof o[k] === 'string')

/**
 * The media of a function response (`functionResponse.parts`, inline bytes or a file URI each) as
 * a result's blocks; a part of any other shape is kept verbatim as a provider part.
 */
const responseParts = (parts: ReadonlyArray<unknown>): ToolResultBlock[] =>
  parts.map((u): ToolResultBlock => {
    const inline = isObject(u) && Object.keys(u).length === 1 && onlyStrings(u['inlineData'], ['mimeType', 'data']) ? u['inlineData'] : undefined
    const bytes = inline?.['data'] === undefined ? undefined : bytesOf(inline['data'])
    if (inline !== undefined && bytes !== undefined && base64Of(bytes) === inline['data']) {
      const p = media(inline['mimeType'], { data: bytes })
      if (p.type === 'image' || p.type === 'file') return p
    }
    const file = isObject(u) && Object.keys(u).length === 1 && onlyStrings(u['fileData'], ['fileUri', 'mimeType']) ? u['fileData'] : undefined
    if (file !== undefined && file['fileUri'] !== undefined) {
      const p = media(file['mimeType'], { url: file['fileUri'] })
      if (p.type === 'image' || p.type === 'file') return p
    }
    return { type: 'provider', provider: 'google', kind: 'functionResponsePart', data: u }
  })

/** A response's kept fields without its `parts` (read into the result's blocks). */
const withoutResponseParts = (fields: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
  const inner = fields['functionResponse']
  if (!isObject(inner) || !('parts' in inner)) return fields
  const { parts: _, ...restOf } = inner
  const { functionResponse: __, ...others } = fields
  return Object.keys(restOf).length === 0 ? others : { ...others, functionResponse: restOf }
}

/** The fields of `o` not in `own`, or `undefined` when there are none. */
const rest = (o: Readonly<Record<string, unknown>>, own: ReadonlyArray<string>): Record<string, unknown> | undefined => {
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(o)) if (!own.includes(k)) out[k] = o[k]
  return Object.keys(out).length === 0 ? undefined : out
}

/** A part with its Gemini-only fields, when there are any. */
const withFields = (p: Part, fields: Readonly<Record<string, unknown>>): Part =>
  Object.keys(fields).length === 0 ? p : ({ ...p, providerFields: { google: fields } } as Part)

/** Where a content's parts go: a model turn reads thoughts and signatures; user and system turns keep them as fields. */
type Role = 'model' | 'user'

/**
 * The parts of a content, with function responses apart (each a tool message of its own). Every
 * Gemini part has a home: text, media, calls and responses become chatfold parts (their
 * Gemini-only fields in `providerFields.google`), code execution and server tool calls provider
 * parts, kept verbatim in their place.
 */
const contentParts = (r: Reader, parts: ReadonlyArray<unknown>, path: string, calls: Calls, role: Role = 'model'): { parts: Part[]; results: Part[] } => {
  const out: Part[] = []
  const results: Part[] = []
  parts.forEach((u, j) => {
    const at = `${path}[${j}]`
    if (!isObject(u)) return void r.fail(at, 'a Gemini part (an object)', u)
    const present = DATA_KEYS.filter((k) => u[k] != null)
    const key = present[0]
    if (present.length !== 1 || key === undefined || KEPT.has(key) || (role === 'model' && key === 'functionResponse')) {
      if (jsonText(r, u, at) !== undefined) out.push(providerPart('google', present.length === 1 && key !== undefined ? key : 'part', u))
      return
    }
    const signature = role === 'model' && typeof u['thoughtSignature'] === 'string' ? u['thoughtSignature'] : undefined
    const thought = role === 'model' && key === 'text' && u['thought'] === true
    const consumed = [key, ...(signature === undefined ? [] : ['thoughtSignature']), ...(thought ? ['thought'] : [])]
    const top = rest(u, consumed) ?? {}
    const data = u[key]
    const inner = key in OWN && isObject(data) ? rest(data, OWN[key] ?? []) : undefined
    const fields = inner === undefined ? top : { ...top, [key]: inner }
    if (key === 'text') {
      if (typeof data !== 'string') return void r.fail(`${at}.text`, 'string', data)
      if (data === '' && signature !== undefined) {
        out.push({
          type: 'reasoning',
          text: signature,
          redacted: true,
          providerFields: { google: { alone: true, ...(thought ? { thought: true } : {}), ...fields } },
        })
      } else if (thought) out.push(withFields({ type: 'reasoning', text: data, ...(signature === undefined ? {} : { signature }) }, fields))
      else {
        if (signature !== undefined) out.push({ type: 'reasoning', text: signature, redacted: true })
        out.push(withFields({ type: 'text', text: data }, fields))
      }
      return
    }
    const carry = (): void => void (signature === undefined ? undefined : out.push({ type: 'reasoning', text: signature, redacted: true }))
    if (key === 'functionCall') {
      const x = r.read(CallC, data, `${at}.functionCall`)
      const args = x === undefined ? undefined : jsonText(r, x.args ?? {}, `${at}.functionCall.args`)
      if (x === undefined || args === undefined) return
      const id = x.id ?? `${calls.prefix}${x.name}-${calls.count++}`
      calls.open.push({ id, name: x.name })
      carry()
      out.push(withFields({ type: 'tool_call', id, name: x.name, arguments: args, status: 'complete' }, fields))
    } else if (key === 'functionResponse') {
      const x = r.read(ResponseBodyC, data, `${at}.functionResponse`)
      if (x === undefined) return
      const { name } = x
      const k = calls.open.findIndex((c) => (x.id == null ? c.name === name : c.id === x.id))
      const id = x.id ?? calls.open[k]?.id ?? `${calls.prefix}${name}-${calls.count++}`
      if (k >= 0) calls.open.splice(k, 1)
      const response = responseContent(r, x.response ?? {}, `${at}.functionResponse.response`)
      if (response === undefined) return
      const media = isObject(data) && Array.isArray(data['parts']) ? responseParts(data['parts']) : undefined
      const content = media === undefined
        ? response.content
        : [...(response.content === '' ? [] : [{ type: 'text' as const, text: response.content }]), ...media]
      const kept = media === undefined ? fields : withoutResponseParts(fields)
      const marked = response.json ? { ...kept, responseJson: true } : kept
      results.push(withFields({ type: 'tool_result', toolCallId: id, name, content, isError: response.isError }, marked))
    } else if (key === 'inlineData') {
      const x = r.read(BlobC, data, `${at}.inlineData`)
      if (x === undefined) return
      const bytes = bytesOf(x.data)
      if (bytes === undefined) return void r.fail(`${at}.inlineData.data`, 'base64 string', x.data)
      carry()
      out.push(withFields(media(x.mimeType, { data: bytes }), fields))
    } else if (key === 'fileData') {
      const x = r.read(FileDataC, data, `${at}.fileData`)
      if (x === undefined) return
      carry()
      out.push(withFields(media(x.mimeType, { url: x.fileUri }), fields))
    }
  })
  return { parts: withoutNeedlessMarks(out), results }
}

/**
 * Carriers that stand alone only need the `alone` mark when the part after them would otherwise
 * take their signature (text, media, a call): before a reasoning part, a provider part or at the end
 * of a turn the mark goes (a history written by chatfold comes back as it was).
 */
const withoutNeedlessMarks = (parts: Part[]): Part[] =>
  parts.map((p, i) => {
    if (p.type !== 'reasoning' || p.redacted !== true) return p
    const google = p.providerFields?.['google']
    const next = parts[i + 1]
    if (google?.['alone'] !== true || Object.keys(google).length !== 1) return p
    if (next !== undefined && next.type !== 'reasoning' && next.type !== 'provider') return p
    const { providerFields: _, ...bare } = p
    return bare
  })

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
 * before it). Every member of Gemini's `Part` has a home (`GEMINI_PART_KEYS`): `executableCode`,
 * `codeExecutionResult`, `toolCall`, `toolResponse` (and any part of no known shape) are provider
 * parts (`'google'`, the part's key, the part verbatim) in their place; fields only Gemini knows
 * (`videoMetadata`, `mediaResolution`, `partMetadata`, `fileData.displayName`,
 * `functionCall.partialArgs`, `functionResponse.parts`, `willContinue`, `scheduling`, …) go in the
 * part's `providerFields.google`, so that `toGemini` gives the contents back as they came (up to
 * made-up call ids, one content per turn, function responses first). Every bad field is reported
 * by path.
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
  else if (system != null) out.push(fromMessage({ role: 'system', parts: contentParts(r, system.parts ?? [], 'systemInstruction.parts', calls, 'user').parts }))
  request.contents.forEach((item, i) => {
    const path = `contents[${i}]`
    const c = r.read(ContentC, item, path)
    if (c === undefined) return
    const role = c.role ?? 'user'
    if (role !== 'user' && role !== 'model' && role !== 'function') return void r.fail(`${path}.role`, '"user" | "model"', role)
    const { parts, results } = contentParts(r, c.parts ?? [], `${path}.parts`, calls, role === 'model' ? 'model' : 'user')
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
  candidates: optional(
    t.array(
      t.partial({
        content: optional(ContentC),
        finishReason: optional(t.string),
        groundingMetadata: optional(t.UnknownRecord),
        urlContextMetadata: optional(t.UnknownRecord),
        citationMetadata: optional(t.UnknownRecord),
      }),
    ),
  ),
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
): {
  readonly parts: Part[]
  readonly finish?: string
  readonly error?: string
  readonly id?: string
  readonly model?: string
  readonly output?: number
  readonly thinking?: number
} => {
  if (ErrorBodyC.is(u)) return { parts: [], error: errorText(u.error.status, u.error.message) }
  const x = r.read(ResponseC, u, '')
  if (x === undefined) return { parts: [] }
  const candidate = x.candidates?.[0]
  const prefix = calls.prefix === '' ? `${x.responseId ?? newId()}-` : calls.prefix
  const state: Calls = { prefix, count: calls.count, open: [] }
  const { parts } = contentParts(r, candidate?.content?.parts ?? [], 'candidates[0].content.parts', state)
  calls.count = state.count
  // what the candidate says about its sources, kept as it came (no part of a request; other providers get it as text with sources)
  for (const kind of ['groundingMetadata', 'urlContextMetadata', 'citationMetadata'] as const) {
    const meta = candidate?.[kind]
    if (meta != null && jsonText(r, meta, `candidates[0].${kind}`) !== undefined) parts.push(providerPart('google', kind, meta))
  }
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
 * Decodes a Gemini `GenerateContentResponse` (its first candidate) into one assistant message
 * (parts as `fromGemini` reads them; the candidate's `groundingMetadata`, `urlContextMetadata` and
 * `citationMetadata` as Google provider parts after them, which other providers get as text with
 * sources and `toGemini` leaves out with a note, as no part of a request): its
 * `responseId` as id, `modelVersion` as model, `provider: 'google'`, parts, a finish part (`STOP` →
 * `end_turn`, or `tool_use` when it calls a function; `MAX_TOKENS` → `max_tokens`; safety reasons →
 * `content_filter`; others in lower case) and its output tokens. A blocked prompt, or an error body
 * (`{ error: { message, status } }`), sets the message's `error`. Function calls are `pending`.
 *
 * @example
 * import { fromGeminiResponse } from 'chatfold/adapters'
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
