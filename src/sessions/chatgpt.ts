/**
 * The ChatGPT data export (`conversations.json`) read as histories, one per conversation.
 *
 * Each conversation holds its messages as a tree, `mapping` (node id → `{ id, message, parent,
 * children }`), and `current_node`, the leaf of the branch shown last:
 *
 * - **The active branch** is the chain from `current_node` up to the root. The other leaves are
 *   branches left by an edit or a regeneration: counted, or with `branches: 'all'` read after the
 *   active one as `display` messages with `metadata.branch = { index, leaf, forkedFrom? }`, as the
 *   Claude Code reader does.
 * - **Messages**: `author.role` user, assistant, system or tool; `content.content_type` `text` and
 *   `multimodal_text` (strings, `audio_transcription`, `image_asset_pointer`), `code` (an assistant
 *   message addressed to a tool: `recipient` is not `all`), `execution_output`,
 *   `tether_browsing_display`, `tether_quote`, `system_error`, `thoughts` and `reasoning_recap`,
 *   `user_editable_context` and `model_editable_context`.
 * - **Tool calls**: an assistant message with a `recipient` other than `all` is a call of that tool
 *   (its id the message id; its text the arguments when it is a JSON object, else `{ "input": text }`),
 *   and the `tool` messages after it (author `name` the tool) its result: execution output, browsing
 *   display, a quote, an error (`system_error`, an error result). A connector's call (Gmail, a
 *   calendar) is a `thoughts` message addressed to the tool, its answer a `thoughts` tool message:
 *   the call is read with `{}` for the arguments the export does not hold (a note counts them), its
 *   thoughts kept as reasoning, and the answer's summaries are the result. A tool message with no
 *   call before it stays a `display` message with `metadata.origin = 'tool'`; a call with no tool message after
 *   it is followed by a `synthetic` one saying the export holds no result (`metadata.origin =
 *   'export'`), so every target pairs it.
 * - **Reasoning**: `thoughts` become reasoning parts of the next assistant message (summary and
 *   content); a `reasoning_recap` ("Thought for 8s") is kept as that message's
 *   `metadata.reasoningRecap`. GPT-5 Pro writes its reasoning summary as a `tool` message with no
 *   call (an obfuscated `author.name`, `metadata.finished_text` "Reasoned for 5m 6s"): its text is
 *   a reasoning part of the next reply, its `finished_text` that reply's `reasoningRecap`, counted
 *   in a note.
 * - **Context the app put in**: custom instructions (`user_editable_context`) and memory
 *   (`model_editable_context`) read as `synthetic` system messages with `metadata.origin`; empty
 *   hidden system messages are left out.
 * - **Images and files** live outside `conversations.json` (in the export's zip, named by
 *   `file-…` ids): an `image_asset_pointer` and each entry of `metadata.attachments` is kept in the
 *   message's `metadata.assets` / `metadata.attachments`, and a note counts them.
 * - Assistant messages carry `model` (`metadata.model_slug`), `provider: 'openai'`; every message its
 *   `createdAt` (`create_time`, seconds).
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../message/failure.ts'
import type { Message } from '../message/message.ts'
import type { Part } from '../message/part-model.ts'
import { isObject } from '../internal/object.ts'
import type { ChatExportConversation } from './chat-export.ts'
import { type Draft, draft, messagesOf, sessionRead } from './_draft.ts'
import { counter, type Fields, optStr, type Rec } from './_fields.ts'
import { NO_RESULT, otherBranchesNote, readConversations, unansweredNote } from './_conversations.ts'

/**
 * How to read an export: the active branch of each conversation only (the default), or its other
 * branches too, after it, as display messages.
 *
 * @example
 * import type { ChatExportOptions } from 'chatfold/sessions'
 * const all: ChatExportOptions = { branches: 'all' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type ChatExportOptions = { readonly branches?: 'active' | 'all' }

type Node = { readonly id: string; readonly message: Rec | undefined; readonly parent: string | undefined; readonly children: ReadonlyArray<string> }

const seconds = (
  u: unknown,
): { readonly createdAt?: string } => (typeof u === 'number' && Number.isFinite(u) && u > 0 ? { createdAt: new Date(u * 1000).toISOString() } : {})

/** The text of a content record's `parts`, `text`, `result` or its context fields; assets listed apart. */
const textOf = (c: Rec, assets: Rec[]): string => {
  const out: string[] = []
  if (Array.isArray(c['parts'])) {
    for (const p of c['parts']) {
      if (typeof p === 'string') out.push(p)
      else if (isObject(p) && typeof p['text'] === 'string') out.push(p['text'])
      else if (isObject(p)) assets.push(p)
    }
  }
  for (const k of ['text', 'result', 'user_profile', 'user_instructions', 'model_set_context']) if (typeof c[k] === 'string') out.push(c[k] as string)
  return out.filter((s) => s !== '').join('\n\n')
}

