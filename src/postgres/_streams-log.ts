/**
 * The SQL of the Durable Streams log in PostgreSQL (`chatfold_streams_log`, its head row
 * `chatfold_streams_head`): records read back after a position or under a path, the head locked,
 * and records kept within a transaction under way (the streams handler's, or the chat store's
 * commit that publishes its conversations). Private to the PostgreSQL files.
 *
 * @module
 */
import type { StreamRecord } from '../streams/log.ts'
import type { PgClientLike } from './client.ts'

/** The channel writers notify at commit. */
export const CHANNEL = 'chatfold_streams'

/** A record read back from the table, or an error naming its position. */
const parse = (seq: number, text: string): StreamRecord => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new Error(`The streams log record ${seq} (chatfold_streams_log) is not JSON`)
  }
  const t = typeof value === 'object' && value !== null ? Reflect.get(value, 't') : undefined
  const path = typeof value === 'object' && value !== null ? Reflect.get(value, 'path') : undefined
  if (!['create', 'append', 'close', 'delete'].includes(String(t)) || typeof path !== 'string')
    throw new Error(`The streams log record ${seq} (chatfold_streams_log) is not a streams record`)
  return value as StreamRecord
}

/** The records kept after position `after`, in order, and the position of the last. */
export const recordsAfter = async (client: PgClientLike, after: number): Promise<{ readonly records: StreamRecord[]; readonly last: number }> => {
  const r = await client.query('SELECT seq, record FROM chatfold_streams_log WHERE seq > $1 ORDER BY seq', [after])
  let last = after
  const records = r.rows.map((row) => {
    last = Number(row['seq'])
    return parse(last, String(row['record']))
  })
  return { records, last }
}

/** Locks the streams log's head row (in the transaction under way on `client`) and returns the last position kept. */
export const lockStreamsHead = async (client: PgClientLike): Promise<number> =>
  Number((await client.query('SELECT seq FROM chatfold_streams_head WHERE id = 1 FOR UPDATE')).rows[0]?.['seq'] ?? 0)

/**
 * Keeps `records` in the streams log within the transaction under way on `client` (which another
 * writer, such as the chat store's commit, holds), in one statement: moves the head past them (the
 * `UPDATE` locks its row), inserts them before it and notifies the tails (delivered at the commit).
 * Nothing when `records` is empty.
 */
export const keepStreamRecords = async (client: PgClientLike, records: ReadonlyArray<StreamRecord>): Promise<void> => {
  if (records.length === 0) return
  const values: unknown[] = [CHANNEL, records.length]
  const rows = records.map((r, i) => {
    values.push(i + 1, r.path, JSON.stringify(r))
    return `($${values.length - 2}::bigint, $${values.length - 1}::text, $${values.length}::text)`
  })
  const moved = await client.query(
    `WITH head AS (UPDATE chatfold_streams_head SET seq = seq + $2::bigint WHERE id = 1 RETURNING seq), ` +
      `kept AS (INSERT INTO chatfold_streams_log (seq, path, record) SELECT head.seq - $2::bigint + v.i, v.path, v.record FROM head, (VALUES ${
        rows.join(', ')
      }) AS v (i, path, record)) ` +
      `SELECT seq, pg_notify($1, seq::text) FROM head`,
    values,
  )
  if (moved.rows[0] === undefined) throw new Error('The streams log has no head row (chatfold_streams_head): is the schema migrated?')
}

/** The records of the streams whose path starts with `prefix`, in order. */
export const streamRecordsUnder = async (client: PgClientLike, prefix: string): Promise<ReadonlyArray<StreamRecord>> => {
  const r = await client.query('SELECT seq, record FROM chatfold_streams_log WHERE starts_with(path, $1) ORDER BY seq', [prefix])
  return r.rows.map((row) => parse(Number(row['seq']), String(row['record'])))
}
