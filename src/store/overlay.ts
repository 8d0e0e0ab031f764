/**
 * Compaction as a committed overlay: a summary that stands for a range of a conversation's
 * messages, kept beside them (nothing is deleted; the archive stays readable) and accepted only if
 * the conversation's head is still the message the summary was computed from (compare-and-append).
 * A write that landed in between makes the overlay stale: the caller gets the newer head and
 * computes again, so a compaction never stands for less than the conversation holds before it.
 * Overlays belong to their conversation: a fork starts without its parent's.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { Message } from '../message/message.ts'
import { compareKeys, compareStrings, conversationOf, idKey, type Overlay, type Overlays, type StoreFailure } from './core.ts'

export type { Overlay, Overlays } from './core.ts'
import { getConversation } from './query.ts'
import type { Simulator } from './simulator.ts'
import { fromChatContent } from './content.ts'
import * as T from './_tree.ts'
import type { DecodeFailure, DecodeIssue } from '../message/failure.ts'
import { ChatIdC } from './input.ts'
import { isObject } from '../internal/object.ts'
import { JsonRecordC } from '../internal/json.ts'

/** The id of a conversation's last held message, `null` for none: the head a compaction names. */
export const conversationHead = (conversationId: string) => (sim: Simulator): string | null =>
  T.max(conversationOf(sim.state, conversationId)?.messages)?.v.message.id ?? null

/**
 * Commits a compaction of `conversation_id`'s messages `from`…`through` (`head` when absent; both
 * held, `from` not after `through`), if `head` is still the conversation's last message; otherwise fails with
 * `stale_head`, naming the conversation's head now. Nothing is removed. What `ChatStore.compact`
 * runs and a log's `compact` record replays (not exported from the package entry).
 */
export const compactSimulator = (request: Omit<Overlay, 'committed_at'>) => (sim: Simulator): E.Either<StoreFailure, Simulator> => {
  const { conversation_id: id, from, head } = request
  const through = request.through ?? head
  const now = conversationHead(id)(sim)
  if (now !== head) return E.left({ kind: 'stale_head', conversationId: id, expected: head, head: now })
  const first = T.get(compareStrings, idKey(from, id), sim.state.byId)
  const last = T.get(compareStrings, idKey(through, id), sim.state.byId)
  if (first === undefined) return E.left({ kind: 'unknown_message', messageId: from, conversationId: id })
  if (last === undefined || compareKeys(first.key, last.key) > 0) return E.left({ kind: 'unknown_message', messageId: through, conversationId: id })
  const overlay: Overlay = { ...request, committed_at: sim.now }
  const before = T.get(compareStrings, id, sim.overlays) ?? []
  return E.right({ ...sim, overlays: T.insert(compareStrings, id, [...before, overlay], sim.overlays) })
}

/** The overlays committed on a conversation, oldest first (`ChatStore.overlays`). */
export const overlaysOf = (conversationId: string) => (sim: Simulator): ReadonlyArray<Overlay> => T.get(compareStrings, conversationId, sim.overlays) ?? []

/**
 * A conversation as a model should see it (`ChatStore.compacted`): its messages with the range of
 * the latest overlay replaced by one synthetic system message holding the summary (id
 * `compaction:<head>`), the messages after the range as held. Without an overlay, the messages as
 * held.
 */
export const forCompacted = (conversationId: string) => (sim: Simulator): ReadonlyArray<Message> => {
  const messages = getConversation(conversationId)(sim.state)
  const overlay = overlaysOf(conversationId)(sim).at(-1)
  if (overlay === undefined) return messages
  const start = messages.findIndex((m) => m.id === overlay.from)
  const end = messages.findIndex((m) => m.id === (overlay.through ?? overlay.head))
  // a range the conversation no longer holds whole (its oldest dropped by the history limit): what is left of it
  const from = start < 0 ? 0 : start
  if (end < 0) return messages
  const summary: Message = {
    id: `compaction:${overlay.head}`,
    role: 'system',
    kind: 'synthetic',
    parts: fromChatContent(overlay.summary),
    conversationId,
    createdAt: overlay.committed_at,
  }
  return [...messages.slice(0, from), summary, ...messages.slice(end + 1)]
}

