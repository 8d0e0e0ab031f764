/**
 * Vercel AI SDK UI messages (`UIMessage[]`, what `useChat` holds and most AI SDK apps store): a
 * history to UI messages (`toUIMessages`). A user or system message is one UI message; an assistant
 * turn (its steps and the tool results between them) is one assistant UI message, each step opened by
 * a `step-start` part, each tool call a `tool-{name}` part whose state says what became of it:
 * `input-available` while no result answers it, `output-available` with the result, `output-error`
 * with an error result's text. Reasoning signatures go under each provider's key of
 * `providerMetadata` (a Gemini signature on the part it came with, `callProviderMetadata` for a tool
 * call). Message ids, UI metadata, data and source parts and JSON tool outputs that `fromUIMessages`
 * kept in a message's `metadata.ui` come back where they were. A provider's server tools (an
 * Anthropic `server_tool_use` with its result, an OpenAI hosted tool's item) are `dynamic-tool`
 * parts with `providerExecuted: true`, the provider's blocks carried in
 * `callProviderMetadata.chatfold` for `fromUIMessages`. Another provider's other parts and fields
 * become what every other target makes of them (`forTarget`), with the same notes.
 *
 * @module
 */
import { toolResultText } from '../../message/tool-result-content.ts'
import { contentOfBlocks } from './_tool-content.ts'
import { isInternal } from '../../message/accessors.ts'
import { type Message, type Messages } from '../../message/message.ts'
import type { Part, ToolResultPart } from '../../message/part-model.ts'
import { type Context, newContext, omitPart } from '../convert.ts'
import { forTarget } from '../foreign.ts'
import { sourcesOf, type SourceUrlPart } from './_ui-sources.ts'
import { withServerTools } from './_server-tools.ts'
import { parseJson } from '../tool-turns.ts'
import { imageType, toDataUrl } from '../media.ts'
import { aiFields, type AIProviderOptions, assistantContent, mergeOptions } from './model-messages.ts'
import type { AdapterOptions, AdapterResult } from '../types.ts'
import * as E from 'fp-ts/Either'
import { isObject } from '../../internal/object.ts'

// --- wire ---

/**
 * A tool part of a UI message (`tool-{name}`), in one of the states `toUIMessages` writes.
 *
 * @since 0.1.0
 * @category adapters
 */
export type AIUIToolPart =
  & ({ readonly type: `tool-${string}` } | { readonly type: 'dynamic-tool'; readonly toolName: string })
  & {
    readonly toolCallId: string
    readonly input: unknown
    readonly callProviderMetadata?: AIProviderOptions
  }
  & (
    | { readonly state: 'input-available' }
    | { readonly state: 'output-available'; readonly output: unknown }
    | { readonly state: 'output-error'; readonly errorText: string }
    | { readonly state: 'output-denied'; readonly approval: { readonly id: string; readonly approved: false; readonly reason?: string } }
  )

/**
 * A part of a UI message, as `toUIMessages` writes it (data and source parts kept by
 * `fromUIMessages` come back as they were).
 *
 * @example
 * import type { AIUIPart } from 'chatfold/adapters'
 * const part: AIUIPart = { type: 'text', text: 'Hi', state: 'done' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type AIUIPart =
  | { readonly type: 'text'; readonly text: string; readonly state?: 'done' | 'streaming'; readonly providerMetadata?: AIProviderOptions }
  | { readonly type: 'reasoning'; readonly text: string; readonly state?: 'done' | 'streaming'; readonly providerMetadata?: AIProviderOptions }
  | { readonly type: 'file'; readonly mediaType: string; readonly url: string; readonly filename?: string; readonly providerMetadata?: AIProviderOptions }
  | { readonly type: 'step-start' }
  | { readonly type: `data-${string}`; readonly id?: string; readonly data: unknown }
  | { readonly type: 'source-url'; readonly sourceId: string; readonly url: string; readonly title?: string }
  | AIUIToolPart

/**
 * An AI SDK `UIMessage`, as `toUIMessages` writes it.
 *
 * @example
 * import type { AIUIMessage } from 'chatfold/adapters'
 * const m: AIUIMessage = { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }
 *
 * @since 0.1.0
 * @category adapters
 */
