/**
 * The Claude.ai data export (`conversations.json`) read as histories, one per conversation.
 *
 * Each conversation is `{ uuid, name, created_at, chat_messages }`; each message `{ uuid, sender:
 * 'human' | 'assistant', created_at, text, content, attachments, files, parent_message_uuid? }`.
 *
 * - **Content** blocks, in order: `text` (its `citations`, when there are any, kept in the
 *   `metadata.citations` of the message holding it, counted in a note); `thinking` (a reasoning part, with its `signature` when
 *   the export has one, else its `summaries`); `tool_use` (a tool call: `id`, else one made of the
 *   message id and the block's place) and `tool_result` (its result, by `tool_use_id`, else the last
 *   open call of that `name`; its entries' text, and an `image` entry with a base64 or URL
 *   `source`, as an MCP screenshot comes, an image block of the result; its `structured_content`
 *   (an MCP tool's structured value) and `meta` (`output_format_category`), when not null, kept as
 *   they came in the tool message's `metadata.toolResult`, counted in a note). A block's other
 *   fields that are not null (its times, an MCP call's `integration_name`, `mcp_server_url`,
 *   `tool_origin`, `display_content`, a thinking block's `cut_off`) are kept as they came: a
 *   result's in `metadata.toolResult`, a call's in its message's `metadata.toolCalls` (by call id),
 *   a text or thinking block's in `metadata.blockFields` (with the block's place), each counted in
 *   a note. The app runs its tools
 *   itself, so a reply holds its calls and their results together: the reply is split around them
 *   into an assistant message, a tool message, an assistant message. A message without `content`
 *   reads its `text`.
 * - **A call without a result** in the export (the `artifacts` tool writes none) is followed by a
 *   `synthetic` tool message saying so (`metadata.origin = 'export'`), so every target pairs it; a
 *   note counts them.
 * - **Attachments** (`file_name`, `file_size`, `file_type`, `extracted_content`): the extracted text,
 *   which the app sent with the message, is a text part of it; the rest is kept in
 *   `metadata.attachments`. **Files** (images and documents the export does not hold) are kept in
 *   `metadata.files` and counted in a note.
 * - **Branches**: when messages name their `parent_message_uuid`, the history is the chain up from
 *   the last message; the other branches are counted, or read after it as `display` messages with
 *   `metadata.branch` (`branches: 'all'`).
 * - Blocks of other types (`token_budget`, …) are kept as they came in `metadata.blocks` and named
 *   in a note. Assistant messages carry `provider: 'anthropic'` (the export names no model).
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../message/failure.ts'
import type { Message } from '../message/message.ts'
import type { Part, ToolResultBlock, ToolResultContent } from '../message/part-model.ts'
import { isObject } from '../internal/object.ts'
import type { ChatExportConversation } from './chat-export.ts'
import type { ChatExportOptions } from './chatgpt.ts'
import { imagePart } from './_claude-code-records.ts'
import { type Draft, draft, messagesOf, sessionRead } from './_draft.ts'
import { at, counter, type Fields, optStr, type Rec } from './_fields.ts'
import { NO_RESULT, otherBranchesNote, readConversations, unansweredNote } from './_conversations.ts'

type Tally = {
  readonly other: ReturnType<typeof counter>
  readonly files: ReturnType<typeof counter>
  readonly resultFields: ReturnType<typeof counter>
  readonly callFields: ReturnType<typeof counter>
  readonly blockFields: ReturnType<typeof counter>
  unanswered: number
  citations: number
}

/** The fields each block type is read into parts by; any other field that is not null is kept in metadata. */
const READ_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  text: new Set(['type', 'text', 'citations']),
  thinking: new Set(['type', 'thinking', 'signature', 'summaries']),
  tool_use: new Set(['type', 'id', 'name', 'input']),
  tool_result: new Set(['type', 'tool_use_id', 'name', 'content', 'is_error']),
}

/** A block's fields that are not read into its part and not null, as they came (counted in `tally`). */
const extrasOf = (b: Rec, tally: ReturnType<typeof counter>): Record<string, unknown> => {
  const read = READ_FIELDS[optStr(b, 'type') ?? ''] ?? new Set<string>()
  const extras = Object.fromEntries(Object.entries(b).filter(([key, value]) => !read.has(key) && value != null))
  for (const key of Object.keys(extras)) tally.add(key)
  return extras
}

