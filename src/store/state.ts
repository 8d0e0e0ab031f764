/**
 * `ChatState` (seed 001): a multi-conversation chat store as an immutable value. `applyInput`
 * adds a message to its conversation in timestamp order (ties by input id, also when inputs
 * arrive out of order), keeps at most `maxHistorySize` messages per conversation (the oldest go,
 * the conversation's metadata and counts stay), and returns a new state; the old one is intact.
 * Each apply costs O(log n): the indexes are persistent balanced trees sharing structure.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import type { DecodeFailure, DecodeIssue } from '../failure.ts'
import type { Message } from '../message.ts'
import { fromChatContent } from '../content.ts'
import { type ChatInput, ChatIdC, type ChatRole, validateInput } from './input.ts'
import {
  type ChatRecord,
  type ChatState,
  compareInstants,
  compareKeys,
  compareStrings,
  type Conversation,
  type ConversationMetadata,
  conversationOf,
  fromConversations,
  instantOf,
  keyOf,
  type MessageKey,
  sortRoles,
} from './core.ts'
import * as T from './tree.ts'
import { wholeOption } from '../internal/number.ts'

// the model of the state lives with the store's shared internals; it is public from here
export { type ChatState, type ConversationMetadata, ConversationMetadataC } from './core.ts'

// --- errors ---

/**
 * Why an input was not applied: it is not a valid chat input (every bad field listed), or its
 * message id is already held by the store.
 *
 * @since 0.1.0
 * @category model
 */
export type StoreError =
  | { readonly type: 'invalid_input'; readonly failure: DecodeFailure }
  | { readonly type: 'duplicate_message'; readonly messageId: string; readonly conversationId: string }

// --- constructors ---

/**
 * The history limit per conversation when none is given (seed: 1000).
 *
 * @example
 * import { DEFAULT_MAX_HISTORY_SIZE, emptyState } from 'chatfold'
 * emptyState().maxHistorySize === DEFAULT_MAX_HISTORY_SIZE // true
 *
 * @since 0.1.0
 * @category constructors
 */
export const DEFAULT_MAX_HISTORY_SIZE = 1000

/**
 * Options of a new state: the most messages kept per conversation (default 1000; `Infinity` for
 * no limit; normalised to a non-negative integer) and the default conversation's id (`"default"`).
 *
 * @since 0.1.0
 * @category constructors
 */
export type ChatStateOptions = {
  readonly maxHistorySize?: number
  readonly defaultConversationId?: string
}

const normaliseLimit = (n: number | undefined): number =>
  wholeOption(n, { fallback: DEFAULT_MAX_HISTORY_SIZE })

/**
 * A state without conversations.
 *
 * @example
 * import { emptyState } from 'chatfold'
 * const state = emptyState({ maxHistorySize: 200 })
 *
 * @since 0.1.0
 * @category constructors
 */
export const emptyState = (options: ChatStateOptions = {}): ChatState => ({
  lastUpdated: undefined,
  updateCount: 0,
  maxHistorySize: normaliseLimit(options.maxHistorySize),
  defaultConversationId: ChatIdC.is(options.defaultConversationId) ? options.defaultConversationId : 'default',
  conversations: undefined,
  byId: undefined,
  timeline: undefined,
})

// --- apply ---

/** The chatfold message an input becomes. */
const messageOf = (input: ChatInput, id: string, conversationId: string): Message => ({
  id,
  role: input.role,
  parts: fromChatContent(input.content),
  kind: 'normal',
  conversationId,
  createdAt: input.timestamp,
  ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
})

/** Orders timestamps by instant, and the spellings of one instant by text, so results never depend on arrival order. */
const compareTimestamps = (a: string, b: string): number => compareInstants(instantOf(a), instantOf(b)) || compareStrings(a, b)
const later = (a: string, b: string): string => (compareTimestamps(a, b) >= 0 ? a : b)
const earlier = (a: string, b: string): string => (compareTimestamps(a, b) <= 0 ? a : b)

const withRole = (roles: ReadonlyArray<ChatRole>, role: ChatRole): ReadonlyArray<ChatRole> => (roles.includes(role) ? roles : sortRoles([...roles, role]))

