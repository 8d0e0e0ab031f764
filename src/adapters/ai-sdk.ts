/**
 * Vercel AI SDK: a history to and from `ModelMessage`s (AI SDK 5 and 6), the form many TypeScript
 * applications already keep their history in.
 *
 * The AI SDK carries every provider's reasoning at once, each under its provider's key in
 * `providerOptions`, so nothing is foreign here: a reasoning part goes out with its signature under
 * the key of the message's `provider` (`anthropic.signature` or `anthropic.redactedData`,
 * `google.thoughtSignature`, `openai.itemId` and `openai.reasoningEncryptedContent`), and the AI SDK
 * provider it reaches decides what to send. A Gemini signature kept as a redacted reasoning part goes
 * on the next text, file or tool-call part, where the AI SDK's Google provider looks for it.
 *
 * Tool calls carry their arguments parsed (`input`); tool results are `text` or `error-text` outputs.
 *
 * @module
 */
import * as t from 'io-ts'
import type * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../failure.ts'
import type { Part, ReasoningPart } from '../part.ts'
import type { Message, Messages } from '../message.ts'
import {
  callNames,
  type Context,
  convertWith,
  fromDataUrl,
  fromMessage,
  idFor,
  imageType,
  isJsonObject,
  nonEmptyIds,
  omitPart,
  optional,
  parseJson,
  reader,
  type Reader,
  settleStatuses,
  TaggedC,
  bytesOf,
} from './shared.ts'
import type { AdapterOptions, AdapterResult, ProviderId } from './types.ts'

// --- wire ---

/**
 * Provider-specific data of a part, by provider key.
 *
 * @example
 * import type { AIProviderOptions } from 'chatfold'
 * const options: AIProviderOptions = { anthropic: { signature: 'EqQB' } }
 *
 * @since 0.1.0
 * @category adapters
 */
export type AIProviderOptions = { readonly [provider: string]: { readonly [key: string]: string } }

/**
 * A content part of an AI SDK `ModelMessage`, as `toModelMessages` writes it.
 *
 * @example
 * import type { AIContentPart } from 'chatfold'
 * const part: AIContentPart = { type: 'tool-call', toolCallId: 'c1', toolName: 'ls', input: { path: '.' } }
 *
 * @since 0.1.0
 * @category adapters
 */
export type AIContentPart =
  | { readonly type: 'text'; readonly text: string; readonly providerOptions?: AIProviderOptions }
  | { readonly type: 'image'; readonly image: Uint8Array | string; readonly mediaType?: string }
  | { readonly type: 'file'; readonly data: Uint8Array | string; readonly mediaType: string; readonly filename?: string; readonly providerOptions?: AIProviderOptions }
  | { readonly type: 'reasoning'; readonly text: string; readonly providerOptions?: AIProviderOptions }
  | { readonly type: 'tool-call'; readonly toolCallId: string; readonly toolName: string; readonly input: unknown; readonly providerOptions?: AIProviderOptions }

/**
 * A tool result part of an AI SDK tool message.
 *
 * @example
 * import type { AIToolResultPart } from 'chatfold'
 * const part: AIToolResultPart = { type: 'tool-result', toolCallId: 'c1', toolName: 'ls', output: { type: 'text', value: 'README.md' } }
 *
 * @since 0.1.0
 * @category adapters
 */
export type AIToolResultPart = {
  readonly type: 'tool-result'
  readonly toolCallId: string
  readonly toolName: string
  readonly output: { readonly type: 'text' | 'error-text'; readonly value: string }
}

/**
 * An AI SDK `ModelMessage`, as `toModelMessages` writes it. Arrays are plain `Array`s so that the
 * messages pass straight to `generateText` and `streamText`.
 *
 * @example
 * import type { AIModelMessage } from 'chatfold'
 * const m: AIModelMessage = { role: 'user', content: 'Hi' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type AIModelMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string | Array<Extract<AIContentPart, { readonly type: 'text' | 'image' | 'file' }>> }
  | { readonly role: 'assistant'; readonly content: string | Array<Exclude<AIContentPart, { readonly type: 'image' }>> }
  | { readonly role: 'tool'; readonly content: Array<AIToolResultPart> }

/**
 * The fields `toModelMessages` produces: spread them into `generateText` or `streamText`.
 *
 * @example
 * import type { AIModelMessages } from 'chatfold'
 * const request: AIModelMessages = { messages: [{ role: 'system', content: 'Be brief.' }] }
 *
 * @since 0.1.0
 * @category adapters
 */
export type AIModelMessages = { readonly messages: Array<AIModelMessage> }

// --- to ---

type AssistantPart = Exclude<AIContentPart, { readonly type: 'image' }>

