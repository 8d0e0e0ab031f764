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
 * A history read by `fromOpenAIChat` goes back as the messages it was read from: a message's other
 * fields (`name`, `audio`, `function_call`, a `developer` role, …) are in its
 * `metadata.providerFields.openai.message`, a part's (an image's `detail`, a text list's `type`)
 * under the part's `providerFields.openai`; a custom tool call is a tool call whose arguments are
 * `{"input": …}`, written back as `custom`; a refusal is text, written back where it was (the
 * `refusal` field or a `refusal` part); content kept whole (a file by id, a deprecated `function`
 * message) goes back verbatim. The normal form leaves out `refusal: null` (no refusal). A
 * Responses item of the history (web search, code interpreter, …) becomes the text OpenAI's
 * rules give it for other providers, or is left out with a note.
 *
 * The API cannot carry a tool result's error flag, the order of text and tool calls inside an
 * assistant message, or images in assistant messages: the report says when one was lost.
 *
 * @module
 */
import { isReasoning, isText, isToolCall } from '../../message/part-make.ts'
import { type Part, type ProviderPart, type TextPart, type ToolCallPart, type ToolResultBlock } from '../../message/part-model.ts'
import type { Message, Messages } from '../../message/message.ts'
import { type Context, convertWith, foreignReasoning, idFor, nonEmptyIds, omitPart } from '../convert.ts'
import { systemAfterResults } from '../tool-turns.ts'
import { base64Of, imageType, toDataUrl } from '../media.ts'
import type { AdapterOptions, AdapterResult } from '../types.ts'
import { openAIChatRules } from './rules.ts'
import { applyRules, noteFix } from '../rules-kit.ts'
import { messageFields, openAIFields, without } from './_vocab.ts'
import { customInput, foreignOpenAI } from './responses.ts'
import { isObject } from '../../internal/object.ts'

// --- wire ---

/**
 * A text part of a chat completion message.
 *
 * @since 0.1.0
 * @category adapters
 */
export type OpenAIChatTextPart = { readonly type: 'text'; readonly text: string }

/**
 * A user content part of a chat completion request.
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
 * import type { OpenAIChatMessage } from 'chatfold/adapters'
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
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string | Array<OpenAIChatTextPart> }

/**
 * The request fields `toOpenAIChat` produces: spread them into `client.chat.completions.create`.
 *
 * @example
 * import type { OpenAIChatRequest } from 'chatfold/adapters'
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
 * import type { OpenAIChatOptions } from 'chatfold/adapters'
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

const AUDIO: Readonly<Record<string, 'wav' | 'mp3'>> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
}

/** Notes the OpenAI fields of the Responses API that a Chat Completions message cannot take. */
const dropFields = (context: Context, m: Message, part: string, fields: ReadonlyArray<string>): void => {
  const named = fields.filter((k) => k !== 'type' && k !== 'chatfold')
  if (named.length > 0) context.notes.push({ kind: 'provider_fields_dropped', messageId: m.id, provider: 'openai', part, fields: named })
}

/** A part's OpenAI fields when they are Chat Completions' own (`own(f)`), else noted and left out. */
const chatFields = (context: Context, m: Message, p: Part, own: (f: Readonly<Record<string, unknown>>) => boolean): Readonly<Record<string, unknown>> => {
  const f = openAIFields(p)
  if (f === undefined) return {}
  if (own(f)) return f
  dropFields(context, m, p.type, Object.keys(f))
  return {}
}

/** A text part's fields read from Chat Completions: its part type, or extra fields of a part of a longer list. */
const isChatText = (f: Readonly<Record<string, unknown>>): boolean =>
  f['type'] === 'text' || f['type'] === 'refusal' || (f['type'] === undefined && f['item'] === undefined)
const onlyDetail = (f: Readonly<Record<string, unknown>>): boolean => Object.keys(f).every((k) => k === 'detail')
const onlyFileId = (f: Readonly<Record<string, unknown>>): boolean => Object.keys(f).every((k) => k === 'file_id')

/** A provider part of OpenAI: one of this API's kinds verbatim, a Responses item mapped or left out. */
const providerParts = (context: Context, m: Message, p: ProviderPart, kinds: ReadonlyArray<string>): ReadonlyArray<Part | { readonly sent: unknown }> =>
  kinds.includes(p.kind) ? [{ sent: p.data }] : foreignOpenAI(context, m, p)

/** What OpenAI sent, written back: an SDK type `src/` does not import, typed by what chatfold writes. */
const sent = <A>(x: unknown): A => x as A

