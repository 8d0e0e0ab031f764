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
 * What only OpenAI knows is kept: an item's other fields (`id`, `status`, `phase`, annotations, …)
 * under `providerFields.openai` of the parts it became (see `_vocab.ts`), put back as they
 * were; a custom tool call is a tool call whose arguments are `{"input": …}`, written back as the
 * custom call it was; every other item type (web search, code interpreter, image generation, MCP,
 * shell and patch calls, compaction, item references, …) is a provider part written back verbatim,
 * in its place. A provider part of another provider is mapped or left out before (`foreign.ts`).
 *
 * The API cannot carry a tool result's error flag or images in assistant messages: the report says
 * when one was lost.
 *
 * @module
 */
import type { Part, ProviderPart, ReasoningPart, TextPart, ToolCallPart, ToolResultBlock, ToolResultPart } from '../../message/part-model.ts'
import type { Message, Messages } from '../../message/message.ts'
import { type Context, convertWith, foreignReasoning, idFor, type IdRule, isNative, omitPart } from '../convert.ts'
import { parseJson, systemAfterResults } from '../tool-turns.ts'
import { imageType, toDataUrl } from '../media.ts'
import type { AdapterOptions, AdapterResult } from '../types.ts'
import { isResponsesCallId, openAIResponsesRules } from './rules.ts'
import { isResponsesContent, isResponsesItemKind, messageFields, openAIFields, without } from './_vocab.ts'
import { openAIPortable } from './foreign.ts'
import { applyRules, noteFix } from '../rules-kit.ts'
import { isObject } from '../../internal/object.ts'

// --- wire ---

/**
 * A content part of a Responses input message.
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
 * request passes straight to the SDK. An item read by `fromOpenAIResponses` goes back as it came,
 * with the fields it had (`id`, `status`, annotations, …); an item type only OpenAI knows (web
 * search, code interpreter, compaction, item references, …) goes back verbatim: such items are the
 * SDK's own `ResponseInputItem` members, typed here by the members chatfold writes itself.
 *
 * @example
 * import type { OpenAIResponsesItem } from 'chatfold/adapters'
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
  | { readonly type: 'custom_tool_call'; readonly call_id: string; readonly name: string; readonly input: string }
  | { readonly type: 'custom_tool_call_output'; readonly call_id: string; readonly output: string }
  | {
    readonly type: 'reasoning'
    readonly id: string
    readonly summary: Array<{ readonly type: 'summary_text'; readonly text: string }>
    readonly encrypted_content?: string
  }

/**
 * The request fields `toOpenAIResponses` produces: spread them into `client.responses.create`.
 * `instructions` is there when the history holds the instructions a request was read with.
 *
 * @example
 * import type { OpenAIResponsesRequest } from 'chatfold/adapters'
 * const request: OpenAIResponsesRequest = { input: [{ type: 'message', role: 'user', content: 'Hi' }] }
 *
 * @since 0.1.0
 * @category adapters
 */
export type OpenAIResponsesRequest = { readonly input: Array<OpenAIResponsesItem>; readonly instructions?: string }

/**
 * Options of `toOpenAIResponses`: the shared ones and the role system messages go out with
 * (`system` by default, or `developer`).
 *
 * @example
 * import type { OpenAIResponsesOptions } from 'chatfold/adapters'
 * const options: OpenAIResponsesOptions = { systemRole: 'developer' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type OpenAIResponsesOptions = AdapterOptions & { readonly systemRole?: 'system' | 'developer' }

/**
 * An item written from what OpenAI sent (a kept item, or a mapped one with its fields put back):
 * an SDK `ResponseInputItem` member, which `src/` does not import, so typed by the item union.
 */
const sent = (item: unknown): OpenAIResponsesItem => item as OpenAIResponsesItem

const contentSent = (part: unknown): OpenAIResponsesContent => part as OpenAIResponsesContent

// --- reasoning token ---

type ReasoningRef = { readonly id?: string; readonly encrypted_content?: string }

/**
 * The signature token of a reasoning item: `{"id":…,"encrypted_content":…}`, either may be
 * absent (the API takes a reasoning item without an id).
 */
export const referenceOf = (id: string | undefined, encrypted: string | null | undefined): string =>
  JSON.stringify({ ...(id === undefined ? {} : { id }), ...(typeof encrypted === 'string' ? { encrypted_content: encrypted } : {}) })

