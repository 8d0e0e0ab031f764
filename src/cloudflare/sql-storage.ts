/**
 * The store's log and snapshot in a Durable Object's SQLite storage (`ctx.storage.sql`): one row a
 * record, the snapshot in parts (a row holds at most 2 MB), every write in one synchronous
 * transaction. A Durable Object's output gate holds its responses until those writes are durable,
 * so nothing is answered before it is on disk.
 *
 * One process owns a store: on Cloudflare an object runs in one place, but two `workerd`
 * processes on one storage directory would both write it. A lease row (`chatfold_lease`: owner,
 * generation, end) is taken on load, renewed by a timer while requests come (it stops after
 * a while without any, so that an idle object is not kept awake), and checked in every write's
 * transaction and by every request: a store whose lease is held by a live owner is refused with
 * the owner named; one left by a process that died is taken over once it ends, seconds later.
 *
 * @module
 */
import type { LogEntry, StoredLog, StoredSnapshot, StoreStorage } from '../store/durable.ts'

/**
 * The part of a Durable Object's SQL API the store uses (`ctx.storage.sql`).
 *
 * @since 0.1.0
 * @category cloudflare
 */
export type SqlStorageLike = {
  readonly exec: (query: string, ...bindings: ReadonlyArray<string | number | null>) => { toArray(): ReadonlyArray<Record<string, unknown>> }
}

/**
 * The part of a Durable Object's storage the store uses (`ctx.storage`).
 *
 * @since 0.1.0
 * @category cloudflare
 */
export type DurableObjectStorageLike = {
  readonly sql: SqlStorageLike
  readonly transactionSync: <T>(closure: () => T) => T
}

/** Characters in one snapshot row: well under the 2 MB row limit, even in UTF-8. */
const PART = 400_000

/**
 * Options of `sqlStorage`: the owner's id (random by default) and how long a lease lasts (3 s;
 * requests renew it once half of it is gone).
 *
 * @since 0.1.0
 * @category cloudflare
 */
export type SqlStorageOptions = { readonly owner?: string; readonly leaseMs?: number }

/** Leases without a request after which the timer stops renewing. */
const IDLE_LEASES = 4

type LeaseRow = { readonly owner: string; readonly generation: number; readonly expires: number }

const randomOwner = (): string => Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('')

/**
 * A store storage in a Durable Object's SQLite storage (tables `chatfold_log` and
 * `chatfold_snapshot`, created when missing).
 *
 * @example
 * import { openDurableStore } from 'chatfold/store'
 * import { sqlStorage } from 'chatfold/cloudflare'
 * // inside a Durable Object: const store = await openDurableStore(sqlStorage(ctx.storage))()
 *
 * @since 0.1.0
 * @category cloudflare
 */
export const sqlStorage = (storage: DurableObjectStorageLike, options: SqlStorageOptions = {}): StoreStorage => {
  const sql = storage.sql
  const owner = options.owner ?? randomOwner()
  const ttl = Math.max(300, options.leaseMs ?? 3_000)
  let generation: number | undefined
  let lost: unknown
  let timer: ReturnType<typeof setInterval> | undefined

  const leaseRow = (): LeaseRow | undefined => {
    const r = sql.exec('SELECT owner, generation, expires FROM chatfold_lease WHERE id = 0').toArray()[0]
    return r === undefined ? undefined : { owner: String(r['owner']), generation: Number(r['generation']), expires: Number(r['expires']) }
  }
  const held = (l: LeaseRow): Error =>
    new Error(
      `the store is owned by another process (owner ${l.owner}, lease until ${new Date(l.expires).toISOString()}); one process serves a store at a time`,
    )

  /** Takes the lease: free, ours, or ended; waits out one that is not renewed; refuses one that is. */
  const acquire = async (): Promise<void> => {
    sql.exec('CREATE TABLE IF NOT EXISTS chatfold_lease (id INTEGER PRIMARY KEY, owner TEXT NOT NULL, generation INTEGER NOT NULL, expires INTEGER NOT NULL)')
    let seen: number | undefined
    const giveUp = Date.now() + 2 * ttl
    for (;;) {
      const taken = storage.transactionSync(() => {
        const l = leaseRow()
        const now = Date.now()
        if (l !== undefined && l.owner !== owner && l.expires > now) return l
        const next = (l?.generation ?? 0) + 1
        sql.exec('INSERT OR REPLACE INTO chatfold_lease (id, owner, generation, expires) VALUES (0, ?, ?, ?)', owner, next, now + ttl)
        generation = next
        return undefined
      })
      if (taken === undefined) return
      // renewed since we first looked: its owner is alive
      if ((seen !== undefined && seen !== taken.expires) || Date.now() > giveUp) throw held(taken)
      seen = taken.expires
      await new Promise((r) => setTimeout(r, Math.max(10, Math.min(ttl / 4, taken.expires - Date.now() + 10))))
    }
  }

  /** Inside a transaction: throws unless the lease is still this store's; renews it once half is gone. */
  const ensureLease = (): void => {
    const l = leaseRow()
    if (l === undefined || l.owner !== owner || l.generation !== generation) {
      throw l !== undefined && l.owner !== owner ? held(l) : new Error('the store was taken over by another process since it was opened here')
    }
    const now = Date.now()
    if (l.expires - now < ttl / 2) sql.exec('UPDATE chatfold_lease SET expires = ? WHERE id = 0', now + ttl)
  }

  let lastActive = 0
  /**
   * Renews the lease on a timer, so that a second process sees its owner alive between requests,
   * until no request came for `IDLE_LEASES` leases: then the lease may lapse (the next request
   * checks it, and finds a takeover by its generation).
   */
  const renewWhileActive = (): void => {
    lastActive = Date.now()
    if (timer !== undefined) return
    timer = setInterval(() => {
      if (Date.now() - lastActive > IDLE_LEASES * ttl) {
        clearInterval(timer)
        timer = undefined
        return
      }
      try {
        storage.transactionSync(ensureLease)
      } catch (e) {
        lost ??= e
      }
    }, Math.floor(ttl / 3))
  }

  const load = async (): Promise<StoredLog> => {
    await acquire()
    renewWhileActive()
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
      renewWhileActive()
      ensureLease()
      for (const e of entries) sql.exec('INSERT INTO chatfold_log (seq, command) VALUES (?, ?)', e.seq, JSON.stringify(e.command))
    })
  const writeSnapshot = async (s: StoredSnapshot): Promise<void> => {
    const body = JSON.stringify(s.simulator)
    storage.transactionSync(() => {
      ensureLease()
      sql.exec('DELETE FROM chatfold_snapshot')
      for (let i = 0, at = 0; at < body.length || i === 0; i++, at += PART)
        sql.exec('INSERT INTO chatfold_snapshot (part, seq, body) VALUES (?, ?, ?)', i, s.seq, body.slice(at, at + PART))
      sql.exec('DELETE FROM chatfold_log WHERE seq <= ?', s.seq)
    })
  }
  const check = async (): Promise<void> => {
    if (lost !== undefined) throw lost
    renewWhileActive()
    storage.transactionSync(ensureLease)
  }
  /** Stops renewing, and lets the lease go when it is still this store's. */
  const close = async (): Promise<void> => {
    if (timer !== undefined) clearInterval(timer)
    timer = undefined
    if (generation !== undefined) sql.exec('DELETE FROM chatfold_lease WHERE id = 0 AND owner = ? AND generation = ?', owner, generation)
    generation = undefined
  }
  return { load, append, writeSnapshot, check, close }
}
