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
import { toolResultText } from '../../message/tool-result-content.ts'
import { contentOfBlocks } from './_tool-content.ts'
import type { Part, ReasoningPart } from '../../message/part-model.ts'
import type { Message, Messages } from '../../message/message.ts'
import { type Context, convertWith, idFor, nonEmptyIds, omitPart } from '../convert.ts'
import { callNames, parseJson } from '../tool-turns.ts'
import { base64Of, imageType, toDataUrl } from '../media.ts'
import type { AdapterOptions, AdapterResult } from '../types.ts'
import { aiSdkRules } from './rules.ts'
import { applyRules } from '../rules-kit.ts'
import { isObject } from '../../internal/object.ts'

// --- wire ---

/**
 * Provider-specific data of a part, by provider key.
 *
 * @since 0.1.0
 * @category adapters
 */
export type AIProviderOptions = { readonly [provider: string]: { readonly [key: string]: AIJsonValue } }

/**
 * A JSON value, as the AI SDK types tool outputs and provider options.
 *
 * @since 0.1.0
 * @category adapters
 */
export type AIJsonValue = null | string | number | boolean | Array<AIJsonValue> | { readonly [key: string]: AIJsonValue }

/**
 * A content part of an AI SDK `ModelMessage`, as `toModelMessages` writes it.
 *
 * @since 0.1.0
 * @category adapters
 */
export type AIContentPart =
  | { readonly type: 'text'; readonly text: string; readonly providerOptions?: AIProviderOptions }
  | { readonly type: 'image'; readonly image: Uint8Array | string; readonly mediaType?: string; readonly providerOptions?: AIProviderOptions }
  | {
    readonly type: 'file'
    readonly data: Uint8Array | string
    readonly mediaType: string
    readonly filename?: string
    readonly providerOptions?: AIProviderOptions
  }
  | { readonly type: 'reasoning'; readonly text: string; readonly providerOptions?: AIProviderOptions }
  | {
    readonly type: 'tool-call'
    readonly toolCallId: string
    readonly toolName: string
    readonly input: unknown
    readonly providerOptions?: AIProviderOptions
    readonly providerExecuted?: boolean
  }

/**
 * A tool result part of an AI SDK tool message.
 *
 * @since 0.1.0
 * @category adapters
 */
export type AIToolResultPart = {
  readonly type: 'tool-result'
  readonly toolCallId: string
  readonly toolName: string
  readonly output: AIToolResultOutput
  readonly providerOptions?: AIProviderOptions
}

/**
 * The output of an AI SDK tool result: text, JSON, an error as either, a denied execution, or
 * content parts (kept as they came).
 *
 * @since 0.1.0
 * @category adapters
 */
export type AIToolResultOutput =
  | { readonly type: 'text' | 'error-text'; readonly value: string; readonly providerOptions?: AIProviderOptions }
  | { readonly type: 'json' | 'error-json'; readonly value: AIJsonValue; readonly providerOptions?: AIProviderOptions }
  | { readonly type: 'execution-denied'; readonly reason?: string; readonly providerOptions?: AIProviderOptions }
  | {
    readonly type: 'content'
    readonly value: Array<
      | { readonly type: 'text'; readonly text: string }
      | { readonly type: 'media' | 'image-data'; readonly data: string; readonly mediaType: string }
      | { readonly type: 'file-data'; readonly data: string; readonly mediaType: string; readonly filename?: string }
      | { readonly type: 'image-url'; readonly url: string }
      | { readonly type: 'file-url'; readonly url: string; readonly mediaType: string }
    >
  }

/**
 * An AI SDK tool approval request (assistant content) or response (tool content), kept as it came.
 *
 * @since 0.1.0
 * @category adapters
 */
export type AIToolApprovalPart =
  | { readonly type: 'tool-approval-request'; readonly approvalId: string; readonly toolCallId: string }
  | { readonly type: 'tool-approval-response'; readonly approvalId: string; readonly approved: boolean; readonly reason?: string }

