/**
 * The store's log and snapshot in a Durable Object's SQLite storage (`ctx.storage.sql`): one row a
 * record, the snapshot in parts (a row holds at most 2 MB), every write in one synchronous
 * transaction. A Durable Object's output gate holds its responses until those writes are durable,
 * so nothing is answered before it is on disk.
 *
 * @module
 */
import type { LogEntry, StoredLog, StoredSnapshot, StoreStorage } from '../store/durable.ts'

/**
 * The part of a Durable Object's SQL API the store uses (`ctx.storage.sql`).
 *
 * @since 0.2.0
 * @category cloudflare
 */
export type SqlStorageLike = {
  readonly exec: (query: string, ...bindings: ReadonlyArray<string | number | null>) => { toArray(): ReadonlyArray<Record<string, unknown>> }
}

/**
 * The part of a Durable Object's storage the store uses (`ctx.storage`).
 *
 * @since 0.2.0
 * @category cloudflare
 */
export type DurableObjectStorageLike = {
  readonly sql: SqlStorageLike
  readonly transactionSync: <T>(closure: () => T) => T
}

/** Characters in one snapshot row: well under the 2 MB row limit, even in UTF-8. */
const PART = 400_000

/**
 * A store storage in a Durable Object's SQLite storage (tables `chatfold_log` and
 * `chatfold_snapshot`, created when missing).
 *
 * @example
 * import { openDurableStore } from 'chatfold'
 * import { sqlStorage } from 'chatfold/cloudflare'
 * // inside a Durable Object: const store = await openDurableStore(sqlStorage(ctx.storage))()
 *
 * @since 0.2.0
 * @category cloudflare
 */
export const sqlStorage = (storage: DurableObjectStorageLike): StoreStorage => {
  const sql = storage.sql
  const load = async (): Promise<StoredLog> => {
    sql.exec('CREATE TABLE IF NOT EXISTS chatfold_log (seq INTEGER PRIMARY KEY, command TEXT NOT NULL)')
    sql.exec('CREATE TABLE IF NOT EXISTS chatfold_snapshot (part INTEGER PRIMARY KEY, seq INTEGER NOT NULL, body TEXT NOT NULL)')
    const parts = sql.exec('SELECT seq, body FROM chatfold_snapshot ORDER BY part').toArray()
    let snapshot: StoredSnapshot | undefined
    const first = parts[0]
    if (first !== undefined) {
      try {
        snapshot = { seq: Number(first['seq']), simulator: JSON.parse(parts.map((p) => String(p['body'])).join('')) }
      } catch (e) {
        throw new Error(`Cannot read the snapshot at record ${String(first['seq'])}: ${e instanceof Error ? e.message : String(e)}`)
      }
    }
    const rows = sql.exec('SELECT seq, command FROM chatfold_log WHERE seq > ? ORDER BY seq', snapshot?.seq ?? 0).toArray()
    const tail = rows.map((r) => {
      const seq = Number(r['seq'])
      try {
        return { seq, command: JSON.parse(String(r['command'])) as unknown }
      } catch {
        throw new Error(`Cannot recover the store: record ${seq} (chatfold_log) is not JSON`)
      }
    })
    return { snapshot, tail }
  }
  const append = async (entries: ReadonlyArray<LogEntry>): Promise<void> =>
    storage.transactionSync(() => {
      for (const e of entries) sql.exec('INSERT INTO chatfold_log (seq, command) VALUES (?, ?)', e.seq, JSON.stringify(e.command))
    })
  const writeSnapshot = async (s: StoredSnapshot): Promise<void> => {
    const body = JSON.stringify(s.simulator)
    storage.transactionSync(() => {
      sql.exec('DELETE FROM chatfold_snapshot')
      for (let i = 0, at = 0; at < body.length || i === 0; i++, at += PART) sql.exec('INSERT INTO chatfold_snapshot (part, seq, body) VALUES (?, ?, ?)', i, s.seq, body.slice(at, at + PART))
      sql.exec('DELETE FROM chatfold_log WHERE seq <= ?', s.seq)
    })
  }
  return { load, append, writeSnapshot }
}