/** The reasoning item a signature token names; `undefined` for any other signature. */
const parseReference = (signature: string): ReasoningRef | undefined => {
  const parsed = parseJson(signature)
  if (parsed === undefined || !isObject(parsed.value)) return undefined
  const { id, encrypted_content, ...rest } = parsed.value
  if (
    Object.keys(rest).length > 0 || (id !== undefined && typeof id !== 'string') || (encrypted_content !== undefined && typeof encrypted_content !== 'string')
  ) return undefined
  if (id === undefined && encrypted_content === undefined) return undefined
  return { ...(typeof id === 'string' ? { id } : {}), ...(typeof encrypted_content === 'string' ? { encrypted_content } : {}) }
}

// --- to ---

/** Call ids of 1 to 64 characters (the limit of `function_call_output.call_id`). */
const responsesIds: IdRule = {
  valid: isResponsesCallId,
  fix: (id) => (id === '' ? 'call' : id.slice(0, 56)),
}

/** Keys a content part's residue may not override: what the part itself holds. */
const residueOf = (p: Part): Readonly<Record<string, unknown>> => {
  const f = openAIFields(p)
  return f === undefined ? {} : without(f, 'item', 'continues')
}

/** A provider part of OpenAI's other API (Chat Completions): mapped by the portable rules, or left out. */
export const foreignOpenAI = (context: Context, m: Message, p: ProviderPart): ReadonlyArray<Part> => {
  const r = openAIPortable.part(p)
  if (r.kind === 'drop') {
    context.notes.push({ kind: 'provider_part_dropped', messageId: m.id, provider: 'openai', type: p.kind, reason: r.reason })
    return []
  }
  context.notes.push({ kind: 'provider_part_mapped', messageId: m.id, provider: 'openai', type: p.kind, to: r.parts.map((x) => x.type) })
  return r.parts
}

const contentPart = (context: Context, m: Message, p: Part): OpenAIResponsesContent | undefined => {
  const f = residueOf(p)
  const own = isResponsesContent(f['type']) ? f : without(f, 'type')
  switch (p.type) {
    case 'text':
      return contentSent({ type: 'input_text', ...own, text: p.text })
    case 'image': {
      if (p.url !== undefined) return contentSent({ type: 'input_image', image_url: p.url, detail: 'auto', ...own })
      const mediaType = imageType(p)
      if (p.data !== undefined && mediaType !== undefined)
        return contentSent({ type: 'input_image', image_url: toDataUrl(mediaType, p.data), detail: 'auto', ...own })
      return omitPart(context, m, p, 'an image of unknown type')
    }
    case 'file': {
      const filename = p.filename === undefined ? {} : { filename: p.filename }
      if (p.data !== undefined) return contentSent({ type: 'input_file', ...own, file_data: toDataUrl(p.mediaType, p.data), ...filename })
      if (p.url !== undefined) return contentSent({ type: 'input_file', ...own, file_url: p.url, ...filename })
      return undefined
    }
    default:
      return omitPart(context, m, p, `not ${m.role} content in the Responses API`)
  }
}

const reasoningItems = (context: Context, m: Message, p: ReasoningPart, previous: unknown): ReadonlyArray<OpenAIResponsesItem> | 'joined' => {
  const native = isNative(context, m)
  const token = p.redacted === true ? p.text : p.signature
  const ref = native && token !== undefined ? parseReference(token) : undefined
  if (ref === undefined) {
    return foreignReasoning(context, m, p, native ? 'unsigned' : 'foreign').map((x) => ({ type: 'message', role: 'assistant', content: x.text }))
  }
  const f = openAIFields(p)
  const summary = p.redacted === true || p.text === '' ? [] : [{ type: 'summary_text' as const, text: p.text }]
  // the parts of one reasoning item (one a summary) go back as that one item
  const sameItem = isObject(previous) && previous['type'] === 'reasoning' && (ref.id === undefined ? f?.['continues'] === true : previous['id'] === ref.id)
  if (sameItem && Array.isArray(previous['summary'])) {
    // `previous` is the item this conversion has just written: it grows in place
    const item = previous as Record<string, unknown>
    ;(previous['summary'] as unknown[]).push(...summary)
    if (item['encrypted_content'] === undefined && ref.encrypted_content !== undefined) item['encrypted_content'] = ref.encrypted_content
    return 'joined'
  }
  return [
    sent({
      type: 'reasoning',
      ...(f === undefined ? {} : without(f, 'continues')),
      ...(ref.id === undefined ? {} : { id: ref.id }),
      summary,
      ...(ref.encrypted_content === undefined ? {} : { encrypted_content: ref.encrypted_content }),
    }),
  ]
}

/** The input of a custom tool call from its arguments `{"input": …}`; the raw arguments otherwise. */
export const customInput = (args: string): string => {
  const parsed = parseJson(args)
  return parsed !== undefined && isObject(parsed.value) && typeof parsed.value['input'] === 'string' && Object.keys(parsed.value).length === 1
    ? parsed.value['input']
    : args
}

