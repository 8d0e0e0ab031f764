/**
 * The chat store's value and its indexes, shared by the store modules (not exported from the
 * package entry): the sort key of a message (timestamp, then input id), the stored record (the
 * content exactly as sent, and the chatfold message read from it), per-conversation metadata, and
 * `ChatState`, with the type of the compaction overlays kept beside it.
 *
 * @module
 */
import * as t from 'io-ts'
import type { DecodeFailure } from '../message/failure.ts'
import type { Message } from '../message/message.ts'
import type { Part } from '../message/part-model.ts'
import { decodeBase64 } from '../internal/base64.ts'
import { IsoTimestampC } from '../message/message.ts'
import { type ChatContent, fromChatContent } from './content.ts'
import { ChatIdC, type ChatRole, ChatRoleC } from './input.ts'
import * as T from './_tree.ts'

// --- keys ---

/**
 * Where a message sorts: its timestamp (milliseconds since the epoch, then the digits below the
 * millisecond, so that nanosecond timestamps keep their order), then its input id, then its
 * message id and conversation (`idKey`: unique in a state, so that no two messages share a key).
 */
export type MessageKey = {
  readonly ms: number
  readonly sub: number
  readonly inputId: string
  readonly id: string
}

/** An instant: milliseconds and the millionths of a millisecond below them. */
export type Instant = { readonly ms: number; readonly sub: number }

/** Parses an ISO-8601 timestamp already validated by `IsoTimestampC` (about a microsecond). */
export const instantOf = (iso: string): Instant => {
  const frac = /T[^.]*\.(\d+)/.exec(iso)?.[1] ?? ''
  return { ms: Date.parse(iso), sub: frac.length > 3 ? Number(frac.slice(3, 9).padEnd(6, '0')) : 0 }
}

export const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

export const compareInstants = (a: Instant, b: Instant): number => (a.ms !== b.ms ? (a.ms < b.ms ? -1 : 1) : a.sub - b.sub)

export const compareKeys: T.Compare<MessageKey> = (a, b) => compareInstants(a, b) || compareStrings(a.inputId, b.inputId) || compareStrings(a.id, b.id)

export const keyOf = (timestamp: string, inputId: string, id: string): MessageKey => ({ ...instantOf(timestamp), inputId, id })

/**
 * A message's key in the id index: its message id, then its conversation. Message ids are scoped
 * to a conversation (the same id may be held in two), and ids hold no control character, so the
 * index sorts by message id first and the keys of one message id are adjacent.
 */
export const idKey = (messageId: string, conversationId: string): string => `${messageId}\u0000${conversationId}`

// --- records ---

/**
 * The parts of content as `fromChatContent` makes them, but for the bytes of base64 media: each
 * such part's `data` decodes them from the content when read (a new `Uint8Array` each time), so
 * that a stored message holds its media once, as sent, not a second time as bytes.
 */
export const partsOf = (content: ChatContent): ReadonlyArray<Part> => {
  if (typeof content === 'string') return fromChatContent(content)
  // the parts of the blocks with their base64 left out, one part a block, in order
  const parts = fromChatContent(content.map((b) => (b.type !== 'text' && b.source === 'base64' ? { ...b, data: '' } : b)))
  content.forEach((b, i) => {
    const part = parts[i]
    if (b.type === 'text' || b.source !== 'base64' || part === undefined) return
    // redefined in place: the property keeps its position, and the part is made here, never seen before
    Object.defineProperty(part, 'data', { enumerable: true, configurable: true, get: () => decodeBase64(b.data) ?? new Uint8Array() })
  })
  return parts
}

/**
 * A stored message: the content exactly as sent, the chatfold message read from it (its media
 * bytes decoded from the content when read, see `partsOf`), the input's id, its key.
 */
export type ChatRecord = {
  readonly key: MessageKey
  readonly message: Message
  readonly content: ChatContent
  readonly inputId: string
}

/** A stored message as a snapshot lists it, with the store's snake_case wire names. */
type HeldMessage = {
  readonly message_id: string
  readonly conversation_id: string
  readonly role: ChatRole
  readonly content: ChatContent
  readonly timestamp: string
  readonly input_id: string
  readonly metadata?: Readonly<Record<string, unknown>>
}

/** The record of a message a snapshot lists: what loading a snapshot and recovering a log both rebuild. */
export const recordOf = (m: HeldMessage): ChatRecord => ({
  key: keyOf(m.timestamp, m.input_id, idKey(m.message_id, m.conversation_id)),
  message: {
    id: m.message_id,
    role: m.role,
    parts: partsOf(m.content),
    kind: 'normal',
    conversationId: m.conversation_id,
    createdAt: m.timestamp,
    ...(m.metadata === undefined ? {} : { metadata: m.metadata }),
  },
  content: m.content,
  inputId: m.input_id,
})

