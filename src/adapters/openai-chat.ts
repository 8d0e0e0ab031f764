/**
 * OpenAI Chat Completions: a history to and from the `messages` of a chat completion request, and
 * a chat completion response into an assistant message.
 *
 * - system messages go out as `system` (or `developer`) messages, in place (one that sits between
 *   a tool call and its results goes right after the results, where the API accepts it);
 * - assistant tool calls become `tool_calls` with `function.arguments` as the raw JSON text, kept
 *   byte for byte; each tool result becomes a `tool` message with its `tool_call_id`;
 * - images become `image_url` parts (bytes as a base64 data URL), audio `input_audio`, other
 *   files `file` parts with a data URL;
 * - the API has no field for reasoning: reasoning follows `foreignReasoning`, unless
 *   `reasoningField: 'reasoning_content'` asks for the field OpenAI-compatible servers read
 *   (unsigned reasoning text only). `fromOpenAIChat` reads `reasoning_content` (or `reasoning`)
 *   when a server sends it.
 *
 * The API cannot carry a tool result's error flag, the order of text and tool calls inside an
 * assistant message, or images in assistant messages: the report says when one was lost.
 *
 * @module
 */
import { isReasoning, isText, isToolCall, type Part } from '../part.ts'
import type { Message, Messages } from '../message.ts'
import {
  base64Of,
  convertWith,
  type Context,
  foreignReasoning,
  idFor,
  imageType,
  nonEmptyIds,
  omitPart,
  systemAfterResults,
  toDataUrl,
} from './shared.ts'
import type { AdapterOptions, AdapterResult } from './types.ts'
import { openAIChatRules } from './rules-openai.ts'
import { applyRules, noteFix } from './rules-kit.ts'

// --- wire ---

/**
 * A text part of a chat completion message.
 *
 * @example
 * import type { OpenAIChatTextPart } from 'chatfold'
 * const part: OpenAIChatTextPart = { type: 'text', text: 'Hi' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type OpenAIChatTextPart = { readonly type: 'text'; readonly text: string }

/**
 * A user content part of a chat completion request.
 *
 * @example
 * import type { OpenAIChatUserPart } from 'chatfold'
 * const part: OpenAIChatUserPart = { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }
 *
 * @since 0.1.0
 * @category adapters
 */
export type OpenAIChatUserPart =
  | OpenAIChatTextPart
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string } }
  | { readonly type: 'input_audio'; readonly input_audio: { readonly data: string; readonly format: 'wav' | 'mp3' } }
  | { readonly type: 'file'; readonly file: { readonly file_data: string; readonly filename?: string } }

/**
 * A function tool call of an assistant message; `arguments` is the raw JSON text.
 *
 * @example
 * import type { OpenAIChatToolCall } from 'chatfold'
 * const call: OpenAIChatToolCall = { id: 'call_1', type: 'function', function: { name: 'ls', arguments: '{"path":"."}' } }
 *
 * @since 0.1.0
 * @category adapters
 */
export type OpenAIChatToolCall = {
  readonly id: string
  readonly type: 'function'
  readonly function: { readonly name: string; readonly arguments: string }
}

/**
 * A chat completion request message, as `toOpenAIChat` writes it. Arrays are plain `Array`s so
 * that the request passes straight to the SDK, whose parameter types are mutable.
 *
 * @example
 * import type { OpenAIChatMessage } from 'chatfold'
 * const m: OpenAIChatMessage = { role: 'tool', tool_call_id: 'call_1', content: 'README.md' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type OpenAIChatMessage =
  | { readonly role: 'system'; readonly content: string | Array<OpenAIChatTextPart> }
  | { readonly role: 'developer'; readonly content: string | Array<OpenAIChatTextPart> }
  | { readonly role: 'user'; readonly content: string | Array<OpenAIChatUserPart> }
  | {
      readonly role: 'assistant'
      readonly content: string | Array<OpenAIChatTextPart> | null
      readonly tool_calls?: Array<OpenAIChatToolCall>
      readonly reasoning_content?: string
    }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string }

/**
 * The request fields `toOpenAIChat` produces: spread them into `client.chat.completions.create`.
 *
 * @example
 * import type { OpenAIChatRequest } from 'chatfold'
 * const request: OpenAIChatRequest = { messages: [{ role: 'user', content: 'Hi' }] }
 *
 * @since 0.1.0
 * @category adapters
 */
export type OpenAIChatRequest = { readonly messages: Array<OpenAIChatMessage> }

/**
 * Options of `toOpenAIChat`: the shared ones, the role system messages go out with (`system` by
 * default; `developer` for reasoning models), and whether unsigned reasoning goes out in the
 * `reasoning_content` field of OpenAI-compatible servers.
 *
 * @example
 * import type { OpenAIChatOptions } from 'chatfold'
 * const options: OpenAIChatOptions = { systemRole: 'developer', repair: 'repair' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type OpenAIChatOptions = AdapterOptions & {
  readonly systemRole?: 'system' | 'developer'
  readonly reasoningField?: 'none' | 'reasoning_content'
}

// --- to ---

/** Text parts as a string when there is one, else as an array of text parts. */
const textContent = (texts: ReadonlyArray<string>): string | Array<OpenAIChatTextPart> =>
  texts.length === 1 ? (texts[0] as string) : texts.map((text) => ({ type: 'text', text }))

const AUDIO: Readonly<Record<string, 'wav' | 'mp3'>> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
}

