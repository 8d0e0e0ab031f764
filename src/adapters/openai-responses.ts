/**
 * OpenAI Responses API: a history to and from the `input` items of a response request, and a
 * response into an assistant message.
 *
 * Items in history order: `message` items (system or developer, user, assistant text), then an
 * assistant message's parts as their own items in order: `reasoning`, `message`, `function_call`;
 * each tool result is a `function_call_output` item. Going back, consecutive assistant-side items
 * make one assistant message. A system message between a tool call and its results goes right after
 * the results.
 *
 * A reasoning item becomes one reasoning part: its summaries joined by a blank line as the text, and
 * its `id` and `encrypted_content` kept in the part's `signature` as the opaque token
 * `{"id":…,"encrypted_content":…}`, so the item goes back to OpenAI unchanged. An item without a
 * summary is encrypted reasoning only: a redacted reasoning part whose text is that token. Reasoning
 * of another provider (or model) follows `foreignReasoning`.
 *
 * The API cannot carry a tool result's error flag or images in assistant messages: the report says
 * when one was lost.
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../failure.ts'
import type { Part, ReasoningPart } from '../part.ts'
import type { Message, Messages } from '../message.ts'
import {
  type Context,
  convertWith,
  foreignReasoning,
  fromDataUrl,
  fromMessage,
  idFor,
  type IdRule,
  imageType,
  isJsonObject,
  isNative,
  omitPart,
  optional,
  parseJson,
  reader,
  type Reader,
  settleStatuses,
  systemAfterResults,
  TaggedC,
  errorText,
  toDataUrl,
} from './shared.ts'
import type { AdapterOptions, AdapterResult } from './types.ts'

// --- wire ---

/**
 * A content part of a Responses input message.
 *
 * @example
 * import type { OpenAIResponsesContent } from 'chatfold'
 * const part: OpenAIResponsesContent = { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'auto' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type OpenAIResponsesContent =
  | { readonly type: 'input_text'; readonly text: string }
  | { readonly type: 'input_image'; readonly image_url: string; readonly detail: 'auto' }
  | { readonly type: 'input_file'; readonly file_data: string; readonly filename?: string }
  | { readonly type: 'input_file'; readonly file_url: string; readonly filename?: string }

/**
 * A Responses input item, as `toOpenAIResponses` writes it. Arrays are plain `Array`s so that the
 * request passes straight to the SDK.
 *
 * @example
 * import type { OpenAIResponsesItem } from 'chatfold'
 * const item: OpenAIResponsesItem = { type: 'function_call_output', call_id: 'call_1', output: 'README.md' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type OpenAIResponsesItem =
  | { readonly type: 'message'; readonly role: 'system'; readonly content: string | Array<OpenAIResponsesContent> }
  | { readonly type: 'message'; readonly role: 'developer'; readonly content: string | Array<OpenAIResponsesContent> }
  | { readonly type: 'message'; readonly role: 'user'; readonly content: string | Array<OpenAIResponsesContent> }
  | { readonly type: 'message'; readonly role: 'assistant'; readonly content: string }
  | { readonly type: 'function_call'; readonly call_id: string; readonly name: string; readonly arguments: string }
  | { readonly type: 'function_call_output'; readonly call_id: string; readonly output: string }
  | {
      readonly type: 'reasoning'
      readonly id: string
      readonly summary: Array<{ readonly type: 'summary_text'; readonly text: string }>
      readonly encrypted_content?: string
    }

/**
 * The request fields `toOpenAIResponses` produces: spread them into `client.responses.create`.
 *
 * @example
 * import type { OpenAIResponsesRequest } from 'chatfold'
 * const request: OpenAIResponsesRequest = { input: [{ type: 'message', role: 'user', content: 'Hi' }] }
 *
 * @since 0.1.0
 * @category adapters
 */
export type OpenAIResponsesRequest = { readonly input: Array<OpenAIResponsesItem> }