export type AIUIMessage = {
  readonly id: string
  readonly role: 'system' | 'user' | 'assistant'
  readonly metadata?: unknown
  readonly parts: Array<AIUIPart>
  /** The legacy (v4) content of a message read with it, given back as it was. */
  readonly content?: unknown
}

/**
 * What `toUIMessages` produces and `fromUIMessages` reads: `{ messages }`, the `messages` of
 * `useChat` (or of a stored chat).
 *
 * @since 0.1.0
 * @category adapters
 */
export type AIUIMessages = { readonly messages: Array<AIUIMessage> }

/** What `fromUIMessages` keeps in a message's `metadata.ui` so that `toUIMessages` can restore it. */
export type UIKept = {
  readonly metadata?: unknown
  readonly parts?: ReadonlyArray<{ readonly at: number; readonly part: unknown }>
  readonly jsonOutputs?: ReadonlyArray<string>
  readonly content?: unknown
}

/** The `metadata.ui` of a message, when it holds one. */
export const keptOf = (m: Message): UIKept => {
  const ui = m.metadata?.['ui']
  return isObject(ui) ? (ui as UIKept) : {}
}

// --- to ---

type Building = { readonly id: string; readonly role: AIUIMessage['role']; readonly parts: AIUIPart[]; readonly kept: UIKept }

/** A text part's `state` as it came: `done` unless kept otherwise (`none`: it had none). */
const stateOf = (p: Part): { readonly state?: 'done' | 'streaming' } => {
  const state = aiFields(p)['state']
  return state === 'none' ? {} : state === 'streaming' ? { state: 'streaming' } : { state: 'done' }
}

/** The provider metadata of a part, when it has any. */
const metaOf = (options: AIProviderOptions | undefined): { readonly providerMetadata?: AIProviderOptions } =>
  options === undefined ? {} : { providerMetadata: options }

/** A user or system message's parts: text and files (images as files, bytes as data URLs). */
const plainParts = (context: Context, m: Message): AIUIPart[] => {
  const out: AIUIPart[] = []
  for (const p of m.parts) {
    const meta = metaOf(mergeOptions(undefined, aiFields(p)['providerOptions']))
    if (p.type === 'text') out.push({ type: 'text', text: p.text, ...(aiFields(p)['state'] === undefined ? {} : stateOf(p)), ...meta })
    else if (p.type === 'image' || p.type === 'file') {
      const file = filePart(p)
      if (file === undefined) omitPart(context, m, p, 'a file with neither bytes nor URL, or an image of unknown type')
      else out.push({ ...file, ...meta })
    } else if (p.type !== 'finish') omitPart(context, m, p, `not ${m.role} content in a UI message`)
  }
  return out
}

/** A file part: its URL, or its bytes as a data URL (with the media type the URL had). */
const filePart = (p: Part): Extract<AIUIPart, { readonly type: 'file' }> | undefined => {
  if (p.type !== 'image' && p.type !== 'file') return undefined
  const mediaType = p.type === 'image' ? (imageType(p) ?? (p.url === undefined ? undefined : 'image/*')) : p.mediaType
  if (mediaType === undefined) return undefined
  const inner = aiFields(p)['dataUrl']
  const url = p.url ?? (p.data === undefined ? undefined : toDataUrl(typeof inner === 'string' ? inner : mediaType, p.data))
  if (url === undefined) return undefined
  return { type: 'file', mediaType, url, ...(p.type === 'file' && p.filename !== undefined ? { filename: p.filename } : {}) }
}

