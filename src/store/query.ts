/**
 * Reading a `ChatState`: `query` by conversation, role, time range and text, with a
 * limit; a whole conversation; the most recent messages; one message by id. Results are chatfold
 * `Message`s in chronological order, so every history function applies to them. Lookups go
 * through the state's indexes: a limited query costs O(log n + what it visits), never a scan of
 * other conversations. A stored message keeps its content as sent, once: the `data` of a part
 * from base64 media is decoded from that content when read (a new `Uint8Array` each time).
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { type DecodeFailure, type DecodeIssue, failureFromErrors } from '../message/failure.ts'
import { textContent } from '../message/accessors.ts'
import { IsoTimestampC, type Message, type Messages } from '../message/message.ts'
import { ChatIdC, ChatRoleC } from './input.ts'
import { type ChatRecord, type ChatState, compareInstants, compareStrings, conversationOf, idKey, instantOf, type MessageKey } from './core.ts'
import * as T from './_tree.ts'
import { nonNegativeInt } from '../internal/number.ts'

// --- codecs ---

const CountC: t.Type<number, number, unknown> = new t.Type<number, number, unknown>(
  'Count',
  (u): u is number => typeof u === 'number' && Number.isInteger(u) && u >= 0,
  (u, c) => (typeof u === 'number' && Number.isInteger(u) && u >= 0 ? t.success(u) : t.failure(u, c, 'a non-negative integer')),
  t.identity,
)

/**
 * The parameters of a query, every one optional and combinable:
 * `conversation_id`; `role`; `since` and `until` (inclusive bounds on the timestamp); `limit`
 * (the most recent matches only); `search` (case-insensitive text search over text content).
 *
 * @example
 * import { ChatQueryC } from 'chatfold/store'
 * ChatQueryC.is({ conversation_id: 'default', limit: 10 }) // true
 *
 * @since 0.1.0
 * @category codecs
 */
export const ChatQueryC: t.ReadonlyC<
  t.ExactC<
    t.PartialC<{
      conversation_id: typeof ChatIdC
      role: typeof ChatRoleC
      since: typeof IsoTimestampC
      until: typeof IsoTimestampC
      limit: typeof CountC
      search: t.StringC
    }>
  >
> = t.readonly(
  t.exact(
    t.partial({
      conversation_id: ChatIdC,
      role: ChatRoleC,
      since: IsoTimestampC,
      until: IsoTimestampC,
      limit: CountC,
      search: t.string,
    }),
  ),
  'ChatQuery',
)

/** @since 0.1.0 @category model */
export type ChatQuery = t.TypeOf<typeof ChatQueryC>

const queryFields = ['conversation_id', 'role', 'since', 'until', 'limit', 'search']

/**
 * Decodes untrusted query parameters, reporting every bad field by path, unknown fields
 * included (`conversationId: expected no such field …`).
 *
 * @example
 * import { decodeQuery } from 'chatfold/store'
 * decodeQuery({ role: 'bot' }) // left([{ path: 'role', expected: '"user" | "assistant"', actual: 'bot' }])
 *
 * @since 0.1.0
 * @category codecs
 */
export const decodeQuery = (u: unknown): E.Either<DecodeFailure, ChatQuery> => {
  if (typeof u !== 'object' || u === null || Array.isArray(u)) return E.left([{ path: '', expected: 'a query object', actual: u }])
  const out: DecodeIssue[] = []
  const r = ChatQueryC.decode(u)
  if (E.isLeft(r)) { for (const i of failureFromErrors(r.left)) out.push(i) }
  const record = u as Readonly<Record<string, unknown>>
  for (const k of Object.keys(record)) {
    if (!queryFields.includes(k)) out.push({ path: k, expected: `no such field (a query has ${queryFields.join(', ')})`, actual: record[k] })
  }
  return out.length > 0 ? E.left(out) : E.isLeft(r) ? E.left(failureFromErrors(r.left)) : E.right(r.right)
}

// --- queries ---