const callItem = (context: Context, p: ToolCallPart): OpenAIResponsesItem => {
  const f = openAIFields(p)
  const call_id = idFor(context, p.id)
  if (f?.['type'] === 'custom_tool_call' || f?.['type'] === 'custom') {
    const own = f['type'] === 'custom_tool_call' ? f : {}
    return sent({ ...own, type: 'custom_tool_call', call_id, name: p.name, input: customInput(p.arguments) })
  }
  return sent({ ...(f?.['type'] === 'function_call' ? f : {}), type: 'function_call', call_id, name: p.name, arguments: p.arguments })
}

/** The text an output list holds (what `fromOpenAIResponses` makes the result's content). */
export const outputText = (output: ReadonlyArray<unknown>): string =>
  output.map((x) => (isObject(x) && (x['type'] === 'input_text' || x['type'] === 'output_text') && typeof x['text'] === 'string' ? x['text'] : '')).join('')

/** A result's blocks as an output list: `input_text`, `input_image`, `input_file` (and OpenAI's own content kept as it came). */
const outputList = (context: Context, m: Message, blocks: ReadonlyArray<ToolResultBlock>): OpenAIResponsesContent[] => {
  const out: OpenAIResponsesContent[] = []
  for (const b of blocks) {
    const c = b.type === 'provider'
      ? b.provider === 'openai' && isResponsesContent(b.kind) && isObject(b.data)
        ? contentSent(b.data)
        : omitPart(context, m, b, 'not function output content in the Responses API')
      : contentPart(context, m, b)
    if (c !== undefined) out.push(c)
  }
  return out
}

const outputItem = (context: Context, m: Message, p: ToolResultPart): OpenAIResponsesItem => {
  const f = openAIFields(p)
  const own = f?.['type'] === 'function_call_output' || f?.['type'] === 'custom_tool_call_output' ? f : { type: 'function_call_output' }
  if (typeof p.content !== 'string') return sent({ ...own, call_id: idFor(context, p.toolCallId), output: outputList(context, m, p.content) })
  // a list output goes back as the list while the text it holds is unchanged
  const list = own['output']
  const output = Array.isArray(list) && outputText(list) === p.content ? list : p.content
  return sent({ ...own, call_id: idFor(context, p.toolCallId), output })
}

/** Writes an assistant text part: its own message item, or a part of the message item before it. */
const textItem = (p: TextPart, open: { content: unknown[] } | undefined): { readonly item?: OpenAIResponsesItem; readonly open?: { content: unknown[] } } => {
  const f = openAIFields(p)
  const item = f !== undefined && isObject(f['item']) ? f['item'] : undefined
  // a Chat Completions refusal (its `refusal` field) is a refusal part
  const type = f?.['refusal'] === 'field' ? 'refusal' : f?.['type']
  if (type === 'output_text' || type === 'input_text' || type === 'refusal') {
    const rest = f?.['refusal'] === 'field' ? {} : without(f ?? {}, 'item', 'continues', 'type')
    const part = type === 'refusal' ? { type, ...rest, refusal: p.text } : { type, ...rest, text: p.text }
    if (item === undefined && open !== undefined) {
      open.content.push(part)
      return { open }
    }
    const next = { ...(item ?? { type: 'message', role: 'assistant' }), content: [part] }
    return { item: sent(next), open: next }
  }
  return { item: sent({ ...(item ?? { type: 'message', role: 'assistant' }), content: p.text }) }
}

/** The items of an assistant message, in order. */
export const assistantItems = (context: Context, m: Message): ReadonlyArray<OpenAIResponsesItem> => {
  const items: OpenAIResponsesItem[] = []
  let open: { content: unknown[] } | undefined
  const push = (...xs: ReadonlyArray<OpenAIResponsesItem>): void => {
    items.push(...xs)
    open = undefined
  }
  for (const p of m.parts) {
    if (p.type === 'text') {
      const r = textItem(p, open)
      if (r.item !== undefined) push(r.item)
      open = r.open
    } else if (p.type === 'reasoning') {
      const r = reasoningItems(context, m, p, items[items.length - 1])
      if (r !== 'joined') push(...r)
    } else if (p.type === 'tool_call') push(callItem(context, p))
    else if (p.type === 'provider' && p.provider === 'openai' && isResponsesItemKind(p.kind)) push(sent(p.data))
    else if (p.type === 'provider' && p.provider === 'openai') {
      for (const x of foreignOpenAI(context, m, p))
        x.type === 'text'
          ? push({ type: 'message', role: 'assistant', content: x.text })
          : omitPart(context, m, x, 'not assistant content in the Responses API')
    } else if (p.type !== 'finish') omitPart(context, m, p, 'not assistant content in the Responses API')
  }
  if (items.length === 0) context.notes.push({ kind: 'omitted_message', messageId: m.id, reason: 'empty' })
  return items
}