const userPart = (context: Context, m: Message, p: Part): OpenAIChatUserPart | undefined => {
  switch (p.type) {
    case 'text':
      return sent({ ...chatFields(context, m, p, isChatText), type: 'text', text: p.text })
    case 'image': {
      const detail = chatFields(context, m, p, onlyDetail)
      if (p.url !== undefined) return sent({ type: 'image_url', image_url: { url: p.url, ...detail } })
      const mediaType = imageType(p)
      if (p.data !== undefined && mediaType !== undefined) return sent({ type: 'image_url', image_url: { url: toDataUrl(mediaType, p.data), ...detail } })
      return omitPart(context, m, p, 'an image of unknown type')
    }
    case 'file': {
      const format = AUDIO[p.mediaType]
      if (p.data === undefined) return omitPart(context, m, p, 'a file by URL (Chat Completions takes file bytes only)')
      if (format !== undefined) return { type: 'input_audio', input_audio: { data: base64Of(p.data), format } }
      const fields = chatFields(context, m, p, onlyFileId)
      return sent({
        type: 'file',
        file: { ...fields, file_data: toDataUrl(p.mediaType, p.data), ...(p.filename === undefined ? {} : { filename: p.filename }) },
      })
    }
    default:
      return omitPart(context, m, p, 'not user content in Chat Completions')
  }
}

/**
 * A result's blocks as a tool message's content parts: Chat Completions takes text parts only in a
 * tool message, so each image, file or provider block is left out with a note.
 */
const textParts = (context: Context, m: Message, blocks: ReadonlyArray<ToolResultBlock>): Array<{ type: 'text'; text: string }> => {
  const out: Array<{ type: 'text'; text: string }> = []
  for (const b of blocks) {
    if (b.type === 'text') out.push({ type: 'text', text: b.text })
    else omitPart(
        context,
        m,
        b,
        `${
          b.type === 'provider' ? 'a provider block' : b.type === 'image' ? 'an image' : 'a file'
        } in a tool result (a Chat Completions tool message takes text only)`,
      )
  }
  return out
}

const toolMessages = (context: Context, m: Message): Array<OpenAIChatMessage> => {
  const out: Array<OpenAIChatMessage> = []
  const residue = messageResidue(context, m)
  for (const p of m.parts) {
    if (p.type === 'provider' && p.provider === 'openai' && p.kind === 'function') out.push(sent(p.data))
    if (p.type !== 'tool_result') continue
    if (p.isError) context.notes.push({ kind: 'error_flag_lost', messageId: m.id, toolCallId: p.toolCallId })
    const f = chatFields(context, m, p, (x) => Object.keys(x).every((k) => k === 'content'))
    if (typeof p.content !== 'string') {
      out.push(sent({ ...residue, role: 'tool', tool_call_id: idFor(context, p.toolCallId), content: textParts(context, m, p.content) }))
      continue
    }
    // a list of text parts goes back as the list while the text it holds is unchanged
    const list = f['content']
    const content = Array.isArray(list) && list.map((x) => (isObject(x) && typeof x['text'] === 'string' ? x['text'] : '')).join('') === p.content
      ? list
      : p.content
    out.push(sent({ ...residue, role: 'tool', tool_call_id: idFor(context, p.toolCallId), content }))
  }
  return out
}

/** The fields a message was read with (Chat Completions' own), without chatfold's marks. */
const messageResidue = (context: Context, m: Message): Readonly<Record<string, unknown>> => {
  const own = messageFields(m, 'message')
  const item = messageFields(m, 'item')
  if (item !== undefined) dropFields(context, m, 'message', Object.keys(item).filter((k) => k !== 'role'))
  return own === undefined ? {} : without(own, 'chatfold')
}

const callOf = (context: Context, m: Message, p: ToolCallPart): OpenAIChatToolCall => {
  const f = openAIFields(p) ?? {}
  const id = idFor(context, p.id)
  if (f['type'] === 'custom') return sent({ ...f, id, custom: { name: p.name, input: customInput(p.arguments) } })
  if (f['type'] === 'function') return sent({ ...f, id, function: { name: p.name, arguments: p.arguments } })
  dropFields(context, m, p.type, Object.keys(f))
  if (f['type'] === 'custom_tool_call') return sent({ id, type: 'custom', custom: { name: p.name, input: customInput(p.arguments) } })
  return { id, type: 'function', function: { name: p.name, arguments: p.arguments } }
}

