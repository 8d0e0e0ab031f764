/**
 * The chat store in PostgreSQL, shared by any number of processes: the database holds the log
 * (`chatfold_log`, one row a record, numbered 1, 2, 3, … per store) and decides its order; each
 * process holds the store's state in memory as a cache of it. A transaction locks the store's row
 * (`SELECT … FOR UPDATE` on `chatfold_store`), reads the records other processes committed since
 * this one last looked and replays them, runs the steps, inserts their records after the head and
 * moves the head, then commits: two processes never number a record alike, and a step always sees
 * every step committed before it (a message id retried after a lost answer is found and refused
 * as a duplicate, wherever the first try landed). A step is answered only after its commit; a
 * commit that fails undoes the steps in memory, and the next transaction reads back whatever the
 * database kept.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { applyCommand, decodeStoreCommand, encodeSimulator, restoreSimulator, type StoreCommand } from '../store/log.ts'
import type { Simulator, SimulatorOptions } from '../store/simulator.ts'
import { type ChatStore, createChatStore } from '../store/store.ts'
import type { DurableChatStore, LogEntry, Recovery } from '../store/durable.ts'
import { StoreError } from '../store/failure.ts'
import { wholeOption } from '../internal/number.ts'
import { migratePostgres, type PgClientLike, type PgPoolLike } from './schema.ts'

/**
 * Options of a PostgreSQL store: those of a new simulator (used only when the database holds no
 * such store yet), the store's name (several stores share a database; `default` by default), how
 * many records may follow a snapshot before the next one is written (10,000), and whether to
 * migrate the schema on open (true).
 *
 * @since 0.1.0
 * @category postgres
 */
export type PostgresStoreOptions = SimulatorOptions & {
  readonly store?: string
  readonly snapshotEvery?: number
  readonly migrate?: boolean
}

/**
 * A chat store in PostgreSQL: a `DurableChatStore` whose `transaction(run)` runs steps on the
 * state the database holds, with the store locked (`write`, the default) or not (a read: it
 * catches up with the database first), and commits them before it resolves; `refresh` catches up
 * with what other processes committed. A step taken outside a transaction is committed by `flush`
 * only if no other process wrote in between; otherwise `flush` rejects with a `StoreError` of
 * code `conflict`, the step undone and the store caught up (run it again). A process runs its
 * transactions one at a time: `run` must not start another (it would wait for itself).
 *
 * @since 0.1.0
 * @category postgres
 */
export type PostgresChatStore = DurableChatStore & {
  readonly transaction: <A>(run: () => A | Promise<A>, options?: { readonly write?: boolean }) => Promise<A>
  readonly refresh: () => Promise<void>
}

type Row = { readonly seq: number; readonly command: string }

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/**
 * Opens the store `options.store` in a PostgreSQL database (migrating the schema first, unless
 * `migrate: false`): reads the latest snapshot and the records after it, and creates the store
 * when the database has none (its clock read now). Rejects with a `StoreError` (`corrupt`)
 * naming a record that cannot be replayed.
 *
 * @example
 * import { openPostgresStore, type PgPoolLike } from 'chatfold/postgres'
 * declare const pool: PgPoolLike // a pg Pool: new pg.Pool({ connectionString: url })
 * const store = await openPostgresStore(pool)({ store: 'support' })
 * await store.transaction(() => store.submit({ role: 'user', content: 'Hi' })) // committed
 *
 * @since 0.1.0
 * @category postgres
 */