/**
 * Adds one message (seed `apply_input`): validates the input, puts the message in its
 * conversation (the input's `conversation_id`, or the default one) in timestamp order, ties
 * broken by input id, updates the conversation's metadata, `lastUpdated` and `updateCount`, and
 * drops the conversation's oldest messages beyond `maxHistorySize`. The message id is the input's
 * `message_id`, or its `input_id` when it has none. Fails, changing nothing, on an invalid input
 * or a message id the state already holds.
 *
 * @example
 * import { applyInput, emptyState, makeChatInput } from 'chatfold'
 * const r = applyInput(makeChatInput({ role: 'user', content: "What's the weather?" }))(emptyState())
 * // right(state) with one message in the "default" conversation
 *
 * @since 0.1.0
 * @category edits
 */
export const applyInput =
  (raw: ChatInput) =>
  (state: ChatState): E.Either<StoreError, ChatState> => {
    const valid = validateInput(raw)
    if (E.isLeft(valid)) return E.left({ type: 'invalid_input', failure: valid.left })
    const input = valid.right
    const conversationId = input.conversation_id ?? state.defaultConversationId
    const id = input.message_id ?? input.input_id
    if (T.get(compareStrings, id, state.byId) !== undefined) return E.left({ type: 'duplicate_message', messageId: id, conversationId })
    const record: ChatRecord = {
      key: keyOf(input.timestamp, input.input_id, id),
      message: messageOf(input, id, conversationId),
      content: input.content,
      inputId: input.input_id,
    }
    const old = conversationOf(state, conversationId)
    const meta: ConversationMetadata =
      old === undefined
        ? { conversation_id: conversationId, created_at: input.timestamp, last_message_at: input.timestamp, message_count: 1, participant_roles: [input.role] }
        : {
            conversation_id: conversationId,
            created_at: earlier(old.meta.created_at, input.timestamp),
            last_message_at: later(old.meta.last_message_at, input.timestamp),
            message_count: old.meta.message_count + 1,
            participant_roles: withRole(old.meta.participant_roles, input.role),
          }
    let messages: T.Tree<MessageKey, ChatRecord> = T.insert(compareKeys, record.key, record, old?.messages)
    let byId: T.Tree<string, ChatRecord> = T.insert(compareStrings, id, record, state.byId)
    let timeline: T.Tree<MessageKey, ChatRecord> = T.insert(compareKeys, record.key, record, state.timeline)
    while (messages !== undefined && messages.n > state.maxHistorySize) {
      const [oldest, rest]: readonly [T.Node<MessageKey, ChatRecord>, T.Tree<MessageKey, ChatRecord>] = T.removeMin(messages)
      messages = rest
      byId = T.remove(compareStrings, oldest.v.message.id, byId)
      timeline = T.remove(compareKeys, oldest.k, timeline)
    }
    const conversation: Conversation = { meta, messages }
    return E.right({
      ...state,
      lastUpdated: state.lastUpdated === undefined ? input.timestamp : later(state.lastUpdated, input.timestamp),
      updateCount: state.updateCount + 1,
      conversations: T.insert(compareStrings, conversationId, conversation, state.conversations),
      byId,
      timeline,
    })
  }

/**
 * Applies inputs in turn, stopping at the first that fails.
 *
 * @example
 * import { applyInputs, emptyState, makeChatInput } from 'chatfold'
 * applyInputs([makeChatInput({ role: 'user', content: 'Hi' }), makeChatInput({ role: 'assistant', content: 'Hello!' })])(emptyState())
 *
 * @since 0.1.0
 * @category edits
 */
export const applyInputs =
  (inputs: ReadonlyArray<ChatInput>) =>
  (state: ChatState): E.Either<StoreError, ChatState> => {
    let s = state
    for (const input of inputs) {
      const r = applyInput(input)(s)
      if (E.isLeft(r)) return r
      s = r.right
    }
    return E.right(s)
  }

// --- lookups ---

/**
 * The ids of the state's conversations, in lexicographic order.
 *
 * @example
 * import { conversationIds, emptyState } from 'chatfold'
 * conversationIds(emptyState()) // []
 *
 * @since 0.1.0
 * @category lookups
 */
export const conversationIds = (state: ChatState): ReadonlyArray<string> => T.values(state.conversations).map((c) => c.meta.conversation_id)

/**
 * A conversation's metadata (seed `ConversationMetadata`), `none` when the conversation has never
 * had a message.
 *
 * @example
 * import { emptyState, getConversationMetadata } from 'chatfold'
 * getConversationMetadata('default')(emptyState()) // none
 *
 * @since 0.1.0
 * @category lookups
 */
export const getConversationMetadata =
  (conversationId: string) =>
  (state: ChatState): O.Option<ConversationMetadata> =>
    O.fromNullable(conversationOf(state, conversationId)?.meta)