const PROVIDERS: ReadonlySet<string> = new Set<ProviderId>(['openai', 'anthropic', 'google'])

/** The `providerOptions` of a signed reasoning part, under its provider's key. */
const reasoningOptions = (provider: string | undefined, p: ReasoningPart): AIProviderOptions | undefined => {
  if (p.signature === undefined) return undefined
  if (provider === 'anthropic') return { anthropic: { signature: p.signature } }
  if (provider === 'google') return { google: { thoughtSignature: p.signature } }
  if (provider === 'openai') {
    const parsed = parseJson(p.signature)
    const ref = parsed !== undefined && isJsonObject(parsed.value) ? parsed.value : {}
    const itemId = ref['id']
    const encrypted = ref['encrypted_content']
    if (typeof itemId !== 'string') return undefined
    return { openai: { itemId, ...(typeof encrypted === 'string' ? { reasoningEncryptedContent: encrypted } : {}) } }
  }
  return undefined
}

/** The `providerOptions` of OpenAI encrypted reasoning (a redacted part whose text is the item token). */
const openaiRedacted = (m: Message, p: ReasoningPart): AIProviderOptions | undefined =>
  m.provider === 'openai' ? reasoningOptions('openai', { type: 'reasoning', text: '', signature: p.text }) : undefined

const mediaPart = (context: Context, m: Message, p: Part, assistant: boolean): AIContentPart | undefined => {
  if (p.type === 'image') {
    const source = p.data ?? p.url
    if (source === undefined) return undefined
    if (!assistant) return { type: 'image', image: source, ...(p.mediaType === undefined ? {} : { mediaType: p.mediaType }) }
    const mediaType = imageType(p)
    return mediaType === undefined ? omitPart(context, m, p, 'an image of unknown type') : { type: 'file', data: source, mediaType }
  }
  if (p.type === 'file') {
    const source = p.data ?? p.url
    if (source === undefined) return undefined
    return { type: 'file', data: source, mediaType: p.mediaType, ...(p.filename === undefined ? {} : { filename: p.filename }) }
  }
  return undefined
}

const assistantContent = (context: Context, m: Message): AssistantPart[] => {
  const out: AssistantPart[] = []
  let pending: string | undefined
  const push = (part: AssistantPart): void => {
    if (pending !== undefined && part.type !== 'reasoning') {
      out.push({ ...part, providerOptions: { google: { thoughtSignature: pending } } })
      pending = undefined
    } else out.push(part)
  }
  const flush = (): void => {
    if (pending !== undefined) out.push({ type: 'reasoning', text: '', providerOptions: { google: { thoughtSignature: pending } } })
    pending = undefined
  }
  for (const p of m.parts) {
    if (p.type === 'reasoning') {
      if (p.redacted === true && m.provider === 'google') {
        flush()
        pending = p.text
      } else if (p.redacted === true && m.provider === 'anthropic') {
        push({ type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: p.text } } })
      } else if (p.redacted === true && openaiRedacted(m, p) !== undefined) {
        push({ type: 'reasoning', text: '', providerOptions: openaiRedacted(m, p) as AIProviderOptions })
      } else if (p.redacted === true) {
        context.notes.push({ kind: 'reasoning_dropped', messageId: m.id, reason: 'opaque' })
      } else {
        const options = reasoningOptions(m.provider, p)
        if (options === undefined && p.signature !== undefined) context.notes.push({ kind: 'reasoning_dropped', messageId: m.id, reason: 'foreign' })
        if (options !== undefined || p.signature === undefined) push({ type: 'reasoning', text: p.text, ...(options === undefined ? {} : { providerOptions: options }) })
      }
    } else if (p.type === 'text') push({ type: 'text', text: p.text })
    else if (p.type === 'tool_call') {
      const parsed = parseJson(p.arguments)
      let input: unknown = parsed?.value
      if (parsed === undefined) {
        if (context.repair === 'repair') {
          context.notes.push({ kind: 'arguments_replaced', messageId: m.id, toolCallId: p.id })
          input = {}
        } else context.error ??= { kind: 'invalid_arguments', messageId: m.id, toolCallId: p.id, arguments: p.arguments }
      }
      push({ type: 'tool-call', toolCallId: idFor(context, p.id), toolName: p.name, input })
    } else if (p.type === 'image' || p.type === 'file') {
      const part = mediaPart(context, m, p, true)
      if (part !== undefined && part.type !== 'image') push(part)
    } else if (p.type !== 'finish') omitPart(context, m, p, 'not assistant content in the AI SDK')
  }
  flush()
  return out
}

