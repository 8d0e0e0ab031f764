/**
 * What steps added to a chat store, between two of its states: the messages each conversation
 * gained (in the conversation's order, in their wire form), found by walking only the parts of
 * the state's trees that changed. What a store that publishes its conversations as streams runs
 * at each commit (not an entry's export).
 *
 * @module
 */
import { type ChatState, compareKeys, compareStrings, idKey } from './core.ts'
import { type ChatMessage, toChatMessage } from './snapshot.ts'
import * as T from './_tree.ts'

/** The messages one conversation gained; `fresh` when the conversation held nothing before. */
export type AddedMessages = {
  readonly conversationId: string
  readonly fresh: boolean
  readonly messages: ReadonlyArray<ChatMessage>
}

/**
 * The messages `after` holds that `before` did not (by message id, in each conversation), by
 * conversation (in id order); conversations that gained none are left out. A message that came
 * in out of time order is listed where the conversation holds it, among the others added.
 */
export const addedMessages = (before: ChatState | undefined, after: ChatState): ReadonlyArray<AddedMessages> => {
  const out: AddedMessages[] = []
  for (const [id, conversation] of T.changed(compareStrings, before?.conversations, after.conversations)) {
    const was = before === undefined ? undefined : T.get(compareStrings, id, before.conversations)
    const messages: ChatMessage[] = []
    for (const [, r] of T.changed(compareKeys, was?.messages, conversation.messages)) {
      if (before !== undefined && T.get(compareStrings, idKey(r.message.id, id), before.byId) !== undefined) continue
      messages.push(toChatMessage(r))
    }
    if (messages.length > 0) out.push({ conversationId: id, fresh: was === undefined, messages })
  }
  return out
}