const userPart = (context: Context, m: Message, p: Part): OpenAIChatUserPart | undefined => {
  switch (p.type) {
    case 'text':
      return { type: 'text', text: p.text }
    case 'image': {
      if (p.url !== undefined) return { type: 'image_url', image_url: { url: p.url } }
      const mediaType = imageType(p)
      if (p.data !== undefined && mediaType !== undefined) return { type: 'image_url', image_url: { url: toDataUrl(mediaType, p.data) } }
      return omitPart(context, m, p, 'an image of unknown type')
    }
    case 'file': {
      const format = AUDIO[p.mediaType]
      if (p.data === undefined) return omitPart(context, m, p, 'a file by URL (Chat Completions takes file bytes only)')
      if (format !== undefined) return { type: 'input_audio', input_audio: { data: base64Of(p.data), format } }
      return { type: 'file', file: { file_data: toDataUrl(p.mediaType, p.data), ...(p.filename === undefined ? {} : { filename: p.filename }) } }
    }
    default:
      return omitPart(context, m, p, 'not user content in Chat Completions')
  }
}

const toolMessages = (context: Context, m: Message): Array<OpenAIChatMessage> => {
  const out: Array<OpenAIChatMessage> = []
  for (const p of m.parts) {
    if (p.type !== 'tool_result') continue
    if (p.isError) context.notes.push({ kind: 'error_flag_lost', messageId: m.id, toolCallId: p.toolCallId })
    out.push({ role: 'tool', tool_call_id: idFor(context, p.toolCallId), content: p.content })
  }
  return out
}

const assistantMessage = (context: Context, m: Message, field: 'none' | 'reasoning_content'): OpenAIChatMessage | undefined => {
  const texts: string[] = []
  const calls: OpenAIChatToolCall[] = []
  let thinking: string | undefined
  for (const p of m.parts) {
    if (isText(p)) texts.push(p.text)
    else if (isToolCall(p)) calls.push({ id: idFor(context, p.id), type: 'function', function: { name: p.name, arguments: p.arguments } })
    else if (isReasoning(p)) {
      if (field === 'reasoning_content' && p.signature === undefined && p.redacted !== true) thinking = (thinking ?? '') + p.text
      else for (const x of foreignReasoning(context, m, p, 'foreign')) texts.push(x.text)
    } else if (p.type !== 'finish' && p.type !== 'tool_result') omitPart(context, m, p, 'not assistant content in Chat Completions')
  }
  if (texts.length === 0 && calls.length === 0 && thinking === undefined) {
    context.notes.push({ kind: 'omitted_message', messageId: m.id, reason: 'empty' })
    return undefined
  }
  return {
    role: 'assistant',
    content: texts.length === 0 ? null : textContent(texts),
    ...(calls.length === 0 ? {} : { tool_calls: calls }),
    ...(thinking === undefined ? {} : { reasoning_content: thinking }),
  }
}

/**
 * Converts a history to the `messages` of an OpenAI chat completion request. The history goes
 * through `forLLM` and the tool-pair check first; the result says what could not be carried.
 *
 * @example
 * import * as E from 'fp-ts/Either'
 * import { textMessage, toOpenAIChat } from 'chatfold'
 * const r = toOpenAIChat({ repair: 'repair' })([textMessage('user', 'Hello')])
 * if (E.isRight(r)) {
 *   r.right.request // { messages: [{ role: 'user', content: 'Hello' }] }
 *   // await openai.chat.completions.create({ model: 'gpt-5', ...r.right.request })
 * }
 *
 * @since 0.1.0
 * @category adapters
 */
export const toOpenAIChat =
  (options: OpenAIChatOptions = {}) =>
  (ms: Messages): AdapterResult<OpenAIChatRequest> =>
    convertWith('openai', options, nonEmptyIds, ms, (context, messages) =>
      applyRules(
        openAIChatRules,
        convert(context, systemAfterResults(messages, (m) => noteFix(context, 'openai-chat/tool-messages-follow-calls', `(message ${m.id})`, 'moved')), options),
        context,
      ),
    )

const convert = (context: Context, ms: Messages, options: OpenAIChatOptions): OpenAIChatRequest => {
  const systemRole = options.systemRole ?? 'system'
  const field = options.reasoningField ?? 'none'
  const messages: OpenAIChatMessage[] = []
  for (const m of ms) {
    if (m.role === 'assistant') {
      const a = assistantMessage(context, m, field)
      if (a !== undefined) messages.push(a)
      continue
    }
    messages.push(...toolMessages(context, m))
    if (m.role === 'tool') {
      for (const p of m.parts) if (p.type !== 'tool_result') omitPart(context, m, p, 'not tool content in Chat Completions')
      continue
    }
    if (m.role === 'system') {
      const texts: string[] = []
      for (const p of m.parts) {
        if (isText(p)) texts.push(p.text)
        else if (p.type !== 'tool_result') omitPart(context, m, p, 'not system content in Chat Completions')
      }
      messages.push({ role: systemRole, content: texts.length === 0 ? '' : textContent(texts) })
      continue
    }
    const parts: OpenAIChatUserPart[] = []
    for (const p of m.parts) {
      if (p.type === 'tool_result') continue
      const part = userPart(context, m, p)
      if (part !== undefined) parts.push(part)
    }
    if (parts.length === 0 && m.parts.some((p) => p.type === 'tool_result')) continue
    const only = parts[0]
    messages.push({ role: 'user', content: parts.length === 1 && only?.type === 'text' ? only.text : parts.length === 0 ? '' : parts })
  }
  return { messages }
}