/**
 * Options of `toOpenAIResponses`: the shared ones and the role system messages go out with
 * (`system` by default, or `developer`).
 *
 * @example
 * import type { OpenAIResponsesOptions } from 'chatfold'
 * const options: OpenAIResponsesOptions = { systemRole: 'developer' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type OpenAIResponsesOptions = AdapterOptions & { readonly systemRole?: 'system' | 'developer' }

// --- reasoning token ---

type ReasoningRef = { readonly id: string; readonly encrypted_content?: string }

/** The signature token of a reasoning item. */
export const referenceOf = (id: string, encrypted: string | null | undefined): string =>
  JSON.stringify(typeof encrypted === 'string' ? { id, encrypted_content: encrypted } : { id })

/** The reasoning item a signature token names; `undefined` for any other signature. */
const parseReference = (signature: string): ReasoningRef | undefined => {
  const parsed = parseJson(signature)
  if (parsed === undefined || !isJsonObject(parsed.value)) return undefined
  const { id, encrypted_content } = parsed.value
  if (typeof id !== 'string') return undefined
  return typeof encrypted_content === 'string' ? { id, encrypted_content } : { id }
}

// --- to ---

/** Call ids of 1 to 64 characters (the limit of `function_call_output.call_id`). */
const responsesIds: IdRule = {
  valid: (id) => id.length >= 1 && id.length <= 64,
  fix: (id) => (id === '' ? 'call' : id.slice(0, 56)),
}

const contentPart = (context: Context, m: Message, p: Part): OpenAIResponsesContent | undefined => {
  switch (p.type) {
    case 'text':
      return { type: 'input_text', text: p.text }
    case 'image': {
      if (p.url !== undefined) return { type: 'input_image', image_url: p.url, detail: 'auto' }
      const mediaType = imageType(p)
      if (p.data !== undefined && mediaType !== undefined) return { type: 'input_image', image_url: toDataUrl(mediaType, p.data), detail: 'auto' }
      return omitPart(context, m, p, 'an image of unknown type')
    }
    case 'file': {
      const filename = p.filename === undefined ? {} : { filename: p.filename }
      if (p.data !== undefined) return { type: 'input_file', file_data: toDataUrl(p.mediaType, p.data), ...filename }
      if (p.url !== undefined) return { type: 'input_file', file_url: p.url, ...filename }
      return undefined
    }
    default:
      return omitPart(context, m, p, `not ${m.role} content in the Responses API`)
  }
}

const reasoningItem = (context: Context, m: Message, p: ReasoningPart): ReadonlyArray<OpenAIResponsesItem> => {
  const native = isNative(context, m)
  const token = p.redacted === true ? p.text : p.signature
  const ref = native && token !== undefined ? parseReference(token) : undefined
  if (ref === undefined) {
    return foreignReasoning(context, m, p, native ? 'unsigned' : 'foreign').map((x) => ({ type: 'message', role: 'assistant', content: x.text }))
  }
  const summary = p.redacted === true || p.text === '' ? [] : [{ type: 'summary_text' as const, text: p.text }]
  return [{ type: 'reasoning', id: ref.id, summary, ...(ref.encrypted_content === undefined ? {} : { encrypted_content: ref.encrypted_content }) }]
}

const assistantItems = (context: Context, m: Message): ReadonlyArray<OpenAIResponsesItem> => {
  const items: OpenAIResponsesItem[] = []
  for (const p of m.parts) {
    if (p.type === 'text') items.push({ type: 'message', role: 'assistant', content: p.text })
    else if (p.type === 'reasoning') items.push(...reasoningItem(context, m, p))
    else if (p.type === 'tool_call') items.push({ type: 'function_call', call_id: idFor(context, p.id), name: p.name, arguments: p.arguments })
    else if (p.type !== 'finish') omitPart(context, m, p, 'not assistant content in the Responses API')
  }
  if (items.length === 0) context.notes.push({ kind: 'omitted_message', messageId: m.id, reason: 'empty' })
  return items
}