const resultText = (c: unknown): string =>
  typeof c === 'string' ? c : Array.isArray(c)
    ? c
      .flatMap((x: unknown) =>
        isObject(x) && typeof x['text'] === 'string'
          ? [[x['title'], x['url'], x['text']].filter((s): s is string => typeof s === 'string' && s !== '').join('\n')]
          : isObject(x)
          ? [JSON.stringify(x)]
          : []
      )
      .join('\n\n')
    : c === undefined
    ? ''
    : JSON.stringify(c)

/** An `image` entry of a tool result as an image block, when its source can be read. */
const imageOf = (x: unknown): ToolResultBlock | undefined => {
  const p = isObject(x) && x['type'] === 'image' ? imagePart(x) : undefined
  return p?.type === 'image' ? p : undefined
}

/**
 * A tool result's content: its text, or when it holds an image (an MCP screenshot) its entries in
 * order, each text entry as its text and each image as an image block.
 */
const resultContent = (c: unknown): ToolResultContent =>
  Array.isArray(c) && c.some((x) => imageOf(x) !== undefined)
    ? c.flatMap((x: unknown): ToolResultBlock[] => {
      const image = imageOf(x)
      if (image !== undefined) return [image]
      const text = resultText([x])
      return text === '' ? [] : [{ type: 'text', text }]
    })
    : resultText(c)

/** The drafts of one message: a human message is one user draft; a reply is split around its tool results. */
const draftsOf = (f: Fields, m: Rec, path: string, t: Tally): Draft[] => {
  const id = optStr(m, 'uuid') ?? path
  const sender = optStr(m, 'sender')
  if (sender !== 'human' && sender !== 'assistant') {
    f.fail(`${path}.sender`, '"human" | "assistant"', m['sender'])
    return []
  }
  const when = at(m['created_at'])
  const blocks = Array.isArray(m['content']) && m['content'].length > 0 ? m['content'] : [{ type: 'text', text: optStr(m, 'text') ?? '' }]
  const extra: Record<string, unknown> = {}
  const out: Draft[] = []
  let parts: Part[] = []
  let k = 0
  const open: Array<{ id: string; name: string }> = []
  // the citations of the text blocks of the run being built, kept on the message that holds them,
  // with its calls' fields beside name and input and its text and thinking blocks' other fields
  let cites: unknown[] = []
  let callFields: Record<string, Record<string, unknown>> = {}
  let blockFields: Array<Record<string, unknown>> = []
  const flush = (): void => {
    if (parts.length > 0)
      out.push(
        draft({
          id: k === 0 ? id : `${id}.${k}`,
          role: sender === 'human' ? 'user' : 'assistant',
          parts,
          ...when,
          ...(sender === 'assistant' ? { provider: 'anthropic' } : {}),
          metadata: {
            ...(cites.length === 0 ? {} : { citations: cites }),
            ...(Object.keys(callFields).length === 0 ? {} : { toolCalls: callFields }),
            ...(blockFields.length === 0 ? {} : { blockFields }),
          },
        }),
      )
    if (parts.length > 0) k++
    parts = []
    cites = []
    callFields = {}
    blockFields = []
  }
  /** Keeps a text or thinking block's other fields (its times, a thinking block cut off), by the block's place in the message. */
  const keepBlockFields = (b: Rec, i: number): void => {
    const extras = extrasOf(b, t.blockFields)
    if (Object.keys(extras).length > 0) blockFields.push({ block: i, type: b['type'], ...extras })
  }
  const answer = (results: Part[], metadata?: Record<string, unknown>): void => {
    flush()
    out.push(draft({ id: `${id}.r${k}`, role: 'tool', parts: results, ...when, ...(metadata === undefined ? {} : { metadata }) }))
    k++
  }
  const others: Rec[] = []
  blocks.forEach((u: unknown, i: number) => {
    const b = f.obj(u, `${path}.content[${i}]`)
    if (b === undefined) return
    const type = optStr(b, 'type')
    if (type === 'text') {
      const text = optStr(b, 'text') ?? ''
      if (text !== '') parts.push({ type: 'text', text })
      if (Array.isArray(b['citations']) && b['citations'].length > 0) {
        cites.push(...b['citations'])
        t.citations += b['citations'].length
      }
      keepBlockFields(b, i)
    } else if (type === 'thinking') {
      const signature = optStr(b, 'signature')
      const summaries = Array.isArray(b['summaries'])
        ? b['summaries'].flatMap((s: unknown) => (isObject(s) && typeof s['summary'] === 'string' ? [s['summary']] : []))
        : []
      parts.push({ type: 'reasoning', text: optStr(b, 'thinking') ?? summaries.join('\n'), ...(signature === undefined ? {} : { signature }) })
      keepBlockFields(b, i)
    } else if (type === 'tool_use') {
      const callId = optStr(b, 'id') ?? `${id}-${i}`
      const name = optStr(b, 'name') ?? 'tool'
      parts.push({
        type: 'tool_call',
        id: callId,
        name,
        arguments: JSON.stringify(isObject(b['input']) ? b['input'] : { input: b['input'] ?? null }),
        status: 'complete',
      })
      open.push({ id: callId, name })
      const extras = extrasOf(b, t.callFields)
      if (Object.keys(extras).length > 0) callFields[callId] = extras
    } else if (type === 'tool_result') {
      const byId = optStr(b, 'tool_use_id')
      const name = optStr(b, 'name')
      const call = open.find((c) => c.id === byId) ?? [...open].reverse().find((c) => c.name === name) ?? open[open.length - 1]
      if (call === undefined) {
        others.push(b)
        t.other.add('tool_result without a call')
        return
      }
      open.splice(open.indexOf(call), 1)
      const fields = extrasOf(b, t.resultFields)
      answer(
        [{ type: 'tool_result', toolCallId: call.id, name: call.name, content: resultContent(b['content']), isError: b['is_error'] === true }],
        Object.keys(fields).length === 0 ? undefined : { toolResult: fields },
      )
    } else {
      others.push(b)
      t.other.add(type ?? 'untyped')
    }
  })
  if (open.length > 0) {
    t.unanswered += open.length
    answer(
      open.map((c): Part => ({ type: 'tool_result', toolCallId: c.id, name: c.name, content: NO_RESULT, isError: false })),
    )
    const last = out[out.length - 1] as Draft
    out[out.length - 1] = { ...last, kind: 'synthetic', metadata: { ...last.metadata, origin: 'export' } }
  }
  if (Array.isArray(m['attachments']) && m['attachments'].length > 0) {
    const as = m['attachments'].filter(isObject)
    for (const a of as)
      if (typeof a['extracted_content'] === 'string' && a['extracted_content'] !== '') parts.push({ type: 'text', text: a['extracted_content'] })
    extra['attachments'] = as.map((a) => Object.fromEntries(Object.entries(a).filter(([key]) => key !== 'extracted_content')))
  }
  if (Array.isArray(m['files']) && m['files'].length > 0) {
    extra['files'] = m['files']
    t.files.add('file', m['files'].length)
  }
  if (others.length > 0) extra['blocks'] = others
  flush()
  if (out.length === 0 && Object.keys(extra).length > 0) out.push(draft({ id, role: sender === 'human' ? 'user' : 'assistant', kind: 'display', ...when }))
  const first = out.find((d) => d.role !== 'tool') ?? out[0]
  if (first !== undefined) Object.assign(first.metadata, extra)
  return out
}