/** The matching records, chronological. */
const queryRecords = (params: ChatQuery) => (state: ChatState): ReadonlyArray<ChatRecord> => {
  const source = params.conversation_id === undefined ? state.timeline : conversationOf(state, params.conversation_id)?.messages
  const since = params.since === undefined ? undefined : instantOf(params.since)
  const until = params.until === undefined ? undefined : instantOf(params.until)
  const needle = params.search === undefined || params.search === '' ? undefined : params.search.toLowerCase()
  const matches = (r: ChatRecord): boolean =>
    (params.role === undefined || r.message.role === params.role) &&
    (needle === undefined || textContent(r.message).toLowerCase().includes(needle))
  const atLeastSince = since === undefined ? undefined : (k: MessageKey) => compareInstants(k, since) >= 0
  const atMostUntil = until === undefined ? undefined : (k: MessageKey) => compareInstants(k, until) <= 0
  const out: ChatRecord[] = []
  if (params.limit === undefined) {
    T.forEachUp(source, atLeastSince, (r, k) => {
      if (atMostUntil !== undefined && !atMostUntil(k)) return false
      if (matches(r)) out.push(r)
    })
    return out
  }
  const limit = params.limit
  if (limit <= 0) return out
  T.forEachDown(source, atMostUntil, (r, k) => {
    if (atLeastSince !== undefined && !atLeastSince(k)) return false
    if (matches(r)) out.push(r)
    return out.length < limit
  })
  return out.reverse()
}

const messagesOf = (records: ReadonlyArray<ChatRecord>): Messages => records.map((r) => r.message)

/**
 * The messages matching every given parameter, in chronological order. With
 * `limit`, the most recent `limit` matches; `since`/`until` bound the timestamp inclusively;
 * `search` is a case-insensitive substring of the message's text.
 *
 * @example
 * import { pipe } from 'fp-ts/function'
 * import { emptyState, query } from 'chatfold/store'
 * pipe(emptyState(), query({ conversation_id: 'default', role: 'user', search: 'weather', limit: 10 })) // []
 *
 * @since 0.1.0
 * @category lookups
 */
export const query = (params: ChatQuery) => (state: ChatState): Messages => messagesOf(queryRecords(params)(state))

/**
 * Every message a conversation holds, chronologically; empty for an
 * unknown conversation.
 *
 * @example
 * import { emptyState, getConversation } from 'chatfold/store'
 * getConversation('default')(emptyState()) // []
 *
 * @since 0.1.0
 * @category lookups
 */
export const getConversation = (conversationId: string) => (state: ChatState): Messages => messagesOf(T.values(conversationOf(state, conversationId)?.messages))

/**
 * The `limit` most recent messages, chronologically, of one
 * conversation or, without a conversation id, across all of them. `limit` is normalised to a
 * non-negative integer.
 *
 * @example
 * import { emptyState, getRecentMessages } from 'chatfold/store'
 * getRecentMessages(20, 'support-42')(emptyState()) // []
 *
 * @since 0.1.0
 * @category lookups
 */
export const getRecentMessages = (limit: number, conversationId?: string) => (state: ChatState): Messages =>
  query({
    limit: nonNegativeInt(limit),
    ...(conversationId === undefined ? {} : { conversation_id: conversationId }),
  })(state)

/**
 * A held message by id, in O(log n); `none` when absent or pruned.
 * Message ids are scoped to a conversation: with `conversationId`, the message of that
 * conversation; without, the one of the first conversation (by id) holding that message id.
 *
 * @example
 * import { emptyState, getMessageById } from 'chatfold/store'
 * getMessageById('m-1')(emptyState()) // none
 * getMessageById('m-1', 'support-42')(emptyState()) // none
 *
 * @since 0.1.0
 * @category lookups
 */
export const getMessageById = (messageId: string, conversationId?: string) => (state: ChatState): O.Option<Message> => {
  if (conversationId !== undefined) return O.fromNullable(T.get(compareStrings, idKey(messageId, conversationId), state.byId)?.message)
  const prefix = idKey(messageId, '')
  let found: Message | undefined
  T.forEachUp(state.byId, (k) => compareStrings(k, prefix) >= 0, (r, k) => {
    if (k.startsWith(prefix)) found = r.message
    return false
  })
  return O.fromNullable(found)
}
