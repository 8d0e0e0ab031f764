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
import type { Part, ReasoningPart } from '../part.ts'
import type { Message, Messages } from '../message.ts'
import {
  callNames,
  type Context,
  convertWith,
  idFor,
  imageType,
  nonEmptyIds,
  omitPart,
  parseJson,
} from './shared.ts'
import type { AdapterOptions, AdapterResult } from './types.ts'
import { aiSdkRules } from './rules-ai-sdk.ts'
import { applyRules } from './rules-kit.ts'
import { isObject } from '../internal/object.ts'

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

/** A part of an assistant `ModelMessage`. */
export type AssistantPart = Exclude<AIContentPart, { readonly type: 'image' }>


/** The `providerOptions` of a signed reasoning part, under its provider's key. */
const reasoningOptions = (provider: string | undefined, p: ReasoningPart): AIProviderOptions | undefined => {
  if (p.signature === undefined) return undefined
  if (provider === 'anthropic') return { anthropic: { signature: p.signature } }
  if (provider === 'google') return { google: { thoughtSignature: p.signature } }
  if (provider === 'openai') {
    const parsed = parseJson(p.signature)
    const ref = parsed !== undefined && isObject(parsed.value) ? parsed.value : {}
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

/** The content of an assistant message as AI SDK parts (also the steps of a UI message). */
export const assistantContent = (context: Context, m: Message): AssistantPart[] => {
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
      if (content.length === 0) context.notes.push({ kind: 'omitted_message', messageId: m.id, reason: 'empty' })
      else messages.push({ role: 'tool', content })
    } else if (m.role === 'assistant') {
      const content = assistantContent(context, m)
      // reasoning alone (what is left when the rest could not be carried) is no turn of its own
      if (content.every((p) => p.type === 'reasoning')) {
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
    convertWith('ai-sdk', options, nonEmptyIds, ms, (context, messages) => applyRules(aiSdkRules, convert(context, messages), context))
