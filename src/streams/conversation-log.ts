/**
 * A chat store's conversations kept in a streams log other processes share (the PostgreSQL
 * form): the records that publish what a commit added (a conversation's first messages create
 * its stream, marked as the store's; later ones are appended to it), and the records a log
 * written before the store published there lacks (a back-fill, by message id). What the served
 * PostgreSQL form runs (not an entry's export).
 *
 * @module
 */
import type { StreamRecord } from './log.ts'
import { fromBase64, toBase64 } from './_state.ts'
import { conversationStreamPath } from './conversations.ts'
import { addedMessages } from '../store/added.ts'
import { type ChatState, conversationIds } from '../store/state.ts'
import { getConversation } from '../store/query.ts'
import { type ChatMessage, toChatMessages } from '../store/snapshot.ts'

/** Where a store's conversation streams go: `prefix` before `/conversations/<id>` (none for a server's one store). */
export type ConversationLogOptions = { readonly prefix?: string; readonly at: number }

const pathOf = (options: ConversationLogOptions, conversationId: string): string => `${options.prefix ?? ''}${conversationStreamPath(conversationId)}`

/** The messages as a JSON stream's data: each one's JSON text, in base64. */
const dataOf = (messages: ReadonlyArray<ChatMessage>): ReadonlyArray<string> => {
  const enc = new TextEncoder()
  return messages.map((m) => toBase64(enc.encode(JSON.stringify(m))))
}

/** The record that starts a conversation's stream (the store's: read-only over HTTP) with `messages`. */
const created = (path: string, messages: ReadonlyArray<ChatMessage>, at: number): StreamRecord => ({
  t: 'create',
  path,
  contentType: 'application/json',
  at,
  data: dataOf(messages),
  derived: true,
})

/** The records that publish what `after` holds and `before` did not: one per conversation that gained messages. */
export const conversationRecords = (before: ChatState | undefined, after: ChatState, options: ConversationLogOptions): ReadonlyArray<StreamRecord> =>
  addedMessages(before, after).map((a) => {
    const path = pathOf(options, a.conversationId)
    return a.fresh ? created(path, a.messages, options.at) : { t: 'append', path, data: dataOf(a.messages) }
  })

/** The message id of a JSON message kept in base64, if it has one. */
const messageIdOf = (data: string): string | undefined => {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(fromBase64(data)))
    const id = typeof value === 'object' && value !== null ? Reflect.get(value, 'message_id') : undefined
    return typeof id === 'string' ? id : undefined
  } catch {
    return undefined
  }
}

/**
 * The records that bring the conversation streams of a log (`kept`: its records, in order) up to
 * `state`: a conversation without a stream of the store's gets one with every message it holds,
 * one whose stream lacks some of its messages (by message id) gets them appended, in the
 * conversation's order. Nothing when the log is up to date.
 */
export const backfillRecords = (state: ChatState, kept: ReadonlyArray<StreamRecord>, options: ConversationLogOptions): ReadonlyArray<StreamRecord> => {
  const published = new Map<string, { readonly derived: boolean; readonly ids: Set<string> }>()
  const add = (ids: Set<string>, data: ReadonlyArray<string>) => {
    for (const d of data) {
      const id = messageIdOf(d)
      if (id !== undefined) ids.add(id)
    }
  }
  for (const r of kept) {
    if (r.t === 'create') {
      const ids = new Set<string>()
      add(ids, r.data)
      published.set(r.path, { derived: r.derived === true, ids })
    } else if (r.t === 'append') {
      const p = published.get(r.path)
      if (p !== undefined) add(p.ids, r.data)
    } else if (r.t === 'delete') published.delete(r.path)
  }
  const out: StreamRecord[] = []
  for (const id of conversationIds(state)) {
    const path = pathOf(options, id)
    const messages = toChatMessages(state)(getConversation(id)(state))
    const p = published.get(path)
    if (p === undefined || !p.derived) {
      if (messages.length > 0) out.push(created(path, messages, options.at))
      continue
    }
    const missing = messages.filter((m) => !p.ids.has(m.message_id))
    if (missing.length > 0) out.push({ t: 'append', path, data: dataOf(missing) })
  }
  return out
}