/** A tool call as a UI tool part: its name or `dynamic-tool`, the state and fields `fromUIMessages` kept. */
const toolOf = (
  m: Message,
  part: { readonly toolCallId: string; readonly toolName: string; readonly input: unknown; readonly providerOptions?: AIProviderOptions },
): AIUIToolPart => {
  const call = m.parts.find((p) => p.type === 'tool_call' && p.id === part.toolCallId)
  const fields = call === undefined ? {} : aiFields(call)
  const ui = isObject(fields['ui']) ? fields['ui'] : {}
  const state = typeof fields['state'] === 'string' ? fields['state'] : 'input-available'
  return {
    type: fields['dynamic'] === true ? 'dynamic-tool' : `tool-${part.toolName}`,
    ...(fields['dynamic'] === true ? { toolName: part.toolName } : {}),
    toolCallId: part.toolCallId,
    state,
    ...(fields['noInput'] === true ? {} : { input: part.input }),
    ...ui,
    ...(part.providerOptions === undefined ? {} : { callProviderMetadata: part.providerOptions }),
  } as AIUIToolPart
}

/** An assistant message as one step of a UI message: `step-start`, then its parts. */
const stepParts = (context: Context, m: Message): AIUIPart[] => {
  const out: AIUIPart[] = [{ type: 'step-start' }]
  const sources: Array<Part | undefined> = []
  const parts = assistantContent(context, m, false, sources)
  parts.forEach((part, i) => {
    if (part.type === 'tool-result' || part.type === 'tool-approval-request') return
    const meta = metaOf(part.providerOptions)
    const from = sources[i]
    if (part.type === 'text' || part.type === 'reasoning') {
      const state = from === undefined ? { state: 'done' as const } : stateOf(from)
      out.push(part.type === 'text' ? { type: 'text', text: part.text, ...state, ...meta } : { type: 'reasoning', text: part.text, ...state, ...meta })
    } else if (part.type === 'file') {
      const url = typeof part.data === 'string' ? part.data : toDataUrl(part.mediaType, part.data)
      out.push({ type: 'file', mediaType: part.mediaType, url, ...(part.filename === undefined ? {} : { filename: part.filename }), ...meta })
    } else out.push(toolOf(m, part))
  })
  return out
}

/**
 * A result's output in a UI tool part: its text, or for blocks the AI SDK's `content` output
 * (`{ type: 'content', value: [...] }`, images and files as data or URL), which `fromUIMessages`
 * reads back as blocks.
 */
const outputOf = (context: Context, m: Message, p: ToolResultPart): unknown =>
  typeof p.content === 'string'
    ? p.content
    : { type: 'content', value: contentOfBlocks(p.content, (b) => omitPart(context, m, b, 'not tool result content in a UI message')) }

/** Answers the tool parts of the UI message being built with a tool message's results. */
const answer = (context: Context, m: Message, building: Building | undefined): void => {
  const json = new Set(keptOf(m).jsonOutputs ?? [])
  for (const p of m.parts) {
    if (p.type !== 'tool_result') {
      omitPart(context, m, p, 'not tool content in a UI message')
      continue
    }
    const at = building?.role === 'assistant' ? building.parts.findIndex((x) => 'toolCallId' in x && x.toolCallId === p.toolCallId) : -1
    const call = at < 0 ? undefined : (building?.parts[at] as AIUIToolPart)
    if (building === undefined || call === undefined) {
      omitPart(context, m, p, 'a result whose call is not in the assistant turn before it')
      continue
    }
    const parsed = json.has(p.toolCallId) || aiFields(p)['outputType'] === 'json' ? parseJson(toolResultText(p)) : undefined
    // a denied call keeps its state (its result is the reason, which the approval holds)
    if (call.state === 'output-denied') continue
    const { output: _o, errorText: _e, ...base } = call as AIUIToolPart & { readonly output?: unknown; readonly errorText?: unknown }
    building.parts[at] = (p.isError
      ? { ...base, state: 'output-error', errorText: toolResultText(p) }
      : { ...base, state: 'output-available', output: parsed === undefined ? outputOf(context, m, p) : parsed.value }) as AIUIToolPart
  }
}

