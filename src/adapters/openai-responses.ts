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
import type { Part, ReasoningPart } from '../part.ts'
import type { Message, Messages } from '../message.ts'
import {
  type Context,
  convertWith,
  foreignReasoning,
  idFor,
  type IdRule,
  imageType,
  isNative,
  omitPart,
  parseJson,
  systemAfterResults,
  toDataUrl,
} from './shared.ts'
import type { AdapterOptions, AdapterResult } from './types.ts'
import { isResponsesCallId, joinReasoning, openAIResponsesRules } from './rules-openai.ts'
import { applyRules, noteFix } from './rules-kit.ts'
import { isObject } from '../internal/object.ts'

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
  if (parsed === undefined || !isObject(parsed.value)) return undefined
  const { id, encrypted_content } = parsed.value
  if (typeof id !== 'string') return undefined
  return typeof encrypted_content === 'string' ? { id, encrypted_content } : { id }
}

// --- to ---

/** Call ids of 1 to 64 characters (the limit of `function_call_output.call_id`). */
const responsesIds: IdRule = {
  valid: isResponsesCallId,
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
    else if (p.type === 'reasoning') {
      for (const item of reasoningItem(context, m, p)) {
        // the parts of one reasoning item (one a summary) go back as that one item
        const joined = joinReasoning(items[items.length - 1], item)
        if (joined === undefined) items.push(item)
        else items[items.length - 1] = joined as OpenAIResponsesItem
      }
    }
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
    convertWith('openai', options, responsesIds, ms, (context, messages) =>
      applyRules(
        openAIResponsesRules,
        convert(context, systemAfterResults(messages, (m) => noteFix(context, 'openai-responses/outputs-follow-calls', `(message ${m.id})`, 'moved')), options),
        context,
      ),
    )