export const openPostgresStore =
  (pool: PgPoolLike) =>
  async (options: PostgresStoreOptions = {}): Promise<PostgresChatStore> => {
    if (options.migrate !== false) await migratePostgres(pool)
    const name = options.store ?? 'default'
    const every = wholeOption(options.snapshotEvery, { fallback: 10_000, min: 1 })
    /** The last record this process knows committed, and the simulator after it. */
    let durable = 0
    let kept: Simulator | undefined
    /** The last record taken here (committed or not), and the simulator after it. */
    let seq = 0
    let latest: Simulator | undefined
    let pending: LogEntry[] = []
    let snapshotSeq = 0
    let failure: Error | undefined
    let reset: (simulator: Simulator | undefined) => void = () => undefined
    /** The transaction under way in this process: its connection, whether it holds the lock, what it inserted. */
    let tx: { readonly client: PgClientLike; locked: boolean; written: number } | undefined
    let queue: Promise<unknown> = Promise.resolve()
    const exclusive = <A>(f: () => Promise<A>): Promise<A> => {
      const run = queue.then(f, f)
      queue = run.catch(() => undefined)
      return run
    }

    const fail = (why: string): never => {
      failure = new StoreError('corrupt', why)
      throw failure
    }

    /** Puts the store back to what this process knows committed. */
    const undo = (): void => {
      pending = []
      seq = durable
      latest = kept
      reset(kept)
    }

    /** Reads and replays what other processes committed after `durable` (no step of this process pending). */
    const catchUp = async (client: PgClientLike): Promise<number> => {
      const r = await client.query('SELECT seq, command FROM chatfold_log WHERE store = $1 AND seq > $2 ORDER BY seq', [name, durable])
      const rows: Row[] = r.rows.map((x) => ({ seq: Number(x['seq']), command: String(x['command']) }))
      if (rows.length === 0) return 0
      let sim = kept
      let at = durable
      if ((rows[0]?.seq ?? 0) !== durable + 1) {
        // the records after `durable` were folded into a snapshot: start from it
        const s = (await client.query('SELECT seq, simulator FROM chatfold_snapshot WHERE store = $1', [name])).rows[0]
        const from = s === undefined ? 0 : Number(s['seq'])
        if (s === undefined || from < (rows[0]?.seq ?? 0) - 1) fail(`Cannot replay the store ${JSON.stringify(name)}: records ${at + 1}–${(rows[0]?.seq ?? 0) - 1} are missing`)
        let json: unknown
        try {
          json = JSON.parse(String(s?.['simulator']))
        } catch (e) {
          fail(`Cannot read the snapshot of the store ${JSON.stringify(name)} at record ${from}: ${message(e)}`)
        }
        const d = restoreSimulator(json)
        if (E.isLeft(d)) return fail(`Cannot read the snapshot of the store ${JSON.stringify(name)} at record ${from}: ${d.left}`)
        sim = d.right
        at = from
        snapshotSeq = Math.max(snapshotSeq, from)
      }
      const before = at
      for (const row of rows) {
        if (row.seq <= at) continue
        if (row.seq !== at + 1) fail(`Cannot replay the store ${JSON.stringify(name)}: record ${row.seq} follows record ${at}`)
        let json: unknown
        try {
          json = JSON.parse(row.command)
        } catch {
          fail(`Cannot replay the store ${JSON.stringify(name)}: record ${row.seq} (chatfold_log) is not JSON`)
        }
        const c = decodeStoreCommand(json)
        if (E.isLeft(c)) return fail(`Cannot replay the store ${JSON.stringify(name)}: record ${row.seq} is not a command: ${c.left}`)
        const next = applyCommand(c.right)(sim)
        if (E.isLeft(next)) return fail(`Cannot replay the store ${JSON.stringify(name)}: record ${row.seq} (${c.right.op}) fails: ${next.left}`)
        sim = next.right
        at = row.seq
      }
      durable = seq = at
      kept = latest = sim
      reset(sim)
      return at - before
    }

    /** Locks the store's row (made when missing) and returns its head. */
    const lock = async (client: PgClientLike): Promise<number> => {
      const locked = async () => (await client.query('SELECT head FROM chatfold_store WHERE store = $1 FOR UPDATE', [name])).rows[0]
      let row = await locked()
      if (row === undefined) {
        await client.query('INSERT INTO chatfold_store (store, head) VALUES ($1, 0) ON CONFLICT (store) DO NOTHING', [name])
        row = await locked()
      }
      const head = Number(row?.['head'] ?? 0)
      // a database behind what this process saw committed (restored from a backup, or another one): nothing here is written to it
      if (head < durable) fail(`The store ${JSON.stringify(name)} in the database ends at record ${head}, before record ${durable} this process saw committed: was the database restored or replaced?`)
      return head
    }

    /** Inserts the records not yet inserted in this transaction, after checking no other process wrote since this one looked. */
    const insertPending = async (t: NonNullable<typeof tx>): Promise<void> => {
      const entries = pending.filter((e) => e.seq > t.written)
      if (entries.length === 0) return
      if (!t.locked) {
        const head = await lock(t.client)
        t.locked = true
        if (head !== durable) throw new StoreError('conflict', `Another process wrote the store ${JSON.stringify(name)} first (record ${head}, this process at ${durable}); the steps taken here were undone: take them again`)
      }
      const last = entries[entries.length - 1]?.seq ?? t.written
      for (const e of entries) {
        const insert = 'INSERT INTO chatfold_log (store, seq, command) VALUES ($1, $2, $3)'
        // the last record moves the head in the same statement: one round trip a record
        await t.client.query(e.seq === last ? `WITH inserted AS (${insert}) UPDATE chatfold_store SET head = $2 WHERE store = $1` : insert, [name, e.seq, JSON.stringify(e.command)])
      }
      t.written = last
      if (latest !== undefined && last - snapshotSeq >= every) {
        await t.client.query(
          'INSERT INTO chatfold_snapshot (store, seq, simulator) VALUES ($1, $2, $3) ON CONFLICT (store) DO UPDATE SET seq = excluded.seq, simulator = excluded.simulator WHERE chatfold_snapshot.seq < excluded.seq',
          [name, last, JSON.stringify(encodeSimulator(latest))],
        )
        // the last record stays: a process behind the snapshot finds a gap before it, and reads the snapshot
        await t.client.query('DELETE FROM chatfold_log WHERE store = $1 AND seq < $2', [name, last])
      }
    }

    /** One transaction: lock (for a write), catch up, run, insert what `run` took, commit. */
    const transact = <A>(run: () => A | Promise<A>, write: boolean): Promise<A> =>
      exclusive(async () => {
        if (failure !== undefined) throw failure
        const client = await pool.connect()
        let broken: Error | boolean = false
        const t = { client, locked: false, written: durable }
        try {
          await client.query('BEGIN')
          if (pending.length > 0) {
            // steps taken outside a transaction: committed first, if nothing came in between
            tx = t
            await insertPending(t)
          } else {
            // a write locks the store, and reads the log only when the head moved since this process looked
            const head = write ? await lock(client) : undefined
            t.locked = write
            if (head === undefined || head !== durable) await catchUp(client)
            t.written = durable
            tx = t
          }
          const a = await run()
          await insertPending(t)
          await client.query('COMMIT')
          pending = []
          durable = t.written
          kept = latest
          if (durable - snapshotSeq >= every) snapshotSeq = durable
          return a
        } catch (e) {
          await client.query('ROLLBACK').catch((r: unknown) => void (broken = r instanceof Error ? r : true))
          undo()
          throw e
        } finally {
          tx = undefined
          client.release(broken)
        }
      })

    /** Catches up in a read transaction of its own. */
    const refresh = (): Promise<void> => transact(() => undefined, false)

    const flush = async (): Promise<void> => {
      if (failure !== undefined) throw failure
      // inside a transaction: its records are inserted now, and committed when it ends
      if (tx !== undefined) return insertPending(tx)
      if (pending.length === 0) return
      try {
        await transact(() => undefined, true)
      } catch (e) {
        if (e instanceof StoreError && e.code === 'conflict') await refresh().catch(() => undefined)
        throw e
      }
    }

    const journal = {
      record: (command: StoreCommand, next: Simulator) => {
        if (failure !== undefined) throw failure
        seq += 1
        pending.push({ seq, command })
        latest = next
      },
      flush,
      attach: (r: (simulator: Simulator | undefined) => void) => void (reset = r),
    }
    const store: ChatStore & Required<Pick<ChatStore, 'submitDecoded'>> = createChatStore(options, journal)
    // recovery, and the store created when the database has none (its clock read now)
    await transact(() => store.simulator(), true)
    const recovery: Recovery = { snapshotSeq, replayed: durable - snapshotSeq, seq: durable, messages: kept?.state.updateCount ?? 0, repaired: [] }
    return {
      ...store,
      flush,
      recovery,
      failed: () => failure,
      close: () => flush(),
      transaction: (run, o) => transact(run, o?.write ?? true),
      refresh,
    }
  }