/** A built UI message, with the parts and metadata `fromUIMessages` kept put back. */
const finish = (b: Building): AIUIMessage => {
  const kept = [...(b.kept.parts ?? [])].sort((x, y) => x.at - y.at)
  // a `source-url` part kept as it came stands in its place for the one a web search part gives again
  const keptSources = new Set(kept.flatMap(({ part }) => (isObject(part) && part['type'] === 'source-url' ? [part['sourceId']] : [])))
  const parts = b.parts.filter((p) => p.type !== 'source-url' || !keptSources.has(p.sourceId))
  for (const { at, part } of kept) parts.splice(Math.min(at, parts.length), 0, part as AIUIPart)
  return {
    id: b.id,
    role: b.role,
    ...(b.kept.metadata === undefined ? {} : { metadata: b.kept.metadata }),
    ...(b.kept.content === undefined ? {} : { content: b.kept.content }),
    parts,
  }
}

/**
 * Converts a history to AI SDK `UIMessage`s, for `useChat` or a stored chat: the inverse of
 * `fromUIMessages`, and the bridge from model messages to UI messages that the AI SDK does not offer.
 * Internal messages (display, bookmark, metadata) are left out; a call with no result yet is an
 * `input-available` tool part (no tool-pair check: a UI may hold a call still running). Tool-call
 * arguments that are not JSON fail the conversion, or with `repair: 'repair'` become `{}`.
 *
 * @example
 * import * as E from 'fp-ts/Either'
 * import { textMessage } from 'chatfold/message'
 * import { toUIMessages } from 'chatfold/adapters'
 * const r = toUIMessages()([textMessage('user', 'Hi'), textMessage('assistant', 'Hello!')])
 * if (E.isRight(r)) r.right.request.messages[1]?.parts // [{ type: 'step-start' }, { type: 'text', text: 'Hello!', state: 'done' }]
 *
 * @since 0.1.0
 * @category adapters
 */
export const toUIMessages = (options: AdapterOptions = {}) => (ms: Messages): AdapterResult<AIUIMessages> => {
  const context: Context = newContext('ai-sdk', options)
  const out: AIUIMessage[] = []
  let building: Building | undefined
  const close = (): void => {
    const b = building
    building = undefined
    if (b === undefined) return
    const m = finish(b)
    // a UI message must hold a part: one whose parts were all left out (each noted) goes too
    if (m.parts.length > 0) out.push(m)
    else context.notes.push({ kind: 'omitted_message', messageId: m.id, reason: 'empty' })
  }
  // another provider's parts and fields become what every other target makes of them (text, a call
  // and its result, sources), each with the same note
  // the pages a web search part lists also go as the `source-url` parts the AI SDK has for them
  const sources = new Map<Message, ReadonlyArray<SourceUrlPart>>()
  const portable = ms.flatMap((m) => {
    if (isInternal(m)) {
      context.notes.push({ kind: 'omitted_message', messageId: m.id, reason: 'not_for_llm' })
      return []
    }
    // a provider's server tools go as `dynamic-tool` parts, carrying its blocks for `fromUIMessages`
    const { message } = withServerTools(context.owner, m)
    const out = forTarget(context.owner, [message], context.notes)
    const pages = m.role === 'assistant' ? m.parts.flatMap((p) => (p.type === 'provider' && p.provider !== context.owner ? sourcesOf(p) : [])) : []
    const first = out[0]
    if (pages.length > 0 && first !== undefined) sources.set(first, pages)
    return out
  })
  for (const m of portable) {
    if (m.role === 'tool') answer(context, m, building)
    else if (m.role === 'assistant' && building?.role === 'assistant') building.parts.push(...stepParts(context, m), ...(sources.get(m) ?? []))
    else {
      close()
      const parts = m.role === 'assistant' ? [...stepParts(context, m), ...(sources.get(m) ?? [])] : plainParts(context, m)
      building = { id: m.id, role: m.role, parts, kept: keptOf(m) }
    }
  }
  close()
  return context.error !== undefined ? E.left(context.error) : E.right({ request: { messages: out }, report: { notes: context.notes } })
}