/** The overlays of a simulator as JSON (every conversation's, in order). */
export const encodeOverlays = (sim: Simulator): ReadonlyArray<Overlay> => T.values(sim.overlays).flat()

/** Overlays read back from `encodeOverlays`' JSON, or what is wrong with them. */
export const decodeOverlays = (u: unknown): E.Either<string, Overlays> => {
  if (u === undefined) return E.right(undefined)
  if (!Array.isArray(u)) return E.left('overlays: expected a list')
  const byConversation = new Map<string, Overlay[]>()
  for (const [i, o] of (u as unknown[]).entries()) {
    const v = o as Partial<Record<keyof Overlay, unknown>>
    if (
      typeof o !== 'object' || o === null || ![v.conversation_id, v.from, v.head, v.summary, v.committed_at].every((x) => typeof x === 'string') ||
      (v.through !== undefined && typeof v.through !== 'string') || (v.metadata !== undefined && !isObject(v.metadata))
    ) return E.left(`overlays[${i}]: expected conversation_id, from, head, summary and committed_at (and through, metadata)`)
    const overlay = o as Overlay
    byConversation.set(overlay.conversation_id, [...(byConversation.get(overlay.conversation_id) ?? []), overlay])
  }
  return E.right(T.fromSorted([...byConversation].sort(([a], [b]) => compareStrings(a, b))))
}

/**
 * A compaction to commit (the body of `POST /modalities/chat/compact`): the conversation, the
 * first and the last message the summary stands for (`head`: the conversation's last message when
 * the summary was computed), and the summary's text.
 */
export type CompactRequest = Omit<Overlay, 'committed_at'>

const COMPACT_FIELDS = ['conversation_id', 'from', 'head', 'summary'] as const
const OPTIONAL_FIELDS = ['through', 'metadata'] as const

/**
 * Decodes a compaction request: `conversation_id`, `from` and `head` each a valid id, `summary` a
 * non-empty string, optionally `through` (an id) and `metadata` (a JSON object); any other field is
 * refused. Every bad field is reported by path.
 */
export const decodeCompactRequest = (u: unknown): E.Either<DecodeFailure, CompactRequest> => {
  if (!isObject(u)) return E.left([{ path: '', expected: 'a compaction { conversation_id, from, head, summary }', actual: u }])
  const issues: DecodeIssue[] = []
  for (const k of COMPACT_FIELDS) {
    const v = u[k]
    if (k === 'summary' ? typeof v !== 'string' || v === '' : !ChatIdC.is(v)) {
      issues.push({
        path: k,
        expected: k === 'summary' ? 'a non-empty summary text' : k === 'conversation_id' ? 'a conversation id' : 'a message id',
        actual: v,
      })
    }
  }
  if (u['through'] !== undefined && !ChatIdC.is(u['through'])) issues.push({ path: 'through', expected: 'a message id', actual: u['through'] })
  if (u['metadata'] !== undefined && !JsonRecordC.is(u['metadata'])) issues.push({ path: 'metadata', expected: 'a JSON object', actual: u['metadata'] })
  const known: ReadonlyArray<string> = [...COMPACT_FIELDS, ...OPTIONAL_FIELDS]
  for (const k of Object.keys(u)) {
    if (!known.includes(k)) issues.push({ path: k, expected: `no such field (expected ${known.join(', ')})`, actual: u[k] })
  }
  if (issues.length > 0) return E.left(issues)
  const { conversation_id, from, head, summary, through, metadata } = u as CompactRequest
  return E.right({ conversation_id, from, head, summary, ...(through === undefined ? {} : { through }), ...(metadata === undefined ? {} : { metadata }) })
}
