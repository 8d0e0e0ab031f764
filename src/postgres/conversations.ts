/**
 * A PostgreSQL store's conversations as Durable Streams shared by every server on the database:
 * the store's `beforeCommit` hook that keeps, in the transaction of each commit, the messages it
 * added in the streams log (`chatfold_streams_log`), so that a stream's bytes and offsets are the
 * same on every server and across restarts, an acknowledged submit is always on its stream, and
 * the streams are in commit order; and, in the transaction that opens the store, the messages the
 * log lacks (a store written before it published, deduplicated by message id). What
 * `chatfold serve --postgres` runs (not an entry's export).
 *
 * @module
 */
import { backfillRecords, conversationRecords } from '../streams/conversation-log.ts'
import type { PostgresStoreOptions } from './store.ts'
import { keepStreamRecords, lockStreamsHead, streamRecordsUnder } from './_streams-log.ts'

/**
 * The hook that publishes the conversations of the store `store`: under `/conversations/<id>`
 * for the store `default`, `/stores/<store>/conversations/<id>` (URL-encoded) for another, so
 * that stores sharing a database do not share streams.
 */
export const publishConversations = (store: string): NonNullable<PostgresStoreOptions['beforeCommit']> => {
  const prefix = store === 'default' ? '' : `/stores/${encodeURIComponent(store)}`
  return async ({ client, before, after, opening }) => {
    if (after === undefined) return
    const at = Date.now()
    if (opening) {
      // the streams log locked after the store's row, as every commit does: the log read here is the whole of it
      await lockStreamsHead(client)
      const kept = await streamRecordsUnder(client, `${prefix}/conversations/`)
      await keepStreamRecords(client, backfillRecords(after, kept, { prefix, at }))
      return
    }
    await keepStreamRecords(client, conversationRecords(before, after, { prefix, at }))
  }
}