const argumentsOf = (text: string): { readonly arguments: string; readonly wrapped: boolean } => {
  try {
    const v: unknown = JSON.parse(text)
    if (isObject(v)) return { arguments: text, wrapped: false }
  } catch {
    // code, not JSON
  }
  return { arguments: JSON.stringify({ input: text }), wrapped: true }
}

type Tally = {
  readonly assets: ReturnType<typeof counter>
  readonly other: ReturnType<typeof counter>
  wrapped: number
  orphans: number
  unanswered: number
  thoughtCalls: number
  summaries: number
}

/** The text of a `thoughts` content: each thought's summary and content. */
const thoughtsText = (c: Rec): string =>
  (Array.isArray(c['thoughts']) ? c['thoughts'].filter(isObject) : [])
    .flatMap((th) => [optStr(th, 'summary'), optStr(th, 'content')])
    .filter((s): s is string => s !== undefined && s !== '')
    .join('\n\n')

/** The messages of one chain of nodes (root first). */
const readChain = (chain: ReadonlyArray<Node>, t: Tally): Message[] => {
  const out: Draft[] = []
  let thoughts: Part[] = []
  let recap: string | undefined
  const open: Array<{ id: string; name: string; result: Draft | undefined }> = []
  // a call the export holds no tool message for is answered by a synthetic message saying so
  const close = (when: { readonly createdAt?: string }): void => {
    const unanswered = open.filter((x) => x.result === undefined)
    if (unanswered.length > 0) {
      t.unanswered += unanswered.length
      const parts = unanswered.map((x): Part => ({
        type: 'tool_result',
        toolCallId: x.id,
        name: x.name,
        content: NO_RESULT,
        isError: false,
      }))
      out.push(draft({ id: `${unanswered[0]?.id ?? 'call'}.unanswered`, role: 'tool', kind: 'synthetic', parts, ...when, metadata: { origin: 'export' } }))
    }
    open.length = 0
  }
  for (const n of chain) {
    const m = n.message
    if (m === undefined) continue
    const author = isObject(m['author']) ? m['author'] : {}
    const role = optStr(author, 'role') ?? 'user'
    const c = isObject(m['content']) ? m['content'] : {}
    const type = optStr(c, 'content_type') ?? 'text'
    const meta = isObject(m['metadata']) ? m['metadata'] : {}
    const when = seconds(m['create_time'])
    const assets: Rec[] = []
    const text = textOf(c, assets)
    const extra: Record<string, unknown> = {}
    if (assets.length > 0) {
      extra['assets'] = assets
      for (const a of assets) t.assets.add(optStr(a, 'content_type') ?? 'asset')
    }
    if (Array.isArray(meta['attachments']) && meta['attachments'].length > 0) {
      extra['attachments'] = meta['attachments']
      t.assets.add('attachment', meta['attachments'].length)
    }
    for (const k of ['citations', 'content_references']) if (Array.isArray(meta[k]) && (meta[k] as unknown[]).length > 0) extra[k] = meta[k]
    const recipient = optStr(m, 'recipient') ?? 'all'
    // a connector's call and its answer are shown as thoughts: the call is addressed to the tool, the answer is a tool message
    const thoughtCall = type === 'thoughts' && role === 'assistant' && recipient !== 'all'
    if (type === 'thoughts') {
      const ts = Array.isArray(c['thoughts']) ? c['thoughts'].filter(isObject) : []
      if (role !== 'tool') {
        for (const th of ts)
          thoughts.push({
            type: 'reasoning',
            text: [optStr(th, 'summary'), optStr(th, 'content')].filter((s) => s !== undefined && s !== '').join('\n\n'),
          })
      }
      if (!thoughtCall && role !== 'tool') continue
    }
    const said = type === 'thoughts' && role === 'tool' ? thoughtsText(c) : text
    if (type === 'reasoning_recap') {
      recap = optStr(c, 'content')
      continue
    }
    if (role === 'system' || type === 'user_editable_context' || type === 'model_editable_context') {
      if (text === '') continue
      out.push(
        draft({
          id: n.id,
          role: 'system',
          kind: type === 'text' ? 'normal' : 'synthetic',
          parts: [{ type: 'text', text }],
          ...when,
          metadata: { ...extra, ...(type === 'text' ? {} : { origin: type }) },
        }),
      )
      continue
    }
    if (role === 'tool') {
      const name = optStr(author, 'name') ?? 'tool'
      // a reasoning summary written as a tool message with no call (GPT-5 Pro: "Reasoning", then "Reasoned for 5m 6s"): the next reply's reasoning
      if (typeof meta['finished_text'] === 'string' && said !== '' && Object.keys(extra).length === 0 && !open.some((x) => x.name === name)) {
        thoughts.push({ type: 'reasoning', text: said })
        recap = meta['finished_text']
        t.summaries++
        continue
      }
      const call = open.find((x) => x.name === name && x.result === undefined) ?? open.find((x) => x.result === undefined)
      const shown = type === 'system_error' && typeof c['name'] === 'string' ? `${c['name']}: ${said}` : said
      const content = shown === '' && type !== 'text' && type !== 'multimodal_text' && type !== 'execution_output' ? JSON.stringify(c) : shown
      if (call !== undefined) {
        call.result = draft({
          id: n.id,
          role: 'tool',
          parts: [{ type: 'tool_result', toolCallId: call.id, name: call.name, content, isError: type === 'system_error' }],
          ...when,
          metadata: { ...extra, contentType: type },
        })
        out.push(call.result)
        continue
      }
      // a further tool message answering a call already answered: its text joins that result
      const last = [...open].reverse().find((x) => x.name === name)
      const r = last?.result?.parts[0]
      if (last?.result !== undefined && r?.type === 'tool_result') {
        last.result.parts[0] = { ...r, content: [r.content, content].filter((s) => s !== '').join('\n\n') }
        continue
      }
      t.orphans++
      out.push(
        draft({
          id: n.id,
          role: 'assistant',
          kind: 'display',
          parts: content === '' ? [] : [{ type: 'text', text: content }],
          ...when,
          metadata: { ...extra, origin: 'tool', tool: name },
        }),
      )
      continue
    }
    const parts: Part[] = [...thoughts]
    thoughts = []
    if (role === 'assistant' && recipient !== 'all') {
      const a = thoughtCall ? { arguments: '{}', wrapped: false } : argumentsOf(text)
      if (a.wrapped) t.wrapped++
      if (thoughtCall) t.thoughtCalls++
      parts.push({ type: 'tool_call', id: n.id, name: recipient, arguments: a.arguments, status: 'complete' })
      open.push({ id: n.id, name: recipient, result: undefined })
    } else {
      if (!['text', 'multimodal_text', 'code', 'execution_output', 'tether_quote', 'tether_browsing_display'].includes(type)) {
        t.other.add(type)
        extra['content'] = c
      }
      if (text !== '') parts.push({ type: 'text', text })
    }
    if (role === 'user') close(when)
    const model = optStr(meta, 'model_slug')
    const d = draft({
      id: n.id,
      role: role === 'assistant' ? 'assistant' : 'user',
      parts,
      ...when,
      ...(role === 'assistant' ? { provider: 'openai', ...(model === undefined ? {} : { model }) } : {}),
      metadata: { ...extra, ...(recap === undefined ? {} : { reasoningRecap: recap }) },
    })
    recap = undefined
    if (d.parts.length === 0 && Object.keys(d.metadata).length === 0) continue
    out.push(d)
  }
  close({})
  return [...messagesOf(out)]
}