/**
 * An AI SDK `ModelMessage`, as `toModelMessages` writes it. Arrays are plain `Array`s so that the
 * messages pass straight to `generateText` and `streamText`.
 *
 * @example
 * import type { AIModelMessage } from 'chatfold/adapters'
 * const m: AIModelMessage = { role: 'user', content: 'Hi' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type AIModelMessage =
  | { readonly role: 'system'; readonly content: string; readonly providerOptions?: AIProviderOptions }
  | {
    readonly role: 'user'
    readonly content: string | Array<Extract<AIContentPart, { readonly type: 'text' | 'image' | 'file' }>>
    readonly providerOptions?: AIProviderOptions
  }
  | {
    readonly role: 'assistant'
    readonly content: string | Array<AssistantPart | AIToolResultPart | Extract<AIToolApprovalPart, { readonly type: 'tool-approval-request' }>>
    readonly providerOptions?: AIProviderOptions
  }
  | {
    readonly role: 'tool'
    readonly content: Array<AIToolResultPart | Extract<AIToolApprovalPart, { readonly type: 'tool-approval-response' }>>
    readonly providerOptions?: AIProviderOptions
  }

/**
 * The fields `toModelMessages` produces: spread them into `generateText` or `streamText`.
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

/** The AI SDK-only fields `fromModelMessages` or `fromUIMessages` kept on a part. */
export const aiFields = (p: Part): Readonly<Record<string, unknown>> => {
  const all = (p as { readonly providerFields?: Readonly<Record<string, Readonly<Record<string, unknown>>>> }).providerFields
  return all?.['ai-sdk'] ?? {}
}

/** Provider options built from signatures, with the options kept verbatim merged in. */
export const mergeOptions = (built: AIProviderOptions | undefined, kept: unknown): AIProviderOptions | undefined => {
  if (!isObject(kept)) return built
  const out: Record<string, unknown> = { ...built }
  for (const [provider, value] of Object.entries(kept)) out[provider] = isObject(value) && isObject(out[provider]) ? { ...out[provider], ...value } : value
  return out as AIProviderOptions
}

/** A part with its provider options (signatures and the options kept), when there are any. */
const optioned = <P extends { readonly providerOptions?: AIProviderOptions }>(part: P, built: AIProviderOptions | undefined, p: Part): P => {
  const options = mergeOptions(built ?? part.providerOptions, aiFields(p)['providerOptions'])
  return options === undefined ? part : { ...part, providerOptions: options }
}

/** Bytes as they came: base64 text, a data URL, or the bytes. */
export const bytesOut = (data: Uint8Array, fields: Readonly<Record<string, unknown>>): Uint8Array | string =>
  fields['base64'] === true ? base64Of(data) : typeof fields['dataUrl'] === 'string' ? toDataUrl(fields['dataUrl'], data) : data

const mediaPart = (context: Context, m: Message, p: Part, assistant: boolean): AIContentPart | undefined => {
  const fields = aiFields(p)
  if (p.type === 'image') {
    const source = p.data === undefined ? p.url : bytesOut(p.data, fields)
    if (source === undefined) return undefined
    if (!assistant && fields['file'] !== true)
      return optioned<AIContentPart>({ type: 'image', image: source, ...(p.mediaType === undefined ? {} : { mediaType: p.mediaType }) }, undefined, p)
    const mediaType = imageType(p)
    return mediaType === undefined
      ? omitPart(context, m, p, 'an image of unknown type')
      : optioned<AIContentPart>({ type: 'file', data: source, mediaType }, undefined, p)
  }
  if (p.type === 'file') {
    const source = p.data === undefined ? p.url : bytesOut(p.data, fields)
    if (source === undefined) return undefined
    return optioned<AIContentPart>(
      { type: 'file', data: source, mediaType: p.mediaType, ...(p.filename === undefined ? {} : { filename: p.filename }) },
      undefined,
      p,
    )
  }
  return undefined
}

/** The kinds of AI SDK provider parts a `ModelMessage` holds as they came. */
export const MODEL_KEPT: ReadonlySet<string> = new Set(['tool-call', 'tool-result', 'tool-approval-request', 'tool-approval-response'])

/** An AI SDK provider part's data, when it is a part of `kinds` with its own type tag. */
const keptData = (p: Part, kinds: ReadonlySet<string>): Readonly<Record<string, unknown>> | undefined =>
  p.type === 'provider' && p.provider === 'ai-sdk' && kinds.has(p.kind) && isObject(p.data) && p.data['type'] === p.kind ? p.data : undefined

/** A tool call's input: the JSON text it came as, or the value its arguments hold. */
const inputOf = (context: Context, m: Message, p: Extract<Part, { readonly type: 'tool_call' }>): unknown => {
  if (aiFields(p)['inputText'] === true) return p.arguments
  const parsed = parseJson(p.arguments)
  if (parsed !== undefined) return parsed.value
  if (context.repair === 'repair') {
    context.notes.push({ kind: 'arguments_replaced', messageId: m.id, toolCallId: p.id })
    return {}
  }
  context.error ??= { kind: 'invalid_arguments', messageId: m.id, toolCallId: p.id, arguments: p.arguments }
  return undefined
}