/** The messages in the order of the active branch (up from the last message by `parent_message_uuid`), and the other branches' leaves. */
const branchesOf = (ms: ReadonlyArray<Rec>): { readonly active: Rec[]; readonly others: Rec[][] } => {
  const linked = ms.length > 0 && ms.every((m) => typeof m['parent_message_uuid'] === 'string' && typeof m['uuid'] === 'string')
  if (!linked) return { active: [...ms], others: [] }
  const byId = new Map(ms.map((m) => [m['uuid'] as string, m]))
  const chain = (leaf: Rec, stop: ReadonlySet<string>): Rec[] => {
    const path: Rec[] = []
    const seen = new Set<string>()
    for (let m: Rec | undefined = leaf; m !== undefined && !seen.has(m['uuid'] as string); m = byId.get(m['parent_message_uuid'] as string)) {
      seen.add(m['uuid'] as string)
      if (stop.has(m['uuid'] as string)) break
      path.push(m)
    }
    return path.reverse()
  }
  const active = chain(ms[ms.length - 1] as Rec, new Set())
  const taken = new Set(active.map((m) => m['uuid'] as string))
  const parents = new Set(ms.map((m) => m['parent_message_uuid'] as string))
  const others: Rec[][] = []
  for (const leaf of ms.filter((m) => !parents.has(m['uuid'] as string) && !taken.has(m['uuid'] as string))) {
    const path = chain(leaf, taken)
    for (const m of path) taken.add(m['uuid'] as string)
    others.push(path)
  }
  return { active, others }
}