const convert = (context: Context, ms: Messages): AIModelMessages => {
  const names = callNames(ms)
  const messages: AIModelMessage[] = []
  for (const m of ms) {
    if (m.role === 'system') {
      const texts: string[] = []
      for (const p of m.parts) {
        if (p.type === 'text') texts.push(p.text)
        else omitPart(context, m, p, 'not system content')
      }
      messages.push({ role: 'system', content: texts.join('\n\n') })
    } else if (m.role === 'tool') {
      const content: AIToolResultPart[] = []
      for (const p of m.parts) {
        if (p.type !== 'tool_result') {
          omitPart(context, m, p, 'not tool content in the AI SDK')
          continue
        }
        const toolName = p.name ?? names.get(p.toolCallId) ?? ''
        content.push({ type: 'tool-result', toolCallId: idFor(context, p.toolCallId), toolName, output: { type: p.isError ? 'error-text' : 'text', value: p.content } })
      }
      messages.push({ role: 'tool', content })
    } else if (m.role === 'assistant') {
      const content = assistantContent(context, m)
      if (content.length === 0) {
        context.notes.push({ kind: 'omitted_message', messageId: m.id, reason: 'empty' })
        continue
      }
      const only = content[0]
      messages.push({ role: 'assistant', content: content.length === 1 && only?.type === 'text' && only.providerOptions === undefined ? only.text : content })
    } else {
      const content: Array<Extract<AIContentPart, { readonly type: 'text' | 'image' | 'file' }>> = []
      for (const p of m.parts) {
        if (p.type === 'text') content.push({ type: 'text', text: p.text })
        else if (p.type === 'image' || p.type === 'file') {
          const part = mediaPart(context, m, p, false)
          if (part !== undefined && part.type !== 'reasoning' && part.type !== 'tool-call') content.push(part)
        } else if (p.type !== 'finish') omitPart(context, m, p, 'not user content in the AI SDK')
      }
      const only = content[0]
      messages.push({ role: 'user', content: content.length === 1 && only?.type === 'text' ? only.text : content })
    }
  }
  return { messages }
}

/**
 * Converts a history to AI SDK `ModelMessage`s. The history goes through `forLLM` and the
 * tool-pair check first; the result says what could not be carried. `foreignReasoning` and `model`
 * play no part: the AI SDK's provider picks the reasoning it can verify by its key.
 *
 * @example
 * import * as E from 'fp-ts/Either'
 * import { textMessage, toModelMessages } from 'chatfold'
 * const r = toModelMessages()([textMessage('system', 'Be brief.'), textMessage('user', 'Hi')])
 * if (E.isRight(r)) {
 *   r.right.request // { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] }
 *   // await generateText({ model, ...r.right.request })
 * }
 *
 * @since 0.1.0
 * @category adapters
 */
export const toModelMessages =
  (options: AdapterOptions = {}) =>
  (ms: Messages): AdapterResult<AIModelMessages> =>
    convertWith('ai-sdk', options, nonEmptyIds, ms, convert)

// --- from ---

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
  const value = isJsonObject(forProvider) ? forProvider[key] : undefined
  return typeof value === 'string' ? value : undefined
}

/** Bytes or a URL from AI SDK data content (bytes, base64, a data URL, a URL). */
const source = (r: Reader, u: unknown, at: string): { readonly data: Uint8Array } | { readonly url: string } | undefined => {
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

type Decoded = { readonly parts: Part[]; provider: string | undefined }

/** Adds the Gemini signature a part carries as a redacted reasoning part before it. */
const carrier = (d: Decoded, options: Record<string, unknown> | null | undefined): void => {
  const signature = option(options, 'google', 'thoughtSignature')
  if (signature === undefined) return
  d.parts.push({ type: 'reasoning', text: signature, redacted: true })
  d.provider ??= 'google'
}

const reasoningPart = (d: Decoded, text: string, options: Record<string, unknown> | null | undefined): void => {
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
    case 'error-json':
      return { content: JSON.stringify(output.value ?? null), isError: output.type === 'error-json' }
    case 'execution-denied':
      return { content: output.reason ?? 'Tool execution denied.', isError: true }
    case 'content':
      return {
        content: Array.isArray(output.value)
          ? output.value.map((c: unknown) => (isJsonObject(c) && c['type'] === 'text' && typeof c['text'] === 'string' ? c['text'] : '')).join('')
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
      if (x === undefined) return
      carrier(d, x.providerOptions)
      names.set(x.toolCallId, x.toolName)
      d.parts.push({ type: 'tool_call', id: x.toolCallId, name: x.toolName, arguments: x.input === undefined ? '{}' : JSON.stringify(x.input), status: 'complete' })
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
