/**
 * The JSON form of a chat store: every conversation's metadata and every
 * held message in the store's wire shape, with content exactly as sent. `fromSnapshot` reads it
 * back into a `ChatState`, checking every invariant, so a snapshot round-trips.
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type DecodeFailure, type DecodeIssue, failureFromErrors, prefixFailure } from '../message/failure.ts'
import { JsonRecordC } from '../internal/json.ts'
import { IsoTimestampC, type Messages } from '../message/message.ts'
import { ChatIdC, ChatInputContentC, ChatRoleC } from './input.ts'
import {
  type ChatRecord,
  type ChatState,
  compareKeys,
  compareStrings,
  type Conversation,
  type ConversationMetadata,
  ConversationMetadataC,
  fromConversations,
  idKey,
  recordOf,
} from './core.ts'
import { validateState } from './state.ts'
import * as T from './_tree.ts'

// --- codecs ---

/**
 * A stored message in the store's wire shape (`ChatMessage`): ids, role, content exactly as sent,
 * timestamp, metadata, and the input id that breaks timestamp ties.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ChatMessageC: t.ReadonlyC<
  t.IntersectionC<
    [
      t.ExactC<
        t.TypeC<{
          message_id: typeof ChatIdC
          conversation_id: typeof ChatIdC
          role: typeof ChatRoleC
          content: typeof ChatInputContentC
          timestamp: typeof IsoTimestampC
          input_id: typeof ChatIdC
        }>
      >,
      t.ExactC<t.PartialC<{ metadata: typeof JsonRecordC }>>,
    ]
  >
> = t.readonly(
  t.intersection([
    t.exact(
      t.type({
        message_id: ChatIdC,
        conversation_id: ChatIdC,
        role: ChatRoleC,
        content: ChatInputContentC,
        timestamp: IsoTimestampC,
        input_id: ChatIdC,
      }),
    ),
    t.exact(t.partial({ metadata: JsonRecordC })),
  ]),
  'ChatMessage',
)

/** @since 0.1.0 @category model */
export type ChatMessage = t.TypeOf<typeof ChatMessageC>

const LimitC: t.Type<number, number | null, unknown> = new t.Type<number, number | null, unknown>(
  'MaxHistorySize',
  (u): u is number => typeof u === 'number' && (u === Infinity || (Number.isInteger(u) && u >= 0)),
  (
    u,
    c,
  ) => (u === null
    ? t.success(Infinity)
    : typeof u === 'number' && Number.isInteger(u) && u >= 0
    ? t.success(u)
    : t.failure(u, c, 'a non-negative integer or null (no limit)')),
  (n) => (n === Infinity ? null : n),
)

const CountC: t.Type<number, number, unknown> = new t.Type<number, number, unknown>(
  'Count',
  (u): u is number => typeof u === 'number' && Number.isInteger(u) && u >= 0,
  (u, c) => (typeof u === 'number' && Number.isInteger(u) && u >= 0 ? t.success(u) : t.failure(u, c, 'a non-negative integer')),
  t.identity,
)

/**
 * The codec of a snapshot. `max_history_size` is `null` for no limit; `conversations` maps each
 * conversation id to its metadata.
 *
 * @example
 * import { ChatSnapshotC, emptyState, toSnapshot } from 'chatfold/store'
 * ChatSnapshotC.is(JSON.parse(JSON.stringify(toSnapshot(emptyState())))) // true
 *
 * @since 0.1.0
 * @category codecs
 */
export const ChatSnapshotC: t.ReadonlyC<
  t.ExactC<
    t.TypeC<{
      modality_type: t.LiteralC<'chat'>
      last_updated: t.UnionC<[typeof IsoTimestampC, t.NullC]>
      update_count: typeof CountC
      max_history_size: typeof LimitC
      default_conversation_id: typeof ChatIdC
      conversations: t.UnknownRecordC
      messages: t.ReadonlyArrayC<typeof ChatMessageC>
    }>
  >
> = t.readonly(
  t.exact(
    t.type({
      modality_type: t.literal('chat'),
      last_updated: t.union([IsoTimestampC, t.null]),
      update_count: CountC,
      max_history_size: LimitC,
      default_conversation_id: ChatIdC,
      conversations: t.UnknownRecord,
      messages: t.readonlyArray(ChatMessageC),
    }),
  ),
  'ChatSnapshot',
)

/**
 * A snapshot of a chat store: its counters and limits, each conversation's metadata by id, and
 * every held message, chronologically.
 *
 * @since 0.1.0
 * @category model
 */
export type ChatSnapshot = Omit<t.TypeOf<typeof ChatSnapshotC>, 'conversations'> & {
  readonly conversations: Readonly<Record<string, ConversationMetadata>>
}

/**
 * A snapshot's JSON form (`max_history_size` is `null` when there is no limit).
 *
 * @since 0.1.0
 * @category model
 */
export type ChatSnapshotWire = Omit<ChatSnapshot, 'max_history_size'> & { readonly max_history_size: number | null }

