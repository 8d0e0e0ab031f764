/**
 * `ChatState`: a multi-conversation chat store as an immutable value. `applyInput`
 * adds a message to its conversation in timestamp order (ties by input id, also when inputs
 * arrive out of order), keeps at most `maxHistorySize` messages per conversation (the oldest go,
 * the conversation's metadata and counts stay), and returns a new state; the old one is intact.
 * Each apply costs O(log n): the indexes are persistent balanced trees sharing structure.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import type { DecodeFailure, DecodeIssue } from '../message/failure.ts'
import { ChatIdC, type ChatInput, type ChatRole, validateInput } from './input.ts'
import {
  type ChatState,
  compareInstants,
  compareKeys,
  compareStrings,
  type ConversationMetadata,
  conversationOf,
  fromConversations,
  idKey,
  instantOf,
  type StoreFailure,
} from './core.ts'
import { applyValidInput } from './_apply.ts'
import * as T from './_tree.ts'
import { wholeOption } from '../internal/number.ts'

// the model of the state lives with the store's shared internals; it is public from here
export { type ChatState, type ConversationMetadata, ConversationMetadataC, type StoreFailure } from './core.ts'

// --- constructors ---

/**
 * The history limit per conversation when none is given: 1000.
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

const normaliseLimit = (n: number | undefined): number => wholeOption(n, { fallback: DEFAULT_MAX_HISTORY_SIZE })

/**
 * A state without conversations.
 *
 * @example
 * import { emptyState } from 'chatfold/store'
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

/**
 * Adds one message: validates the input, puts the message in its
 * conversation (the input's `conversation_id`, or the default one) in timestamp order, ties
 * broken by input id, updates the conversation's metadata, `lastUpdated` and `updateCount`, and
 * drops the conversation's oldest messages beyond `maxHistorySize`. The message id is the input's
 * `message_id`, or its `input_id` when it has none. Fails, changing nothing, on an invalid input
 * or a message id the state already holds.
 *
 * @example
 * import { applyInput, emptyState, makeChatInput } from 'chatfold/store'
 * const r = applyInput(makeChatInput({ role: 'user', content: "What's the weather?" }))(emptyState())
 * // right(state) with one message in the "default" conversation
 *
 * @since 0.1.0
 * @category edits
 */
export const applyInput = (raw: ChatInput) => (state: ChatState): E.Either<StoreFailure, ChatState> => {
  const valid = validateInput(raw)
  return E.isLeft(valid) ? E.left({ kind: 'invalid_input', failure: valid.left }) : applyValidInput(valid.right)(state)
}

/**
 * Applies inputs in turn, stopping at the first that fails.
 *
 * @example
 * import { applyInputs, emptyState, makeChatInput } from 'chatfold/store'
 * applyInputs([makeChatInput({ role: 'user', content: 'Hi' }), makeChatInput({ role: 'assistant', content: 'Hello!' })])(emptyState())
 *
 * @since 0.1.0
 * @category edits
 */
export const applyInputs = (inputs: ReadonlyArray<ChatInput>) => (state: ChatState): E.Either<StoreFailure, ChatState> => {
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
 * import { conversationIds, emptyState } from 'chatfold/store'
 * conversationIds(emptyState()) // []
 *
 * @since 0.1.0
 * @category lookups
 */
export const conversationIds = (state: ChatState): ReadonlyArray<string> => T.values(state.conversations).map((c) => c.meta.conversation_id)

/**
 * A conversation's metadata, `none` when the conversation has never
 * had a message.
 *
 * @example
 * import { emptyState, getConversationMetadata } from 'chatfold/store'
 * getConversationMetadata('default')(emptyState()) // none
 *
 * @since 0.1.0
 * @category lookups
 */
export const getConversationMetadata = (conversationId: string) => (state: ChatState): O.Option<ConversationMetadata> =>
  O.fromNullable(conversationOf(state, conversationId)?.meta)

/**
 * The state seen by a caller allowed only some conversations: the others and their messages
 * are left out, and the store's counters are those of the conversations kept (`updateCount`
 * their message counts, `lastUpdated` their latest message), so that nothing tells how busy the
 * others are; limits stay. Returns the state itself when it holds no other conversation.
 *
 * @example
 * import { emptyState, restrictTo } from 'chatfold/store'
 * const state = emptyState()
 * // nothing to hide: the state itself
 * restrictTo(['support-42'])(state) === state // true
 *
 * @since 0.1.0
 * @category lookups
 */
export const restrictTo = (conversationIds: ReadonlyArray<string>) => (state: ChatState): ChatState => {
  const allowed = new Set(conversationIds)
  const all = T.values(state.conversations)
  const kept = all.filter((c) => allowed.has(c.meta.conversation_id))
  if (kept.length === all.length) return state
  let updateCount = 0
  let lastUpdated: string | undefined
  for (const c of kept) {
    updateCount += c.meta.message_count
    if (lastUpdated === undefined || compareInstants(instantOf(c.meta.last_message_at), instantOf(lastUpdated)) > 0) lastUpdated = c.meta.last_message_at
  }
  return fromConversations({ ...state, updateCount, lastUpdated }, kept)
}

// --- validation ---

const at = (id: string): string => `conversations[${JSON.stringify(id)}]`

/**
 * Checks a state's invariants: messages in timestamp order with ties by
 * input id, every index consistent with the conversations, each conversation within the history
 * limit, its metadata covering the messages it holds. Returns the state itself when it holds, and
 * every broken invariant by path otherwise. States built by `applyInput` always pass; use it on
 * states restored from elsewhere.
 *
 * @example
 * import { emptyState, validateState } from 'chatfold/store'
 * const state = emptyState()
 * validateState(state) // right(state)
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
    if (first !== undefined && compareInstants(instantOf(c.meta.created_at), first.key) > 0)
      push(`${at(id)}.created_at`, `at or before ${first.message.createdAt}`, c.meta.created_at)
    if (last !== undefined && compareInstants(instantOf(c.meta.last_message_at), last.key) < 0)
      push(`${at(id)}.last_message_at`, `at or after ${last.message.createdAt}`, c.meta.last_message_at)
    records.forEach((r, i) => {
      const path = `${at(id)}.messages[${i}]`
      if (r.message.conversationId !== id) push(`${path}.conversation_id`, JSON.stringify(id), r.message.conversationId)
      if (!c.meta.participant_roles.includes(r.message.role as ChatRole))
        push(`${at(id)}.participant_roles`, `to include ${r.message.role}`, c.meta.participant_roles)
      if (T.get(compareStrings, idKey(r.message.id, id), state.byId) !== r) push(`${path}.message_id`, 'indexed by message id', r.message.id)
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
