/**
 * Each conversation of a chat store as a Durable Stream: `/conversations/<id>` (the id
 * URL-encoded) is a JSON stream of the conversation's messages in their wire form, appended as the
 * store keeps them (after its flush), so a client reads it from an offset and tails it.
 *
 * @module
 */
import type { ChatStore } from '../store/store.ts'
import type { StreamsHandler } from './handler.ts'
import { getConversation } from '../store/query.ts'
import { toChatMessages } from '../store/snapshot.ts'
import { conversationIds } from '../store/state.ts'

/** The stream path of a conversation: `/conversations/<id>`, the id URL-encoded (`support 7` → `/conversations/support%207`). */
export const conversationStreamPath = (conversationId: string): string => `/conversations/${encodeURIComponent(conversationId)}`

/**
 * Publishes every conversation of `store` on `streams` (its messages so far, then each new one
 * once the store has flushed it); returns the function that stops. `seen` (the message ids
 * published, by conversation) is kept across calls by a server that opens its store again, so
 * that nothing is published twice. What the served forms run (not an entry's export).
 */
export const mirrorConversations = (
  store: ChatStore,
  streams: Pick<StreamsHandler, 'publish'>,
  seen: Map<string, Set<string>> = new Map(),
): () => void => {
  const sync = (state: ReturnType<ChatStore['state']>) => {
    for (const id of conversationIds(state)) {
      const ids = seen.get(id) ?? new Set<string>()
      seen.set(id, ids)
      const fresh = toChatMessages(state)(getConversation(id)(state)).filter((m) => !ids.has(m.message_id))
      for (const m of fresh) ids.add(m.message_id)
      streams.publish(conversationStreamPath(id), fresh)
    }
  }
  sync(store.state())
  let chain: Promise<void> = Promise.resolve()
  const unsubscribe = store.subscribe(() => {
    // a step is shown once the store keeps it, the state it made and no later one
    const state = store.state()
    const kept = store.flush?.() ?? Promise.resolve()
    chain = chain.then(() => kept).then(() => sync(state), () => undefined)
  })
  return unsubscribe
}