const convert = (context: Context, ms: Messages, options: OpenAIResponsesOptions): OpenAIResponsesRequest => {
  const systemRole = options.systemRole ?? 'system'
  const input: OpenAIResponsesItem[] = []
  for (const m of ms) {
    if (m.role === 'assistant') {
      input.push(...assistantItems(context, m))
    } else if (m.role === 'tool') {
      for (const p of m.parts) {
        if (p.type !== 'tool_result') {
          omitPart(context, m, p, 'not tool content in the Responses API')
          continue
        }
        if (p.isError) context.notes.push({ kind: 'error_flag_lost', messageId: m.id, toolCallId: p.toolCallId })
        input.push({ type: 'function_call_output', call_id: idFor(context, p.toolCallId), output: p.content })
      }
    } else {
      const parts: OpenAIResponsesContent[] = []
      for (const p of m.parts) {
        const part = m.role === 'system' && p.type !== 'text' ? omitPart(context, m, p, 'not system content') : contentPart(context, m, p)
        if (part !== undefined) parts.push(part)
      }
      const only = parts[0]
      const content = parts.length === 1 && only?.type === 'input_text' ? only.text : parts.length === 0 ? '' : parts
      input.push({ type: 'message', role: m.role === 'system' ? systemRole : 'user', content })
    }
  }
  return { input }
}

/**
 * Converts a history to the `input` items of an OpenAI Responses request. The history goes
 * through `forLLM` and the tool-pair check first; the result says what could not be carried.
 *
 * @example
 * import * as E from 'fp-ts/Either'
 * import { textMessage, toOpenAIResponses } from 'chatfold'
 * const r = toOpenAIResponses({ systemRole: 'developer' })([textMessage('system', 'Be brief.'), textMessage('user', 'Hi')])
 * if (E.isRight(r)) {
 *   r.right.request // { input: [{ type: 'message', role: 'developer', content: 'Be brief.' }, { type: 'message', role: 'user', content: 'Hi' }] }
 *   // await openai.responses.create({ model: 'gpt-5', store: false, include: ['reasoning.encrypted_content'], ...r.right.request })
 * }
 *
 * @since 0.1.0
 * @category adapters
 */
export const toOpenAIResponses =
  (options: OpenAIResponsesOptions = {}) =>
  (ms: Messages): AdapterResult<OpenAIResponsesRequest> =>
    convertWith('openai', options, responsesIds, ms, (context, messages) => convert(context, systemAfterResults(messages), options))

// --- from ---

const MessageItemC = t.type({ role: t.keyof({ system: null, developer: null, user: null, assistant: null }), content: t.union([t.string, t.array(t.unknown)]) })
const FunctionCallC = t.type({ call_id: t.string, name: t.string, arguments: t.string })
const FunctionOutputC = t.type({ call_id: t.string, output: t.union([t.string, t.array(t.unknown)]) })
const ReasoningItemC = t.intersection([
  t.type({ id: t.string }),
  t.partial({ summary: optional(t.array(t.type({ text: t.string }))), encrypted_content: optional(t.string) }),
])
const InputTextC = t.type({ text: t.string })
const InputImageC = t.partial({ image_url: optional(t.string), file_id: optional(t.string) })
const InputFileC = t.partial({ file_data: t.string, file_url: t.string, filename: t.string, file_id: optional(t.string) })
const RefusalC = t.type({ refusal: t.string })

