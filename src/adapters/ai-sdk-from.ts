/**
 * Vercel AI SDK, decoding: `ModelMessage`s into a history (`fromModelMessages`), reasoning
 * signatures read from each provider's `providerOptions`. Everything is untrusted data: every bad
 * field is reported by path.
 *
 * @module
 */
import * as t from 'io-ts'
import type * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../failure.ts'
import type { Part } from '../part.ts'
import type { Message, Messages } from '../message.ts'
import {
  fromDataUrl,
  fromMessage,
  optional,
  reader,
  type Reader,
  settleStatuses,
  TaggedC,
  bytesOf,
} from './shared.ts'
import type { ProviderId } from './types.ts'
import { jsonText } from './json-text.ts'
import { isObject } from '../internal/object.ts'

// --- from ---

export const PROVIDERS: ReadonlySet<string> = new Set<ProviderId>(['openai', 'anthropic', 'google'])

const OptionsC = t.UnknownRecord
const TextC = t.intersection([t.type({ text: t.string }), t.partial({ providerOptions: optional(OptionsC) })])
const ImageC = t.intersection([t.type({ image: t.unknown }), t.partial({ mediaType: optional(t.string) })])
const FileC = t.intersection([t.type({ data: t.unknown, mediaType: t.string }), t.partial({ filename: optional(t.string), providerOptions: optional(OptionsC) })])
const ToolCallC = t.intersection([t.type({ toolCallId: t.string, toolName: t.string, input: t.unknown }), t.partial({ providerOptions: optional(OptionsC) })])
const OutputC = t.intersection([t.type({ type: t.string }), t.partial({ value: t.unknown, reason: optional(t.string) })])
const ToolResultC = t.type({ toolCallId: t.string, toolName: t.string, output: OutputC })
const MessageC = t.type({ role: t.keyof({ system: null, user: null, assistant: null, tool: null }), content: t.union([t.string, t.array(t.unknown)]) })
const RequestC = t.type({ messages: t.array(t.unknown) }, 'an object with messages')

/** A string field of a provider's options. */
const option = (options: Record<string, unknown> | null | undefined, provider: string, key: string): string | undefined => {
  const forProvider = options?.[provider]
  const value = isObject(forProvider) ? forProvider[key] : undefined
  return typeof value === 'string' ? value : undefined
}

/** Bytes or a URL from AI SDK data content (bytes, base64, a data URL, a URL). */
export const source = (r: Reader, u: unknown, at: string): { readonly data: Uint8Array } | { readonly url: string } | undefined => {
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

/** A reasoning part with the signature its provider options carry. */
export const reasoningPart = (d: Decoded, text: string, options: Record<string, unknown> | null | undefined): void => {
  const redacted = option(options, 'anthropic', 'redactedData')
  const anthropic = option(options, 'anthropic', 'signature')
  const google = option(options, 'google', 'thoughtSignature')
  const itemId = option(options, 'openai', 'itemId')
  if (redacted !== undefined) {
    d.parts.push({ type: 'reasoning', text: redacted, redacted: true })
    d.provider ??= 'anthropic'
  } else if (anthropic !== undefined) {
    d.parts.push({ type: 'reasoning', text, signature: anthropic })
    d.provider ??= 'anthropic'
  } else if (google !== undefined && text === '') {
    carrier(d, options)
  } else if (google !== undefined) {
    d.parts.push({ type: 'reasoning', text, signature: google })
    d.provider ??= 'google'
  } else if (itemId !== undefined) {
    const encrypted = option(options, 'openai', 'reasoningEncryptedContent')
    const token = JSON.stringify(encrypted === undefined ? { id: itemId } : { id: itemId, encrypted_content: encrypted })
    d.parts.push(text === '' ? { type: 'reasoning', text: token, redacted: true } : { type: 'reasoning', text, signature: token })
    d.provider ??= 'openai'
  } else d.parts.push({ type: 'reasoning', text })
}

const outputContent = (r: Reader, output: t.TypeOf<typeof OutputC>, at: string): { readonly content: string; readonly isError: boolean } | undefined => {
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
      return {
        content: Array.isArray(output.value)
          ? output.value.map((c: unknown) => (isObject(c) && c['type'] === 'text' && typeof c['text'] === 'string' ? c['text'] : '')).join('')
          : '',
        isError: false,
      }
    default:
      return r.fail(`${at}.type`, '"text" | "error-text" | "json" | "error-json" | "execution-denied" | "content"', output.type)
  }
}