/**
 * The state seen by a caller allowed only some conversations: the others and their messages
 * are left out (counters and limits stay). Returns the state itself when it holds no other
 * conversation.
 *
 * @example
 * import { emptyState, restrictTo } from 'chatfold'
 * const state = emptyState()
 * restrictTo(['support-42'])(state) === state // true: nothing to hide
 *
 * @since 0.1.0
 * @category lookups
 */
export const restrictTo =
  (conversationIds: ReadonlyArray<string>) =>
  (state: ChatState): ChatState => {
    const allowed = new Set(conversationIds)
    const all = T.values(state.conversations)
    const kept = all.filter((c) => allowed.has(c.meta.conversation_id))
    if (kept.length === all.length) return state
    return fromConversations(state, kept)
  }

// --- validation ---

const at = (id: string): string => `conversations[${JSON.stringify(id)}]`

/**
 * Checks a state's invariants (seed `validate_state`): messages in timestamp order with ties by
 * input id, every index consistent with the conversations, each conversation within the history
 * limit, its metadata covering the messages it holds. Returns the state itself when it holds, and
 * every broken invariant by path otherwise. States built by `applyInput` always pass; use it on
 * states restored from elsewhere.
 *
 * @example
 * import { emptyState, validateState } from 'chatfold'
 * validateState(emptyState()) // right(state)
 *
 * @since 0.1.0
 * @category lookups
 */
export const validateState = (state: ChatState): E.Either<DecodeFailure, ChatState> => {
  const out: DecodeIssue[] = []
  const push = (path: string, expected: string, actual: unknown) => void out.push({ path, expected, actual })
  if (!T.isValidTree(compareStrings, state.conversations)) push('conversations', 'a balanced index ordered by id', '(corrupt index)')
  if (!T.isValidTree(compareStrings, state.byId)) push('byId', 'a balanced index ordered by message id', '(corrupt index)')
  if (!T.isValidTree(compareKeys, state.timeline)) push('messages', 'messages ordered by timestamp, then input id', '(out of order)')
  let held = 0
  let counted = 0
  for (const c of T.values(state.conversations)) {
    const id = c.meta.conversation_id
    const records = T.values(c.messages)
    held += records.length
    counted += c.meta.message_count
    if (!T.isValidTree(compareKeys, c.messages)) push(`${at(id)}.messages`, 'messages ordered by timestamp, then input id', '(out of order)')
    if (records.length > state.maxHistorySize) push(`${at(id)}.messages`, `at most ${state.maxHistorySize} messages (max_history_size)`, records.length)
    if (c.meta.message_count < records.length) push(`${at(id)}.message_count`, `at least ${records.length} (the messages held)`, c.meta.message_count)
    const first = records[0]
    const last = records[records.length - 1]
    if (first !== undefined && compareInstants(instantOf(c.meta.created_at), first.key) > 0) push(`${at(id)}.created_at`, `at or before ${first.message.createdAt}`, c.meta.created_at)
    if (last !== undefined && compareInstants(instantOf(c.meta.last_message_at), last.key) < 0) push(`${at(id)}.last_message_at`, `at or after ${last.message.createdAt}`, c.meta.last_message_at)
    records.forEach((r, i) => {
      const path = `${at(id)}.messages[${i}]`
      if (r.message.conversationId !== id) push(`${path}.conversation_id`, JSON.stringify(id), r.message.conversationId)
      if (!c.meta.participant_roles.includes(r.message.role as ChatRole)) push(`${at(id)}.participant_roles`, `to include ${r.message.role}`, c.meta.participant_roles)
      if (T.get(compareStrings, r.message.id, state.byId) !== r) push(`${path}.message_id`, 'indexed by message id', r.message.id)
      if (T.get(compareKeys, r.key, state.timeline) !== r) push(path, 'in the time index', r.message.id)
    })
  }
  if (T.size(state.byId) !== held) push('byId', `${held} messages (those the conversations hold)`, T.size(state.byId))
  if (T.size(state.timeline) !== held) push('messages', `${held} messages (those the conversations hold)`, T.size(state.timeline))
  if (state.updateCount < counted) push('update_count', `at least ${counted} (the conversations' message counts)`, state.updateCount)
  const newest = T.max(state.timeline)
  if (newest !== undefined && (state.lastUpdated === undefined || compareInstants(instantOf(state.lastUpdated), newest.k) < 0)) {
    push('last_updated', `at or after ${newest.v.message.createdAt}`, state.lastUpdated)
  }
  return out.length > 0 ? E.left(out) : E.right(state)
}