/** The one item of a system or user message; a message kept whole goes back verbatim. */
export const messageItem = (context: Context, m: Message, systemRole: 'system' | 'developer'): OpenAIResponsesItem => {
  const only = m.parts[0]
  if (m.parts.length === 1 && only?.type === 'provider' && only.provider === 'openai' && only.kind === 'message') return sent(only.data)
  const parts: Array<OpenAIResponsesContent> = []
  const add = (p: Part): void => {
    if (p.type === 'provider' && p.provider === 'openai' && isResponsesContent(p.kind)) parts.push(contentSent(p.data))
    else if (p.type === 'provider' && p.provider === 'openai') foreignOpenAI(context, m, p).forEach(add)
    else {
      const part = m.role === 'system' && p.type !== 'text' ? omitPart(context, m, p, 'not system content') : contentPart(context, m, p)
      if (part !== undefined) parts.push(part)
    }
  }
  m.parts.forEach(add)
  const first = m.parts[0]
  // one text without fields goes as a string; a text read from a content list keeps its `type`
  const plain = parts.length === 1 && first?.type === 'text' && openAIFields(first) === undefined
  const content = plain ? (first as TextPart).text : parts.length === 0 ? '' : parts
  const envelope = messageFields(m, 'item') ??
    { type: 'message', role: m.role === 'system' ? (messageFields(m, 'message')?.['role'] === 'developer' ? 'developer' : systemRole) : 'user' }
  return sent({ ...envelope, content })
}

/** The items of one message, in order. */
export const itemsOfMessage = (context: Context, m: Message, systemRole: 'system' | 'developer'): ReadonlyArray<OpenAIResponsesItem> => {
  // a Chat Completions message's own fields (name, audio, function_call, …) have no place in an item
  const chat = Object.keys(messageFields(m, 'message') ?? {}).filter((k) => k !== 'role' && k !== 'chatfold')
  if (chat.length > 0) context.notes.push({ kind: 'provider_fields_dropped', messageId: m.id, provider: 'openai', part: 'message', fields: chat })
  if (m.role === 'assistant') return assistantItems(context, m)
  if (m.role !== 'tool') return [messageItem(context, m, systemRole)]
  const items: OpenAIResponsesItem[] = []
  for (const p of m.parts) {
    if (p.type === 'tool_result') {
      if (p.isError) context.notes.push({ kind: 'error_flag_lost', messageId: m.id, toolCallId: p.toolCallId })
      items.push(outputItem(context, m, p))
    } else if (p.type === 'provider' && p.provider === 'openai' && isResponsesItemKind(p.kind)) items.push(sent(p.data))
    else omitPart(context, m, p, 'not tool content in the Responses API')
  }
  return items
}

/** Whether a system message holds a request's `instructions` (read by `fromOpenAIResponses`). */
export const isInstructions = (m: Message): boolean => {
  const all = m.metadata?.['providerFields']
  const own = isObject(all) ? all['openai'] : undefined
  return m.role === 'system' && isObject(own) && own['instructions'] === true
}

/** Whether a user message is a request's string `input` (read by `fromOpenAIResponses`). */
export const isStringInput = (m: Message): boolean => {
  const all = m.metadata?.['providerFields']
  const own = isObject(all) ? all['openai'] : undefined
  return m.role === 'user' && isObject(own) && own['input'] === 'string'
}

const convert = (context: Context, ms: Messages, options: OpenAIResponsesOptions): OpenAIResponsesRequest => {
  const systemRole = options.systemRole ?? 'system'
  const first = ms.find(isInstructions)
  const instructions = first?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')
  const input = ms.flatMap((m) => (m === first ? [] : itemsOfMessage(context, m, systemRole)))
  return instructions === undefined ? { input } : { instructions, input }
}

/**
 * Converts a history to the `input` items of an OpenAI Responses request. The history goes
 * through `forLLM` and the tool-pair check first; the result says what could not be carried.
 * A history read by `fromOpenAIResponses` goes back as the items it was read from (after
 * `forLLM`: what precedes a `compaction` item, but system messages, is left out, as the API does).
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
export const toOpenAIResponses = (options: OpenAIResponsesOptions = {}) => (ms: Messages): AdapterResult<OpenAIResponsesRequest> =>
  convertWith('openai-responses', options, responsesIds, ms, (context, messages) =>
    applyRules(
      openAIResponsesRules,
      convert(context, systemAfterResults(messages, (m) => noteFix(context, 'openai-responses/outputs-follow-calls', `(message ${m.id})`, 'moved')), options),
      context,
    ))
