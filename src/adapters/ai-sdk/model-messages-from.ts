/**
 * Vercel AI SDK, decoding: `ModelMessage`s into a history (`fromModelMessages`), reasoning
 * signatures read from each provider's `providerOptions`. Everything is untrusted data: every bad
 * field is reported by path.
 *
 * @module
 */
import * as t from 'io-ts'
import type * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../../message/failure.ts'
import type { Part, ToolResultContent } from '../../message/part-model.ts'
import { blocksOfContent } from './_tool-content.ts'
import type { Message, Messages } from '../../message/message.ts'
import { parseJson } from '../tool-turns.ts'
import { bytesOf, fromDataUrl } from '../media.ts'
import { fromMessage, optional, type Reader, reader, settleStatuses, TaggedC } from '../decode.ts'
import type { Vendor } from '../vocabulary.ts'
import { jsonText } from '../json-text.ts'
import { isObject } from '../../internal/object.ts'
import { providerPart } from '../../message/part-make.ts'

// --- from ---

/**
 * Every content part type of an AI SDK `ModelMessage` that `fromModelMessages` gives a home (a
 * type-level test checks it against the installed `ai`'s `ModelMessage`).
 *
 * @since 0.1.0
 * @category adapters
 */
export const AI_MODEL_PART_TYPES = [
  'text',
  'image',
  'file',
  'reasoning',
  'tool-call',
  'tool-result',
  'tool-approval-request',
  'tool-approval-response',
] as const

/**
 * Every tool-result output type `fromModelMessages` reads (a type-level test checks it against the
 * installed `ai`'s `ToolResultPart`).
 *
 * @since 0.1.0
 * @category adapters
 */
export const AI_TOOL_OUTPUT_TYPES = ['text', 'json', 'error-text', 'error-json', 'execution-denied', 'content'] as const

export const PROVIDERS: ReadonlySet<string> = new Set<Vendor>(['openai', 'anthropic', 'google'])

const OptionsC = t.UnknownRecord
const TextC = t.intersection([t.type({ text: t.string }), t.partial({ providerOptions: optional(OptionsC) })])
const ImageC = t.intersection([t.type({ image: t.unknown }), t.partial({ mediaType: optional(t.string), providerOptions: optional(OptionsC) })])
const FileC = t.intersection([
  t.type({ data: t.unknown, mediaType: t.string }),
  t.partial({ filename: optional(t.string), providerOptions: optional(OptionsC) }),
])
const ToolCallC = t.intersection([
  t.type({ toolCallId: t.string, toolName: t.string, input: t.unknown }),
  t.partial({ providerOptions: optional(OptionsC), providerExecuted: optional(t.boolean) }),
])
const OutputC = t.intersection([t.type({ type: t.string }), t.partial({ value: t.unknown, reason: optional(t.string) })])
const ToolResultC = t.intersection([t.type({ toolCallId: t.string, toolName: t.string, output: OutputC }), t.partial({ providerOptions: optional(OptionsC) })])
const MessageC = t.intersection([
  t.type({ role: t.keyof({ system: null, user: null, assistant: null, tool: null }), content: t.union([t.string, t.array(t.unknown)]) }),
  t.partial({ providerOptions: optional(OptionsC) }),
])
const RequestC = t.type({ messages: t.array(t.unknown) }, 'an object with messages')

/** A string field of a provider's options. */
const option = (options: Record<string, unknown> | null | undefined, provider: string, key: string): string | undefined => {
  const forProvider = options?.[provider]
  const value = isObject(forProvider) ? forProvider[key] : undefined
  return typeof value === 'string' ? value : undefined
}

/**
 * AI SDK data content as `ai` 6 writes it: `ai` 7 also tags it (`{ type: 'data', data }`,
 * `{ type: 'url', url }`), and writes a data URL as a `URL` where `ai` 6 wrote its text.
 */
const untagged = (u: unknown): unknown => {
  if (isObject(u) && u['type'] === 'data' && 'data' in u) return u['data']
  if (isObject(u) && u['type'] === 'url' && 'url' in u) return u['url'] instanceof URL && u['url'].protocol === 'data:' ? u['url'].href : u['url']
  return u
}

/** Bytes or a URL from AI SDK data content (bytes, base64, a data URL, a URL; bare or tagged). */
export const source = (r: Reader, tagged: unknown, at: string): { readonly data: Uint8Array } | { readonly url: string } | undefined => {
  const u = untagged(tagged)
  if (u instanceof Uint8Array) return { data: u }
  if (u instanceof ArrayBuffer) return { data: new Uint8Array(u) }
  if (u instanceof URL) return { url: u.href }
  if (typeof u === 'string') {
    const inline = fromDataUrl(u)
    if (inline !== undefined) return { data: inline.data }
    if (/^[a-z][a-z0-9+.-]*:/i.test(u)) return { url: u }
    const data = bytesOf(u)
    return data === undefined ? r.fail(at, 'bytes, base64 or a URL', u) : { data }
  }
  return r.fail(at, 'bytes, base64 or a URL', u)
}

