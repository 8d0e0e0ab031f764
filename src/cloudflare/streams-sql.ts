/**
 * The Durable Streams log in a Durable Object's SQLite storage (`ctx.storage.sql`): one record a
 * row, or several rows of at most 400,000 characters for a large one (a row holds at most 2 MB),
 * each batch in one synchronous transaction. The object's output gate holds every answer until
 * those writes are durable, so no append is acknowledged before it is kept.
 *
 * @module
 */
import type { StreamRecord, StreamsStorage } from '../streams/log.ts'
import type { DurableObjectStorageLike } from './sql-storage.ts'

/** Characters in one row: well under the 2 MB row limit, even in UTF-8. */
const PART = 400_000

/**
 * The streams log in a Durable Object's SQLite storage (table `chatfold_streams_log`, created
 * when missing).
 *
 * @example
 * import { sqlStreamsStorage } from 'chatfold/cloudflare'
 * import { openStreamsHandler } from 'chatfold/streams'
 * // inside a Durable Object: const streams = await openStreamsHandler(sqlStreamsStorage(ctx.storage))
 *
 * @since 0.1.0
 * @category cloudflare
 */
export const sqlStreamsStorage = (storage: DurableObjectStorageLike): StreamsStorage => {
  const sql = storage.sql
  let next = 1
  const ready = () =>
    sql.exec('CREATE TABLE IF NOT EXISTS chatfold_streams_log (seq INTEGER NOT NULL, part INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (seq, part))')
  return {
    load: async () => {
      ready()
      const rows = sql.exec('SELECT seq, part, body FROM chatfold_streams_log ORDER BY seq, part').toArray()
      const records: StreamRecord[] = []
      let seq = 0
      let text = ''
      const flush = () => {
        if (seq === 0) return
        try {
          records.push(JSON.parse(text) as StreamRecord)
        } catch {
          throw new Error(`Cannot recover the streams log: record ${seq} (chatfold_streams_log) is not JSON`)
        }
      }
      for (const r of rows) {
        const s = Number(r['seq'])
        if (s !== seq) {
          flush()
          seq = s
          text = ''
        }
        text += String(r['body'])
      }
      flush()
      next = seq + 1
      return records
    },
    append: async (records) => {
      storage.transactionSync(() => {
        let seq = next
        for (const r of records) {
          const text = JSON.stringify(r)
          for (let at = 0, part = 0; at < text.length || part === 0; at += PART, part++) {
            sql.exec('INSERT INTO chatfold_streams_log (seq, part, body) VALUES (?, ?, ?)', seq, part, text.slice(at, at + PART))
          }
          seq++
        }
        next = seq
      })
    },
    close: () => Promise.resolve(),
  }
}