/** The nodes of a mapping, each checked; failures recorded by path. */
const nodesOf = (f: Fields, mapping: Rec, at: string): Map<string, Node> => {
  const nodes = new Map<string, Node>()
  for (const [key, u] of Object.entries(mapping)) {
    const o = f.obj(u, `${at}.mapping.${key}`)
    if (o === undefined) continue
    const message = o['message']
    if (message !== null && message !== undefined && f.obj(message, `${at}.mapping.${key}.message`) === undefined) continue
    nodes.set(key, {
      id: optStr(o, 'id') ?? key,
      message: isObject(message) ? message : undefined,
      parent: optStr(o, 'parent'),
      children: Array.isArray(o['children']) ? o['children'].filter((x: unknown): x is string => typeof x === 'string') : [],
    })
  }
  return nodes
}

const chainTo = (leaf: string, nodes: ReadonlyMap<string, Node>, stop: ReadonlySet<string>): Node[] => {
  const path: Node[] = []
  const seen = new Set<string>()
  let at: string | undefined = leaf
  while (at !== undefined && !seen.has(at)) {
    seen.add(at)
    const n = nodes.get(at)
    if (n === undefined) break
    path.push(n)
    if (stop.has(at)) break
    at = n.parent
  }
  return path.reverse()
}

/** Reads one conversation of the export. */
const readConversation = (f: Fields, c: Rec, at: string, options: ChatExportOptions): ChatExportConversation | undefined => {
  const mapping = f.obj(c['mapping'], `${at}.mapping`)
  if (mapping === undefined) return undefined
  const nodes = nodesOf(f, mapping, at)
  const id = optStr(c, 'conversation_id') ?? optStr(c, 'id') ?? at
  const leaves = [...nodes.values()].filter((n) => n.children.length === 0)
  const current = optStr(c, 'current_node') ?? leaves[leaves.length - 1]?.id
  if (current === undefined || !nodes.has(current)) {
    if (nodes.size > 0) f.fail(`${at}.current_node`, 'a node of the mapping', c['current_node'])
    return undefined
  }
  const t: Tally = { assets: counter(), other: counter(), wrapped: 0, orphans: 0, unanswered: 0, thoughtCalls: 0, summaries: 0 }
  const active = chainTo(current, nodes, new Set())
  const onActive = new Set(active.map((n) => n.id))
  const messages = readChain(active, t)
  const others = leaves.filter((n) => !onActive.has(n.id) && n.message !== undefined)
  const notes: string[] = []
  if (options.branches === 'all') {
    const stop = new Set(onActive)
    others.forEach((leaf, k) => {
      const path = chainTo(leaf.id, nodes, stop)
      const fork = path[0] !== undefined && stop.has(path[0].id) ? path.shift() : undefined
      for (const n of path) stop.add(n.id)
      const branch = { index: k + 1, leaf: leaf.id, ...(fork === undefined ? {} : { forkedFrom: fork.id }) }
      for (const m of readChain(path, t)) messages.push({ ...m, kind: 'display', metadata: { ...m.metadata, branch } })
    })
  }
  notes.push(...otherBranchesNote(others.length, options.branches === 'all', 'an edit or a regeneration'))
  if (t.wrapped > 0) notes.push(`${t.wrapped} tool call${t.wrapped === 1 ? '' : 's'} whose input is code, not a JSON object, carried as { "input": code }`)
  if (t.thoughtCalls > 0)
    notes.push(
      `${t.thoughtCalls} tool call${t.thoughtCalls === 1 ? '' : 's'} the export shows only as a thought addressed to the tool (a connector's), without ${
        t.thoughtCalls === 1 ? 'its' : 'their'
      } arguments: read with {}`,
    )
  notes.push(...unansweredNote(t.unanswered))
  if (t.summaries > 0)
    notes.push(
      `${t.summaries} reasoning summar${
        t.summaries === 1 ? 'y' : 'ies'
      } written as a tool message (metadata.finished_text) read as reasoning of the reply after it`,
    )
  if (t.orphans > 0)
    notes.push(`${t.orphans} tool message${t.orphans === 1 ? '' : 's'} with no call before ${t.orphans === 1 ? 'it' : 'them'} kept as display messages`)
  if (t.assets.size() > 0)
    notes.push(`files and images the export keeps beside conversations.json, named in metadata (assets, attachments): ${t.assets.text()}`)
  if (t.other.size() > 0) notes.push(`content of a type not read as parts, kept as it came in metadata.content: ${t.other.text()}`)
  const title = optStr(c, 'title')
  return { id, ...(title === undefined ? {} : { title }), ...seconds(c['create_time']), read: sessionRead({ messages, archive: [], notes, skipped: [] }) }
}