/** The parts decoded so far, and the provider their signatures name. */
export type Decoded = { readonly parts: Part[]; provider: string | undefined }

/** Adds the Gemini signature a part carries as a redacted reasoning part before it. */
export const carrier = (d: Decoded, options: Record<string, unknown> | null | undefined): void => {
  const signature = option(options, 'google', 'thoughtSignature')
  if (signature === undefined) return
  d.parts.push({ type: 'reasoning', text: signature, redacted: true })
  d.provider ??= 'google'
}

/** A provider option a decoder read into a signature: `[provider, key]`. */
export type Read = ReadonlyArray<readonly [string, string]>

/** What a part's Gemini signature is read from. */
export const GOOGLE_READ: Read = [['google', 'thoughtSignature']]

/**
 * The provider options beyond those read into signatures, verbatim; `undefined` when there are
 * none. They go in the part's `providerFields['ai-sdk'].providerOptions` and back out with it.
 */
export const extraOptions = (options: unknown, read: Read): Record<string, unknown> | undefined => {
  if (!isObject(options)) return undefined
  const out: Record<string, unknown> = {}
  for (const [provider, value] of Object.entries(options)) {
    if (!isObject(value)) {
      out[provider] = value
      continue
    }
    const kept: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) if (!read.some(([p, key]) => p === provider && key === k && typeof v === 'string')) kept[k] = v
    if (Object.keys(kept).length > 0 || Object.keys(value).length === 0) out[provider] = kept
  }
  return Object.keys(out).length === 0 ? undefined : out
}

/** A part with the AI SDK-only fields given (those not `undefined`), when there are any. */
export const withAi = (p: Part, fields: Readonly<Record<string, unknown>>): Part => {
  const kept = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))
  if (Object.keys(kept).length === 0) return p
  const own = (p as { readonly providerFields?: Readonly<Record<string, Readonly<Record<string, unknown>>>> }).providerFields
  return { ...p, providerFields: { ...own, 'ai-sdk': { ...own?.['ai-sdk'], ...kept } } } as Part
}

/** Replaces the last part decoded with `f` of it. */
const amendLast = (d: Decoded, f: (p: Part) => Part): void => {
  const last = d.parts.length - 1
  const p = d.parts[last]
  if (p !== undefined) d.parts[last] = f(p)
}

/**
 * A reasoning part with the signature its provider options carry; the options read return. A
 * Gemini signature on empty reasoning is a carrier of its own (`alone`), not one for the next part.
 */
export const reasoningPart = (d: Decoded, text: string, options: Record<string, unknown> | null | undefined): Read => {
  const redacted = option(options, 'anthropic', 'redactedData')
  const anthropic = option(options, 'anthropic', 'signature')
  const google = option(options, 'google', 'thoughtSignature')
  const itemId = option(options, 'openai', 'itemId')
  if (redacted !== undefined) {
    d.parts.push({ type: 'reasoning', text: redacted, redacted: true })
    d.provider ??= 'anthropic'
    return [['anthropic', 'redactedData']]
  } else if (anthropic !== undefined) {
    d.parts.push({ type: 'reasoning', text, signature: anthropic })
    d.provider ??= 'anthropic'
    return [['anthropic', 'signature']]
  } else if (google !== undefined && text === '') {
    carrier(d, options)
    amendLast(d, (p) => withAi(p, { alone: true }))
    return GOOGLE_READ
  } else if (google !== undefined) {
    d.parts.push({ type: 'reasoning', text, signature: google })
    d.provider ??= 'google'
    return GOOGLE_READ
  } else if (itemId !== undefined) {
    const encrypted = option(options, 'openai', 'reasoningEncryptedContent')
    const token = JSON.stringify(encrypted === undefined ? { id: itemId } : { id: itemId, encrypted_content: encrypted })
    d.parts.push(text === '' ? { type: 'reasoning', text: token, redacted: true } : { type: 'reasoning', text, signature: token })
    d.provider ??= 'openai'
    return [['openai', 'itemId'], ['openai', 'reasoningEncryptedContent']]
  }
  d.parts.push({ type: 'reasoning', text })
  return []
}

/** Reasoning with its signature, and the options not read kept on it. */
export const reasoningWithExtras = (d: Decoded, text: string, options: Record<string, unknown> | null | undefined): void => {
  const read = reasoningPart(d, text, options)
  const extras = extraOptions(options, read)
  if (extras !== undefined) amendLast(d, (p) => withAi(p, { providerOptions: extras }))
}