/** The parts of a message item's content. */
const contentParts = (r: Reader, content: string | ReadonlyArray<unknown>, path: string): Part[] => {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  const parts: Part[] = []
  content.forEach((u, j) => {
    const at = `${path}[${j}]`
    const tag = r.read(TaggedC, u, at)?.type
    if (tag === 'input_text' || tag === 'output_text') {
      const x = r.read(InputTextC, u, at)
      if (x !== undefined) parts.push({ type: 'text', text: x.text })
    } else if (tag === 'refusal') {
      const x = r.read(RefusalC, u, at)
      if (x !== undefined) parts.push({ type: 'text', text: x.refusal })
    } else if (tag === 'input_image') {
      const x = r.read(InputImageC, u, at)
      if (x === undefined) return
      if (typeof x.image_url !== 'string') return void r.fail(`${at}.image_url`, 'an image URL (file ids are not supported)', x.image_url)
      const inline = fromDataUrl(x.image_url)
      parts.push(inline === undefined ? { type: 'image', url: x.image_url } : { type: 'image', data: inline.data, mediaType: inline.mediaType })
    } else if (tag === 'input_file') {
      const x = r.read(InputFileC, u, at)
      if (x === undefined) return
      const filename = x.filename === undefined ? {} : { filename: x.filename }
      const inline = x.file_data === undefined ? undefined : fromDataUrl(x.file_data)
      if (inline !== undefined) parts.push({ type: 'file', data: inline.data, mediaType: inline.mediaType, ...filename })
      else if (x.file_url !== undefined) parts.push({ type: 'file', url: x.file_url, mediaType: 'application/octet-stream', ...filename })
      else r.fail(`${at}.file_data`, 'a base64 data URL or a file_url', x.file_data)
    } else if (tag !== undefined) {
      r.fail(`${at}.type`, '"input_text" | "output_text" | "refusal" | "input_image" | "input_file"', tag)
    }
  })
  return parts
}

/** Folds items into messages, gathering consecutive assistant-side items into one message. */
const decodeItems = (r: Reader, items: ReadonlyArray<unknown>, path: string, fields: Partial<Message>): Message[] => {
  const out: Message[] = []
  const names = new Map<string, string>()
  let assistant: Part[] | undefined
  const close = (): void => {
    if (assistant !== undefined) out.push(fromMessage({ ...fields, role: 'assistant', parts: assistant, provider: 'openai' }))
    assistant = undefined
  }
  items.forEach((u, i) => {
    const at = `${path}[${i}]`
    const tag = isJsonObject(u) && u['type'] === undefined && 'role' in u ? 'message' : r.read(TaggedC, u, at)?.type
    if (tag === 'message') {
      const x = r.read(MessageItemC, u, at)
      if (x === undefined) return
      const parts = contentParts(r, x.content, `${at}.content`)
      if (x.role === 'assistant') (assistant ??= []).push(...parts)
      else {
        close()
        out.push(fromMessage({ role: x.role === 'user' ? 'user' : 'system', parts }))
      }
    } else if (tag === 'reasoning') {
      const x = r.read(ReasoningItemC, u, at)
      if (x === undefined) return
      const text = (x.summary ?? []).map((s) => s.text).join('\n\n')
      const token = referenceOf(x.id, x.encrypted_content)
      ;(assistant ??= []).push(text === '' ? { type: 'reasoning', text: token, redacted: true } : { type: 'reasoning', text, signature: token })
    } else if (tag === 'function_call') {
      const x = r.read(FunctionCallC, u, at)
      if (x === undefined) return
      names.set(x.call_id, x.name)
      ;(assistant ??= []).push({ type: 'tool_call', id: x.call_id, name: x.name, arguments: x.arguments, status: 'complete' })
    } else if (tag === 'function_call_output') {
      const x = r.read(FunctionOutputC, u, at)
      if (x === undefined) return
      close()
      const content = typeof x.output === 'string' ? x.output : contentParts(r, x.output, `${at}.output`).map((p) => (p.type === 'text' ? p.text : '')).join('')
      const name = names.get(x.call_id)
      out.push(fromMessage({ role: 'tool', parts: [{ type: 'tool_result', toolCallId: x.call_id, content, isError: false, ...(name === undefined ? {} : { name }) }] }))
    } else if (tag !== undefined) {
      r.fail(`${at}.type`, '"message" | "reasoning" | "function_call" | "function_call_output"', tag)
    }
  })
  close()
  return out
}

const RequestC = t.type({ input: t.union([t.string, t.array(t.unknown)]) }, 'a response request with input')

