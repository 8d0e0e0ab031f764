/**
 * The step every path into a chat store ends in (not exported from the package entry): a
 * `ValidInput` becomes a message of its conversation. It trusts its input, decoded once where it
 * entered (`applyInput`, the simulator's `submitEvent` and `scheduleEvent`, a log's replay), and
 * checks nothing of it again; it only refuses a message id the state already holds.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { Message } from '../message/message.ts'
import type { ChatRole, ValidInput } from './input.ts'
import {
  type ChatRecord,
  type ChatState,
  compareInstants,
  compareKeys,
  compareStrings,
  type Conversation,
  type ConversationMetadata,
  conversationOf,
  idKey,
  instantOf,
  keyOf,
  type MessageKey,
  partsOf,
  sortRoles,
  type StoreFailure,
} from './core.ts'
import * as T from './_tree.ts'

/** The chatfold message an input becomes: its media bytes are read from the input's content, not copied. */
const messageOf = (input: ValidInput, id: string, conversationId: string): Message => ({
  id,
  role: input.role,
  parts: partsOf(input.content),
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
 * Adds the message of a valid input to its conversation (`applyInput` without the validation):
 * in timestamp order, ties by input id; updates the conversation's metadata, `lastUpdated` and
 * `updateCount`, and drops the conversation's oldest messages beyond `maxHistorySize`. Fails,
 * changing nothing, on a message id the state already holds.
 */
export const applyValidInput = (input: ValidInput) => (state: ChatState): E.Either<StoreFailure, ChatState> => {
  const conversationId = input.conversation_id ?? state.defaultConversationId
  const id = input.message_id ?? input.input_id
  // message ids are scoped to their conversation: one held elsewhere is no duplicate (nor a sign of it)
  const indexKey = idKey(id, conversationId)
  if (T.get(compareStrings, indexKey, state.byId) !== undefined) return E.left({ kind: 'duplicate_message', messageId: id, conversationId })
  const record: ChatRecord = {
    key: keyOf(input.timestamp, input.input_id, indexKey),
    message: messageOf(input, id, conversationId),
    content: input.content,
    inputId: input.input_id,
  }
  const old = conversationOf(state, conversationId)
  const meta: ConversationMetadata = old === undefined
    ? { conversation_id: conversationId, created_at: input.timestamp, last_message_at: input.timestamp, message_count: 1, participant_roles: [input.role] }
    : {
      conversation_id: conversationId,
      created_at: earlier(old.meta.created_at, input.timestamp),
      last_message_at: later(old.meta.last_message_at, input.timestamp),
      message_count: old.meta.message_count + 1,
      participant_roles: withRole(old.meta.participant_roles, input.role),
    }
  let messages: T.Tree<MessageKey, ChatRecord> = T.insert(compareKeys, record.key, record, old?.messages)
  let byId: T.Tree<string, ChatRecord> = T.insert(compareStrings, indexKey, record, state.byId)
  let timeline: T.Tree<MessageKey, ChatRecord> = T.insert(compareKeys, record.key, record, state.timeline)
  while (messages !== undefined && messages.n > state.maxHistorySize) {
    const [oldest, rest]: readonly [T.Node<MessageKey, ChatRecord>, T.Tree<MessageKey, ChatRecord>] = T.removeMin(messages)
    messages = rest
    byId = T.remove(compareStrings, idKey(oldest.v.message.id, conversationId), byId)
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