/** How bytes came: base64 text or a data URL (with its media type), so that they go back the same way. */
export const bytesForm = (tagged: unknown): Readonly<Record<string, unknown>> => {
  const u = untagged(tagged)
  if (typeof u !== 'string') return {}
  const inline = fromDataUrl(u)
  if (inline !== undefined) return { dataUrl: inline.mediaType }
  return /^[a-z][a-z0-9+.-]*:/i.test(u) ? {} : { base64: true }
}

const outputContent = (
  r: Reader,
  output: t.TypeOf<typeof OutputC>,
  at: string,
): { readonly content: ToolResultContent; readonly isError: boolean } | undefined => {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return typeof output.value === 'string' ? { content: output.value, isError: output.type === 'error-text' } : r.fail(`${at}.value`, 'string', output.value)
    case 'json':
    case 'error-json': {
      const content = jsonText(r, output.value ?? null, `${at}.value`)
      return content === undefined ? undefined : { content, isError: output.type === 'error-json' }
    }
    case 'execution-denied':
      return { content: output.reason ?? 'Tool execution denied.', isError: true }
    case 'content':
      return Array.isArray(output.value) ? { content: blocksOfContent(output.value), isError: false } : r.fail(`${at}.value`, 'an array', output.value)
    default:
      return r.fail(`${at}.type`, '"text" | "error-text" | "json" | "error-json" | "execution-denied" | "content"', output.type)
  }
}

/**
 * What a tool result keeps beside its text: which JSON output it was (`outputType`), or, for an
 * output its text cannot give back (`content`, `execution-denied`, one with its own options), the
 * output verbatim (`output`).
 */
export const outputFields = (output: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
  const plain = Object.keys(output).every((k) => k === 'type' || k === 'value')
  if (plain && (output['type'] === 'text' || output['type'] === 'error-text')) return {}
  if (plain && (output['type'] === 'json' || output['type'] === 'error-json')) return { outputType: output['type'] }
  // a plain content output is carried by the result's blocks
  if (plain && output['type'] === 'content') return {}
  return { output }
}

/** Whether a tool input is the JSON text of an object (what a call's arguments are), not a string value. */
export const isObjectText = (u: unknown): u is string => {
  if (typeof u !== 'string') return false
  const parsed = parseJson(u)
  return parsed !== undefined && isObject(parsed.value)
}

/**
 * A tool call's arguments from its input: JSON text of an object is that text (never a JSON string
 * of it); any other value is its JSON; no input is `{}`.
 */
export const inputArguments = (r: Reader, input: unknown, at: string): string | undefined =>
  isObjectText(input) ? input : input === undefined ? '{}' : jsonText(r, input, at)

/** A part kept verbatim as an AI SDK provider part, checked to be JSON. */
const kept = (r: Reader, d: Decoded, tag: string, u: unknown, at: string): void => {
  if (jsonText(r, u, at) !== undefined) d.parts.push(providerPart('ai-sdk', tag, u))
}

const contentParts = (r: Reader, content: ReadonlyArray<unknown>, path: string, names: Map<string, string>, role: string): Decoded => {
  const d: Decoded = { parts: [], provider: undefined }
  content.forEach((u, j) => {
    const at = `${path}[${j}]`
    const tag = r.read(TaggedC, u, at)?.type
    if (tag === 'text') {
      const x = r.read(TextC, u, at)
      if (x === undefined) return
      carrier(d, x.providerOptions)
      d.parts.push(withAi({ type: 'text', text: x.text }, { providerOptions: extraOptions(x.providerOptions, GOOGLE_READ) }))
    } else if (tag === 'reasoning') {
      const x = r.read(TextC, u, at)
      if (x !== undefined) reasoningWithExtras(d, x.text, x.providerOptions)
    } else if (tag === 'image') {
      const x = r.read(ImageC, u, at)
      const s = x === undefined ? undefined : source(r, x.image, `${at}.image`)
      if (x === undefined || s === undefined) return
      const image: Part = { type: 'image', ...s, ...(typeof x.mediaType === 'string' ? { mediaType: x.mediaType } : {}) }
      d.parts.push(withAi(image, { ...bytesForm(x.image), providerOptions: extraOptions(x.providerOptions, []) }))
    } else if (tag === 'file') {
      const x = r.read(FileC, u, at)
      const s = x === undefined ? undefined : source(r, x.data, `${at}.data`)
      if (x === undefined || s === undefined) return
      carrier(d, x.providerOptions)
      const asImage = x.mediaType.startsWith('image/') && typeof x.filename !== 'string'
      const part: Part = asImage
        ? { type: 'image', ...s, mediaType: x.mediaType }
        : { type: 'file', ...s, mediaType: x.mediaType, ...(typeof x.filename === 'string' ? { filename: x.filename } : {}) }
      d.parts.push(
        withAi(part, {
          ...bytesForm(x.data),
          ...(asImage && role === 'user' ? { file: true } : {}),
          providerOptions: extraOptions(x.providerOptions, GOOGLE_READ),
        }),
      )
    } else if (tag === 'tool-call') {
      const x = r.read(ToolCallC, u, at)
      if (x === undefined) return
      // a call the provider ran itself, answered in the same message: kept as it came, with its result
      if (x.providerExecuted === true) return kept(r, d, tag, u, at)
      const input = inputArguments(r, x.input, `${at}.input`)
      if (input === undefined) return
      carrier(d, x.providerOptions)
      names.set(x.toolCallId, x.toolName)
      d.parts.push(
        withAi(
          { type: 'tool_call', id: x.toolCallId, name: x.toolName, arguments: input, status: 'complete' },
          {
            ...(isObjectText(x.input) ? { inputText: true } : {}),
            ...(x.providerExecuted === false ? { providerExecuted: false } : {}),
            providerOptions: extraOptions(x.providerOptions, GOOGLE_READ),
          },
        ),
      )
    } else if (tag === 'tool-result' && role === 'assistant') {
      kept(r, d, tag, u, at)
    } else if (tag === 'tool-result') {
      const x = r.read(ToolResultC, u, at)
      const out = x === undefined ? undefined : outputContent(r, x.output, `${at}.output`)
      if (x === undefined || out === undefined || !isObject(x.output)) return
      const part: Part = { type: 'tool_result', toolCallId: x.toolCallId, name: x.toolName, ...out }
      d.parts.push(withAi(part, { ...outputFields(x.output), providerOptions: extraOptions(x.providerOptions, []) }))
    } else if (tag !== undefined) {
      // approval requests and responses, and any part type this version does not know: kept as they came
      kept(r, d, tag, u, at)
    }
  })
  return { ...d, parts: withoutNeedlessMarks(d.parts) }
}