const readConversation = (f: Fields, c: Rec, path: string, options: ChatExportOptions): ChatExportConversation | undefined => {
  const list = f.arr(c['chat_messages'], `${path}.chat_messages`)
  if (list === undefined) return undefined
  const ms = list.flatMap((u, i) => (f.obj(u, `${path}.chat_messages[${i}]`) === undefined ? [] : [u as Rec]))
  const where = new Map(ms.map((m, i) => [m, `${path}.chat_messages[${i}]`]))
  const t: Tally = { other: counter(), files: counter(), resultFields: counter(), callFields: counter(), blockFields: counter(), unanswered: 0, citations: 0 }
  const { active, others } = branchesOf(ms)
  const messages: Message[] = [...messagesOf(active.flatMap((m) => draftsOf(f, m, where.get(m) ?? path, t)))]
  const notes: string[] = []
  if (options.branches === 'all') {
    others.forEach((b, k) => {
      const branch = {
        index: k + 1,
        leaf: b[b.length - 1]?.['uuid'],
        ...(typeof b[0]?.['parent_message_uuid'] === 'string' ? { forkedFrom: b[0]['parent_message_uuid'] } : {}),
      }
      for (const m of messagesOf(b.flatMap((x) => draftsOf(f, x, where.get(x) ?? path, t))))
        messages.push({ ...m, kind: 'display', metadata: { ...m.metadata, branch } })
    })
  }
  notes.push(...otherBranchesNote(others.length, options.branches === 'all'))
  notes.push(...unansweredNote(t.unanswered))
  if (t.files.size() > 0) notes.push(`files the export names but does not hold, kept in metadata.files: ${t.files.text()}`)
  if (t.citations > 0)
    notes.push(`${t.citations} citation${t.citations === 1 ? '' : 's'} of text blocks (a source's url and the span it backs) kept in metadata.citations`)
  if (t.resultFields.size() > 0)
    notes.push(`tool results' fields beside their content, kept in metadata.toolResult of their tool messages: ${t.resultFields.text()}`)
  if (t.callFields.size() > 0)
    notes.push(`tool calls' fields beside their name and input, kept in metadata.toolCalls (by call id) of their messages: ${t.callFields.text()}`)
  if (t.blockFields.size() > 0)
    notes.push(`text and thinking blocks' fields beside their text, kept in metadata.blockFields of their messages: ${t.blockFields.text()}`)
  if (t.other.size() > 0) notes.push(`blocks of a type not read as parts, kept as they came in metadata.blocks: ${t.other.text()}`)
  const id = optStr(c, 'uuid') ?? path
  const title = optStr(c, 'name')
  return {
    id,
    ...(title === undefined || title === '' ? {} : { title }),
    ...at(c['created_at']),
    read: sessionRead({ messages, archive: [], notes, skipped: [] }),
  }
}

/**
 * Reads a Claude.ai data export's `conversations.json` (parsed), one read per conversation (see the
 * module notes). Left: a document that is not an array of conversations with `chat_messages`, or a
 * message whose `sender` is neither `human` nor `assistant`, named by path.
 *
 * @example
 * import { fromClaudeAiExport } from 'chatfold/sessions'
 * const r = fromClaudeAiExport()([
 *   {
 *     uuid: 'c1', name: 'Hi', created_at: '2026-01-05T09:00:00.000Z',
 *     chat_messages: [
 *       { uuid: 'm1', sender: 'human', text: 'Hi', created_at: '2026-01-05T09:00:00.000Z', content: [{ type: 'text', text: 'Hi' }], attachments: [], files: [] },
 *       { uuid: 'm2', sender: 'assistant', text: 'Hello!', created_at: '2026-01-05T09:00:02.000Z', content: [{ type: 'text', text: 'Hello!' }], attachments: [], files: [] },
 *     ],
 *   },
 * ])
 * // right([{ id: 'c1', title: 'Hi', read: { messages: [user, assistant], … } }])
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromClaudeAiExport = (options: ChatExportOptions = {}): (u: unknown) => E.Either<DecodeFailure, ReadonlyArray<ChatExportConversation>> =>
  readConversations((f, c, at) => readConversation(f, c, at, options))

/**
 * Whether a parsed document looks like a Claude.ai export's `conversations.json`: an array of
 * conversations each with `uuid` and a `chat_messages` array.
 *
 * @example
 * import { isClaudeAiExport } from 'chatfold/sessions'
 * isClaudeAiExport([{ uuid: 'c1', name: '', chat_messages: [] }]) // true
 *
 * @since 0.1.0
 * @category adapters
 */
export const isClaudeAiExport = (u: unknown): boolean =>
  Array.isArray(u) && u.length > 0 && u.every((c: unknown) => isObject(c) && typeof c['uuid'] === 'string' && Array.isArray(c['chat_messages']))