const assistantMessage = (context: Context, m: Message, field: 'none' | 'reasoning_content'): OpenAIChatMessage | undefined => {
  const parts: Array<Readonly<Record<string, unknown>>> = []
  let plain = true
  let refusal: string | undefined
  const calls: OpenAIChatToolCall[] = []
  let thinking: string | undefined
  const text = (p: TextPart): void => {
    const f = openAIFields(p)
    if (f?.['refusal'] === 'field') refusal = p.text
    else {
      const own = chatFields(context, m, p, isChatText)
      if (Object.keys(own).length > 0) plain = false
      parts.push(own['type'] === 'refusal' ? { ...own, refusal: p.text } : { ...own, type: 'text', text: p.text })
    }
  }
  const add = (p: Part): void => {
    if (isText(p)) text(p)
    else if (isToolCall(p)) calls.push(callOf(context, m, p))
    else if (isReasoning(p)) {
      if (field === 'reasoning_content' && p.signature === undefined && p.redacted !== true) thinking = (thinking ?? '') + p.text
      else for (const x of foreignReasoning(context, m, p, 'foreign')) text(x)
    } else if (p.type === 'provider' && p.provider === 'openai') foreignOpenAI(context, m, p).forEach(add)
    else if (p.type !== 'finish' && p.type !== 'tool_result') omitPart(context, m, p, 'not assistant content in Chat Completions')
  }
  m.parts.forEach(add)
  const residue = messageResidue(context, m)
  const absent = messageFields(m, 'message')?.['chatfold']
  if (parts.length === 0 && calls.length === 0 && thinking === undefined && refusal === undefined && Object.keys(residue).length === 0) {
    context.notes.push({ kind: 'omitted_message', messageId: m.id, reason: 'empty' })
    return undefined
  }
  const only = parts[0]
  const content = parts.length === 0 ? null : plain && parts.length === 1 && typeof only?.['text'] === 'string' ? only['text'] : parts
  return sent({
    ...residue,
    role: 'assistant',
    ...(isObject(absent) && absent['content'] === 'absent' && content === null ? {} : { content }),
    ...(refusal === undefined ? {} : { refusal }),
    ...(calls.length === 0 ? {} : { tool_calls: calls }),
    ...(thinking === undefined ? {} : { reasoning_content: thinking }),
  })
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
export const toOpenAIChat = (options: OpenAIChatOptions = {}) => (ms: Messages): AdapterResult<OpenAIChatRequest> =>
  convertWith('openai-chat', options, nonEmptyIds, ms, (context, messages) =>
    applyRules(
      openAIChatRules,
      convert(context, systemAfterResults(messages, (m) => noteFix(context, 'openai-chat/tool-messages-follow-calls', `(message ${m.id})`, 'moved')), options),
      context,
    ))

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
      for (const p of m.parts)
        if (p.type !== 'tool_result' && !(p.type === 'provider' && p.provider === 'openai' && p.kind === 'function'))
          omitPart(context, m, p, 'not tool content in Chat Completions')
      continue
    }
    const residue = messageResidue(context, m)
    if (m.role === 'system') {
      const texts: Array<Readonly<Record<string, unknown>>> = []
      let plain = true
      for (const p of m.parts) {
        if (isText(p)) {
          const own = chatFields(context, m, p, isChatText)
          if (Object.keys(own).length > 0) plain = false
          texts.push({ ...own, type: 'text', text: p.text })
        } else if (p.type !== 'tool_result') omitPart(context, m, p, 'not system content in Chat Completions')
      }
      const role = residue['role'] === 'developer' || messageFields(m, 'item')?.['role'] === 'developer'
        ? 'developer'
        : residue['role'] === 'system'
        ? 'system'
        : systemRole
      const only = texts[0]
      const content = texts.length === 0 ? '' : plain && texts.length === 1 && only !== undefined ? only['text'] : texts
      messages.push(sent({ ...residue, role, content }))
      continue
    }
    const parts: OpenAIChatUserPart[] = []
    const add = (p: Part): void => {
      if (p.type === 'tool_result') return
      if (p.type === 'provider' && p.provider === 'openai') {
        for (const x of providerParts(context, m, p, ['image_url', 'input_audio', 'file'])) 'sent' in x ? parts.push(sent(x.sent)) : add(x)
        return
      }
      const part = userPart(context, m, p)
      if (part !== undefined) parts.push(part)
    }
    m.parts.forEach(add)
    if (parts.length === 0 && m.parts.some((p) => p.type === 'tool_result')) continue
    const only = parts[0]
    const first = m.parts[0]
    const plain = parts.length === 1 && only?.type === 'text' && first !== undefined && openAIFields(first) === undefined
    messages.push(sent({ ...residue, role: 'user', content: plain ? only.text : parts.length === 0 ? '' : parts }))
  }
  return { messages }
}