/**
 * Decodes the `input` of a Responses request (`{ input }`, as `toOpenAIResponses` writes it, or any
 * request body) into a history. Consecutive reasoning, assistant message and function call items
 * make one assistant message with `provider: 'openai'`; each `function_call_output` a tool
 * message. A string `input` is one user message. Every bad field is reported by path.
 *
 * @example
 * import { fromOpenAIResponses } from 'chatfold'
 * fromOpenAIResponses({ input: [
 *   { type: 'message', role: 'user', content: 'Weather in Paris?' },
 *   { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
 *   { type: 'function_call_output', call_id: 'call_1', output: '18°C' },
 * ] })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromOpenAIResponses = (u: unknown): E.Either<DecodeFailure, Messages> => {
  const r = reader()
  const request = r.read(RequestC, u, '')
  if (request === undefined) return r.done([])
  if (typeof request.input === 'string') return r.done([fromMessage({ role: 'user', parts: [{ type: 'text', text: request.input }] })])
  return r.done(settleStatuses(decodeItems(r, request.input, 'input', {})))
}

const ResponseC = t.intersection([
  t.type({ id: t.string, output: t.array(t.unknown) }),
  t.partial({
    model: t.string,
    status: optional(t.string),
    error: optional(t.type({ message: t.string, code: optional(t.string) })),
    incomplete_details: optional(t.partial({ reason: optional(t.string) })),
    usage: optional(t.intersection([t.type({ output_tokens: t.number }), t.partial({ output_tokens_details: optional(t.partial({ reasoning_tokens: t.number })) })])),
  }),
])

const ErrorBodyC = t.type({ error: t.intersection([t.type({ message: t.string }), t.partial({ type: optional(t.string) })]) })

/**
 * Decodes a Responses API response into one assistant message: its id, model, `provider: 'openai'`,
 * the parts of its output items, a finish part (`end_turn`, `tool_use` when it calls a function,
 * `max_tokens` or `content_filter` when incomplete) and its output tokens. A failed response, or
 * an error body, sets the message's `error`. Function calls are `pending`: nothing has run them yet.
 *
 * @example
 * import { fromOpenAIResponse } from 'chatfold'
 * fromOpenAIResponse({ id: 'resp_1', model: 'gpt-5', status: 'completed', output: [
 *   { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hi!', annotations: [] }] },
 * ] })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromOpenAIResponse = (u: unknown): E.Either<DecodeFailure, Message> => {
  const r = reader()
  if (ErrorBodyC.is(u) && !(isJsonObject(u) && 'output' in u)) {
    return r.done(fromMessage({ role: 'assistant', parts: [], provider: 'openai', error: errorText(u.error.type, u.error.message) }))
  }
  const x = r.read(ResponseC, u, '')
  if (x === undefined) return r.done(fromMessage({ role: 'assistant', parts: [] }))
  const decoded = decodeItems(r, x.output, 'output', {})
  const parts: Part[] = decoded.flatMap((m) => (m.role === 'assistant' ? m.parts : [])).map((p) => (p.type === 'tool_call' ? { ...p, status: 'pending' as const } : p))
  const incomplete = x.incomplete_details?.reason
  const reason =
    x.status === 'incomplete'
      ? incomplete === 'max_output_tokens'
        ? 'max_tokens'
        : (incomplete ?? 'incomplete')
      : x.status === 'completed'
        ? parts.some((p) => p.type === 'tool_call')
          ? 'tool_use'
          : 'end_turn'
        : undefined
  if (reason !== undefined) parts.push({ type: 'finish', reason })
  const thinking = x.usage?.output_tokens_details?.reasoning_tokens
  return r.done(
    fromMessage({
      id: x.id,
      role: 'assistant',
      parts,
      provider: 'openai',
      ...(x.model === undefined ? {} : { model: x.model }),
      ...(x.usage == null ? {} : { tokens: { total: x.usage.output_tokens, ...(thinking === undefined ? {} : { thinking }) } }),
      ...(x.error == null ? {} : { error: errorText(x.error.code, x.error.message) }),
    }),
  )
}