/**
 * Reads a ChatGPT data export's `conversations.json` (parsed), one read per conversation (see the
 * module notes). Left: a document that is not an array of conversations with a `mapping`, a node
 * that is not an object, or a `current_node` not in the mapping, named by path (`[3].mapping.<id>`).
 *
 * @example
 * import { fromChatGPTExport } from 'chatfold/sessions'
 * const r = fromChatGPTExport()([
 *   {
 *     id: 'c1', title: 'Hi', create_time: 1767603600, current_node: 'b',
 *     mapping: {
 *       a: { id: 'a', message: { id: 'a', author: { role: 'user' }, content: { content_type: 'text', parts: ['Hi'] } }, parent: null, children: ['b'] },
 *       b: { id: 'b', message: { id: 'b', author: { role: 'assistant' }, content: { content_type: 'text', parts: ['Hello!'] }, recipient: 'all' }, parent: 'a', children: [] },
 *     },
 *   },
 * ])
 * // right([{ id: 'c1', title: 'Hi', read: { messages: [user, assistant], … } }])
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromChatGPTExport = (options: ChatExportOptions = {}): (u: unknown) => E.Either<DecodeFailure, ReadonlyArray<ChatExportConversation>> =>
  readConversations((f, c, at) => readConversation(f, c, at, options))

/**
 * Whether a parsed document looks like a ChatGPT export's `conversations.json`: an array of
 * conversations each with a `mapping` object (and `current_node`).
 *
 * @example
 * import { isChatGPTExport } from 'chatfold/sessions'
 * isChatGPTExport([{ id: 'c1', mapping: {}, current_node: null }]) // true
 *
 * @since 0.1.0
 * @category adapters
 */
export const isChatGPTExport = (u: unknown): boolean =>
  Array.isArray(u) && u.length > 0 && u.every((c: unknown) => isObject(c) && isObject(c['mapping']) && 'current_node' in c)