/**
 * Metadata of one conversation: when it started, when its last
 * message was sent, how many messages it has had (pruned ones included), and which roles spoke.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ConversationMetadataC: t.ReadonlyC<
  t.ExactC<
    t.TypeC<{
      conversation_id: typeof ChatIdC
      created_at: typeof IsoTimestampC
      last_message_at: typeof IsoTimestampC
      message_count: t.NumberC
      participant_roles: t.ReadonlyArrayC<typeof ChatRoleC>
    }>
  >
> = t.readonly(
  t.exact(
    t.type({
      conversation_id: ChatIdC,
      created_at: IsoTimestampC,
      last_message_at: IsoTimestampC,
      message_count: t.number,
      participant_roles: t.readonlyArray(ChatRoleC),
    }),
  ),
  'ConversationMetadata',
)

/** @since 0.1.0 @category model */
export type ConversationMetadata = t.TypeOf<typeof ConversationMetadataC>

/** One conversation: its metadata and the messages it still holds, in time order. */
export type Conversation = {
  readonly meta: ConversationMetadata
  readonly messages: T.Tree<MessageKey, ChatRecord>
}

// --- state ---

/**
 * The chat modality's state: an immutable value holding every conversation,
 * its metadata and its messages, with indexes by conversation, by message id and by time, so that
 * lookups never scan. Build it with `emptyState`, change it with `applyInput`, read it with
 * `query`, `getConversation`, `getRecentMessages`, `getMessageById` and `toSnapshot`.
 *
 * @since 0.1.0
 * @category model
 */
export type ChatState = {
  /** When the state last changed: the latest timestamp of an applied input. */
  readonly lastUpdated: string | undefined
  /** How many messages have been added. */
  readonly updateCount: number
  /** Most messages kept per conversation; older ones are dropped. */
  readonly maxHistorySize: number
  /** Where inputs without a conversation id go. */
  readonly defaultConversationId: string
  /** Conversations by id. */
  readonly conversations: T.Tree<string, Conversation>
  /** Every held message by message id and conversation (`idKey`). */
  readonly byId: T.Tree<string, ChatRecord>
  /** Every held message in time order, across conversations. */
  readonly timeline: T.Tree<MessageKey, ChatRecord>
}

// --- overlays ---

/**
 * A committed compaction: the conversation, the first message it stands for, the head it was
 * computed from (the conversation's last message then), the last message it stands for when that
 * is not the head (`through`: the messages after it are kept as they are), the summary's text,
 * what its writer keeps beside it (`metadata`), and when it was committed.
 */
export type Overlay = {
  readonly conversation_id: string
  readonly from: string
  readonly head: string
  readonly through?: string
  readonly summary: string
  readonly metadata?: Readonly<Record<string, unknown>>
  readonly committed_at: string
}

/** The overlays of a simulator's conversations, oldest first. */
export type Overlays = T.Tree<string, ReadonlyArray<Overlay>>

// --- errors ---

/**
 * Why a step was not applied: it is not a valid chat input (every bad field listed), its message
 * id is already held by the store, a fork names a message its conversation does not hold
 * (`unknown_message`), a fork's new conversation exists already (`conversation_exists`), or a
 * compaction was computed from a head the conversation has moved on from (`stale_head`: its head now).
 *
 * @since 0.1.0
 * @category model
 */
export type StoreFailure =
  | { readonly kind: 'invalid_input'; readonly failure: DecodeFailure }
  | { readonly kind: 'duplicate_message'; readonly messageId: string; readonly conversationId: string }
  | { readonly kind: 'unknown_message'; readonly messageId: string; readonly conversationId: string }
  | { readonly kind: 'conversation_exists'; readonly conversationId: string }
  | { readonly kind: 'stale_head'; readonly conversationId: string; readonly expected: string; readonly head: string | null }

/** The conversation of a state, by id. */
export const conversationOf = (state: ChatState, id: string): Conversation | undefined => T.get(compareStrings, id, state.conversations)

/** Roles in a fixed order: user first. */
export const sortRoles = (roles: ReadonlyArray<ChatRole>): ReadonlyArray<ChatRole> => (['user', 'assistant'] as const).filter((r) => roles.includes(r))

/**
 * Builds a state from conversations whose message trees are already built: the id and time
 * indexes are rebuilt from them, in O(n log n).
 */
export const fromConversations = (
  base: Omit<ChatState, 'conversations' | 'byId' | 'timeline'>,
  conversations: ReadonlyArray<Conversation>,
): ChatState => {
  const records: ChatRecord[] = []
  for (const c of conversations) for (const r of T.values(c.messages)) records.push(r)
  records.sort((a, b) => compareKeys(a.key, b.key))
  const idOf = (r: ChatRecord): string => idKey(r.message.id, r.message.conversationId ?? '')
  const byId = [...records].sort((a, b) => compareStrings(idOf(a), idOf(b)))
  const convs = [...conversations].sort((a, b) => compareStrings(a.meta.conversation_id, b.meta.conversation_id))
  return {
    ...base,
    conversations: T.fromSorted(convs.map((c) => [c.meta.conversation_id, c] as const)),
    byId: T.fromSorted(byId.map((r) => [idOf(r), r] as const)),
    timeline: T.fromSorted(records.map((r) => [r.key, r] as const)),
  }
}