/** An assistant part, or a part of a `ModelMessage` kept as it came (provider-run calls and results, approval requests). */
export type AssistantOut = AssistantPart | AIToolResultPart | Extract<AIToolApprovalPart, { readonly type: 'tool-approval-request' }>

/**
 * The content of an assistant message. A Gemini signature kept as a redacted reasoning part goes on
 * the part after it (or, marked `alone`, as empty reasoning of its own); AI SDK provider parts go
 * out as they came when `kept` says so (UI messages have other forms: their caller handles them).
 */
export const assistantContent = (context: Context, m: Message, kept = true, sources: Array<Part | undefined> = []): AssistantOut[] => {
  const out: AssistantOut[] = []
  // what each part written came from (`sources[i]` for `out[i]`; none for a carrier flushed alone)
  const emit = (part: AssistantOut, from: Part | undefined): void => {
    out.push(part)
    sources.push(from)
  }
  let pending: string | undefined
  const push = (part: AssistantPart, p: Part): void => {
    if (pending !== undefined && part.type !== 'reasoning') {
      emit(optioned(part, { ...part.providerOptions, google: { thoughtSignature: pending } }, p), p)
      pending = undefined
    } else emit(optioned(part, undefined, p), p)
  }
  const flush = (): void => {
    if (pending !== undefined) emit({ type: 'reasoning', text: '', providerOptions: { google: { thoughtSignature: pending } } }, undefined)
    pending = undefined
  }
  for (const p of m.parts) {
    if (p.type === 'reasoning') {
      if (p.redacted === true && m.provider === 'google' && Object.keys(aiFields(p)).length > 0) {
        // a signature that stood alone (marked, or with options of its own): empty reasoning of its own
        flush()
        emit(optioned<AssistantPart>({ type: 'reasoning', text: '' }, { google: { thoughtSignature: p.text } }, p), p)
      } else if (p.redacted === true && m.provider === 'google') {
        flush()
        pending = p.text
      } else if (p.redacted === true && m.provider === 'anthropic') {
        push({ type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: p.text } } }, p)
      } else if (p.redacted === true && openaiRedacted(m, p) !== undefined) {
        push({ type: 'reasoning', text: '', providerOptions: openaiRedacted(m, p) as AIProviderOptions }, p)
      } else if (p.redacted === true) {
        context.notes.push({ kind: 'reasoning_dropped', messageId: m.id, reason: 'opaque' })
      } else {
        const options = reasoningOptions(m.provider, p)
        if (options === undefined && p.signature !== undefined) context.notes.push({ kind: 'reasoning_dropped', messageId: m.id, reason: 'foreign' })
        if (options !== undefined || p.signature === undefined)
          push({ type: 'reasoning', text: p.text, ...(options === undefined ? {} : { providerOptions: options }) }, p)
      }
    } else if (p.type === 'text') push({ type: 'text', text: p.text }, p)
    else if (p.type === 'tool_call') {
      const executed = aiFields(p)['providerExecuted']
      push({
        type: 'tool-call',
        toolCallId: idFor(context, p.id),
        toolName: p.name,
        input: inputOf(context, m, p),
        ...(typeof executed === 'boolean' ? { providerExecuted: executed } : {}),
      }, p)
    } else if (p.type === 'image' || p.type === 'file') {
      const part = mediaPart(context, m, p, true)
      if (part !== undefined && part.type !== 'image') push(part, p)
    } else if (kept && p.type === 'provider' && p.kind !== 'tool-approval-response' && keptData(p, MODEL_KEPT) !== undefined) {
      flush()
      emit(p.data as AssistantOut, p)
    } else if (p.type === 'provider' && !kept) omitPart(context, m, p, `the AI SDK's "${p.kind}" has no UI message part`)
    else if (p.type !== 'finish') omitPart(context, m, p, 'not assistant content in the AI SDK')
  }
  flush()
  return out
}

/** A tool result's output: as it came when kept verbatim, JSON again when it was JSON, else text. */
const outputOf = (context: Context, m: Message, p: Extract<Part, { readonly type: 'tool_result' }>): AIToolResultOutput => {
  const fields = aiFields(p)
  const output = fields['output']
  if (isObject(output) && typeof output['type'] === 'string') return output as AIToolResultOutput
  if (typeof p.content !== 'string') {
    // a content output has no error form
    if (p.isError) context.notes.push({ kind: 'error_flag_lost', messageId: m.id, toolCallId: p.toolCallId })
    const value = contentOfBlocks(p.content, (b) => omitPart(context, m, b, 'not tool result content in the AI SDK'))
    return { type: 'content', value: value as Extract<AIToolResultOutput, { readonly type: 'content' }>['value'] }
  }
  const type = fields['outputType']
  const content = toolResultText(p)
  const parsed = type === 'json' || type === 'error-json' ? parseJson(content) : undefined
  if (parsed !== undefined) return { type: type === 'json' ? 'json' : 'error-json', value: parsed.value as AIJsonValue }
  return { type: p.isError ? 'error-text' : 'text', value: content }
}