// --- to the wire ---

/** The wire form of one held message (what a snapshot lists). */
export const toChatMessage = (r: ChatRecord): ChatMessage => ({
  message_id: r.message.id,
  conversation_id: r.message.conversationId ?? '',
  role: r.message.role === 'assistant' ? 'assistant' : 'user',
  content: r.content,
  timestamp: r.message.createdAt ?? '',
  input_id: r.inputId,
  ...(r.message.metadata === undefined ? {} : { metadata: r.message.metadata }),
})

/**
 * The wire form of messages the state holds (looked up by message id, in O(log n) each),
 * with their content exactly as sent; messages it does not hold are left out.
 *
 * @example
 * import { pipe } from 'fp-ts/function'
 * import { emptyState, query, toChatMessages } from 'chatfold/store'
 * const state = emptyState()
 * pipe(state, query({ limit: 10 }), toChatMessages(state)) // []
 *
 * @since 0.1.0
 * @category export
 */
export const toChatMessages = (state: ChatState) => (ms: Messages): ReadonlyArray<ChatMessage> => {
  const out: ChatMessage[] = []
  for (const m of ms) {
    const r = T.get(compareStrings, idKey(m.id, m.conversationId ?? state.defaultConversationId), state.byId)
    if (r !== undefined) out.push(toChatMessage(r))
  }
  return out
}

/**
 * A snapshot of the whole state, ready for `JSON.stringify`: counters,
 * limits, each conversation's metadata, and every held message chronologically with content
 * exactly as sent.
 *
 * @example
 * import { emptyState, toSnapshot } from 'chatfold/store'
 * toSnapshot(emptyState()).conversations // {}
 *
 * @since 0.1.0
 * @category export
 */
export const toSnapshot = (state: ChatState): ChatSnapshotWire => ({
  modality_type: 'chat',
  last_updated: state.lastUpdated ?? null,
  update_count: state.updateCount,
  max_history_size: state.maxHistorySize === Infinity ? null : state.maxHistorySize,
  default_conversation_id: state.defaultConversationId,
  conversations: Object.fromEntries(T.values(state.conversations).map((c) => [c.meta.conversation_id, c.meta])),
  messages: T.values(state.timeline).map(toChatMessage),
})

// --- from the wire ---

/**
 * Restores a state from a snapshot (its JSON form, parsed), decoding every field and then
 * checking the state's invariants (history limits, metadata covering the messages, unique
 * message ids); every problem is reported by path. Messages may come in any order.
 *
 * @example
 * import { emptyState, fromSnapshot, toSnapshot } from 'chatfold/store'
 * const state = emptyState()
 * fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state)))) // right(state)
 *
 * @since 0.1.0
 * @category codecs
 */
export const fromSnapshot = (u: unknown): E.Either<DecodeFailure, ChatState> => {
  const r = ChatSnapshotC.decode(u)
  if (E.isLeft(r)) return E.left(failureFromErrors(r.left))
  const s = r.right
  const issues: DecodeIssue[] = []
  const metas = new Map<string, ConversationMetadata>()
  for (const [id, m] of Object.entries(s.conversations)) {
    const path = `conversations[${JSON.stringify(id)}]`
    const d = ConversationMetadataC.decode(m)
    if (E.isLeft(d)) { for (const i of prefixFailure(path)(failureFromErrors(d.left))) issues.push(i) }
    else if (d.right.conversation_id !== id) issues.push({ path: `${path}.conversation_id`, expected: JSON.stringify(id), actual: d.right.conversation_id })
    else metas.set(id, d.right)
  }
  const byConversation = new Map<string, ChatRecord[]>()
  const ids = new Set<string>()
  s.messages.forEach((m, i) => {
    const path = `messages[${i}]`
    if (ids.has(m.message_id)) issues.push({ path: `${path}.message_id`, expected: 'a message id used once', actual: m.message_id })
    ids.add(m.message_id)
    if (!metas.has(m.conversation_id) && !Object.prototype.hasOwnProperty.call(s.conversations, m.conversation_id)) {
      issues.push({ path: `${path}.conversation_id`, expected: 'a conversation listed in conversations', actual: m.conversation_id })
    }
    const record = recordOf(m)
    const list = byConversation.get(m.conversation_id) ?? []
    list.push(record)
    byConversation.set(m.conversation_id, list)
  })
  if (issues.length > 0) return E.left(issues)
  const conversations: Conversation[] = [...metas.values()].map((meta) => {
    const records = (byConversation.get(meta.conversation_id) ?? []).sort((a, b) => compareKeys(a.key, b.key))
    return { meta, messages: T.fromSorted(records.map((x) => [x.key, x] as const)) }
  })
  const state = fromConversations(
    {
      lastUpdated: s.last_updated ?? undefined,
      updateCount: s.update_count,
      maxHistorySize: s.max_history_size,
      defaultConversationId: s.default_conversation_id,
    },
    conversations,
  )
  return validateState(state)
}