/**
 * A Gemini signature on empty reasoning only needs the `alone` mark when the part after it would
 * otherwise take it: before another signature carrier, a provider part or at the end it goes (so a
 * history written by chatfold comes back as it was).
 */
export const withoutNeedlessMarks = (parts: Part[]): Part[] =>
  parts.map((p, i) => {
    if (p.type !== 'reasoning' || p.redacted !== true) return p
    const own = p.providerFields?.['ai-sdk']
    const next = parts[i + 1]
    if (own?.['alone'] !== true || Object.keys(own).length !== 1) return p
    if (next !== undefined && !(next.type === 'reasoning' && next.redacted === true) && next.type !== 'provider') return p
    const { providerFields: _, ...bare } = p
    return bare
  })

/**
 * Decodes AI SDK `ModelMessage`s (`{ messages }`, as `toModelMessages` writes them, or a
 * `generateText` argument) into a history. Reasoning signatures are read from `providerOptions`
 * (`anthropic`, `google`, `openai`), which also sets the assistant message's `provider`; a tool
 * message becomes one tool message with one result a part (`json` outputs as JSON text,
 * `error-text`, `error-json` and `execution-denied` as errors). Nothing is lost: a tool input
 * given as JSON text is that text (never a JSON string of it); provider options beyond signatures,
 * which output a result had, how bytes were given (base64, data URL) and the message's own
 * `providerOptions` are kept in `providerFields['ai-sdk']` (message: `metadata.providerFields`);
 * tool approval requests and responses, and a call the provider ran with its result, are AI SDK
 * provider parts in their place; so `toModelMessages` gives the messages back as they came (a
 * content of one plain text part as a string). Every bad field is reported by path.
 *
 * @example
 * import { fromModelMessages } from 'chatfold'
 * fromModelMessages({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromModelMessages = (u: unknown): E.Either<DecodeFailure, Messages> => {
  const r = reader()
  const request = r.read(RequestC, u, '')
  if (request === undefined) return r.done([])
  const out: Message[] = []
  const names = new Map<string, string>()
  request.messages.forEach((item, i) => {
    const path = `messages[${i}]`
    const x = r.read(MessageC, item, path)
    if (x === undefined) return
    // options of the whole message, kept as they came
    const metadata = x.providerOptions == null ? {} : { metadata: { providerFields: { 'ai-sdk': { providerOptions: x.providerOptions } } } }
    if (typeof x.content === 'string') {
      out.push(fromMessage({ role: x.role, parts: [{ type: 'text', text: x.content }], ...metadata }))
      return
    }
    const d = contentParts(r, x.content, `${path}.content`, names, x.role)
    const provider = d.provider !== undefined && PROVIDERS.has(d.provider) && x.role === 'assistant' ? { provider: d.provider } : {}
    out.push(fromMessage({ role: x.role, parts: d.parts, ...provider, ...metadata }))
  })
  return r.done(settleStatuses(out))
}