/** The message's own options, kept as they came. */
const messageOptions = (m: Message): { readonly providerOptions?: AIProviderOptions } => {
  const fields = m.metadata?.['providerFields']
  const options = isObject(fields) && isObject(fields['ai-sdk']) ? fields['ai-sdk']['providerOptions'] : undefined
  return isObject(options) ? { providerOptions: options as AIProviderOptions } : {}
}

const convert = (context: Context, ms: Messages): AIModelMessages => {
  const names = callNames(ms)
  const messages: AIModelMessage[] = []
  for (const m of ms) {
    const options = messageOptions(m)
    if (m.role === 'system') {
      const texts: string[] = []
      for (const p of m.parts) {
        if (p.type === 'text') texts.push(p.text)
        else omitPart(context, m, p, 'not system content')
      }
      messages.push({ role: 'system', content: texts.join('\n\n'), ...options })
    } else if (m.role === 'tool') {
      const content: Array<AIToolResultPart | Extract<AIToolApprovalPart, { readonly type: 'tool-approval-response' }>> = []
      for (const p of m.parts) {
        if (p.type === 'tool_result') {
          const toolName = p.name ?? names.get(p.toolCallId) ?? ''
          content.push(
            optioned<AIToolResultPart>(
              { type: 'tool-result', toolCallId: idFor(context, p.toolCallId), toolName, output: outputOf(context, m, p) },
              undefined,
              p,
            ),
          )
        } else if (p.type === 'provider' && p.kind === 'tool-approval-response' && keptData(p, MODEL_KEPT) !== undefined) {
          content.push(p.data as Extract<AIToolApprovalPart, { readonly type: 'tool-approval-response' }>)
        } else omitPart(context, m, p, 'not tool content in the AI SDK')
      }
      if (content.length === 0) context.notes.push({ kind: 'omitted_message', messageId: m.id, reason: 'empty' })
      else messages.push({ role: 'tool', content, ...options })
    } else if (m.role === 'assistant') {
      const content = assistantContent(context, m)
      // reasoning alone (what is left when the rest could not be carried) is no turn of its own
      if (content.every((p) => p.type === 'reasoning')) {
        context.notes.push({ kind: 'omitted_message', messageId: m.id, reason: 'empty' })
        continue
      }
      const only = content[0]
      messages.push({
        role: 'assistant',
        content: content.length === 1 && only?.type === 'text' && only.providerOptions === undefined ? only.text : content,
        ...options,
      })
    } else {
      const content: Array<Extract<AIContentPart, { readonly type: 'text' | 'image' | 'file' }>> = []
      for (const p of m.parts) {
        if (p.type === 'text') content.push(optioned<Extract<AIContentPart, { readonly type: 'text' }>>({ type: 'text', text: p.text }, undefined, p))
        else if (p.type === 'image' || p.type === 'file') {
          const part = mediaPart(context, m, p, false)
          if (part !== undefined && part.type !== 'reasoning' && part.type !== 'tool-call') content.push(part)
        } else if (p.type !== 'finish') omitPart(context, m, p, 'not user content in the AI SDK')
      }
      const only = content[0]
      messages.push({
        role: 'user',
        content: content.length === 1 && only?.type === 'text' && only.providerOptions === undefined ? only.text : content,
        ...options,
      })
    }
  }
  return { messages }
}

/**
 * Converts a history to AI SDK `ModelMessage`s. The history goes through `forLLM` and the
 * tool-pair check first; the result says what could not be carried. `foreignReasoning` and `model`
 * play no part: the AI SDK's provider picks the reasoning it can verify by its key. What
 * `fromModelMessages` kept goes back as it came (provider options, output types, tool input as
 * JSON text, approval parts, provider-run calls); another provider's provider parts and fields are
 * mapped or left out with notes.
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
export const toModelMessages = (options: AdapterOptions = {}) => (ms: Messages): AdapterResult<AIModelMessages> =>
  convertWith('ai-sdk', options, nonEmptyIds, ms, (context, messages) => applyRules(aiSdkRules, convert(context, messages), context))