const contentParts = (r: Reader, content: ReadonlyArray<unknown>, path: string, names: Map<string, string>): Decoded => {
  const d: Decoded = { parts: [], provider: undefined }
  content.forEach((u, j) => {
    const at = `${path}[${j}]`
    const tag = r.read(TaggedC, u, at)?.type
    if (tag === 'text') {
      const x = r.read(TextC, u, at)
      if (x === undefined) return
      carrier(d, x.providerOptions)
      d.parts.push({ type: 'text', text: x.text })
    } else if (tag === 'reasoning') {
      const x = r.read(TextC, u, at)
      if (x !== undefined) reasoningPart(d, x.text, x.providerOptions)
    } else if (tag === 'image') {
      const x = r.read(ImageC, u, at)
      const s = x === undefined ? undefined : source(r, x.image, `${at}.image`)
      if (x !== undefined && s !== undefined) d.parts.push({ type: 'image', ...s, ...(typeof x.mediaType === 'string' ? { mediaType: x.mediaType } : {}) })
    } else if (tag === 'file') {
      const x = r.read(FileC, u, at)
      const s = x === undefined ? undefined : source(r, x.data, `${at}.data`)
      if (x === undefined || s === undefined) return
      carrier(d, x.providerOptions)
      d.parts.push(
        x.mediaType.startsWith('image/') && typeof x.filename !== 'string'
          ? { type: 'image', ...s, mediaType: x.mediaType }
          : { type: 'file', ...s, mediaType: x.mediaType, ...(typeof x.filename === 'string' ? { filename: x.filename } : {}) },
      )
    } else if (tag === 'tool-call') {
      const x = r.read(ToolCallC, u, at)
      const input = x === undefined ? undefined : x.input === undefined ? '{}' : jsonText(r, x.input, `${at}.input`)
      if (x === undefined || input === undefined) return
      carrier(d, x.providerOptions)
      names.set(x.toolCallId, x.toolName)
      d.parts.push({ type: 'tool_call', id: x.toolCallId, name: x.toolName, arguments: input, status: 'complete' })
    } else if (tag === 'tool-result') {
      const x = r.read(ToolResultC, u, at)
      const out = x === undefined ? undefined : outputContent(r, x.output, `${at}.output`)
      if (x !== undefined && out !== undefined) d.parts.push({ type: 'tool_result', toolCallId: x.toolCallId, name: x.toolName, ...out })
    } else if (tag !== undefined && tag !== 'tool-approval-request' && tag !== 'tool-approval-response') {
      r.fail(`${at}.type`, '"text" | "reasoning" | "image" | "file" | "tool-call" | "tool-result"', tag)
    }
  })
  return d
}

/**
 * Decodes AI SDK `ModelMessage`s (`{ messages }`, as `toModelMessages` writes them, or a
 * `generateText` argument) into a history. Reasoning signatures are read from `providerOptions`
 * (`anthropic`, `google`, `openai`), which also sets the assistant message's `provider`; a tool
 * message becomes one tool message with one result a part (`json` outputs as JSON text,
 * `error-text`, `error-json` and `execution-denied` as errors). Tool approval parts are left out.
 * Every bad field is reported by path.
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
    if (typeof x.content === 'string') {
      out.push(fromMessage({ role: x.role, parts: [{ type: 'text', text: x.content }] }))
      return
    }
    const d = contentParts(r, x.content, `${path}.content`, names)
    const provider = d.provider !== undefined && PROVIDERS.has(d.provider) && x.role === 'assistant' ? { provider: d.provider } : {}
    out.push(fromMessage({ role: x.role, parts: d.parts, ...provider }))
  })
  return r.done(settleStatuses(out))
}
