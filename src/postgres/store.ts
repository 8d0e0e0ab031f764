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
 * database kept. A `beforeCommit` hook writes more in the same transaction (the served form
 * publishes each conversation's new messages to the streams log so).
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { applyCommand, decodeStoreCommand, encodeSimulator, restoreSimulator, type StoreCommand } from '../store/log.ts'
import type { Simulator, SimulatorOptions } from '../store/simulator.ts'
import { type ChatStore, createChatStore } from '../store/store.ts'
import type { DurableChatStore, LogEntry, Recovery } from '../store/durable.ts'
import { StoreError } from '../store/failure.ts'
import type { ChatState } from '../store/state.ts'
import { wholeOption } from '../internal/number.ts'
import { migratePostgres } from './schema.ts'
import { type PgClientLike, poolOf, type PostgresClient } from './client.ts'

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
  /**
   * Runs in each transaction that wrote the store, just before its `COMMIT`, with the
   * transaction's connection and the store's state before and after its steps; and in the
   * transaction that opens the store (`opening`: `after` is then everything committed). What it
   * writes commits with the steps, in their order; a rejection undoes them (the write is refused).
   * It may lock rows of its own after the store's (the order every writer keeps).
   */
  readonly beforeCommit?: (commit: {
    readonly client: PgClientLike
    readonly before: ChatState | undefined
    readonly after: ChatState | undefined
    readonly opening: boolean
  }) => Promise<void>
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

/** A store that cannot be read back as written (a record or snapshot unreadable, a database behind this process): the store stops. */
const corrupt = (why: string): never => {
  throw new StoreError('corrupt', why)
}

/** The records of the store `name` committed after record `after`, in order. */
const recordsAfter = async (client: PgClientLike, name: string, after: number): Promise<Row[]> => {
  const r = await client.query('SELECT seq, command FROM chatfold_log WHERE store = $1 AND seq > $2 ORDER BY seq', [name, after])
  return r.rows.map((x) => ({ seq: Number(x['seq']), command: String(x['command']) }))
}

/**
 * The snapshot of the store `name` to replay from when the records after `at` were folded into it
 * (the first record left is `first`): its simulator and the record it ends at.
 */
const snapshotBefore = async (client: PgClientLike, name: string, at: number, first: number): Promise<{ readonly sim: Simulator; readonly at: number }> => {
  const s = (await client.query('SELECT seq, simulator FROM chatfold_snapshot WHERE store = $1', [name])).rows[0]
  const from = s === undefined ? 0 : Number(s['seq'])
  if (s === undefined || from < first - 1) corrupt(`Cannot replay the store ${JSON.stringify(name)}: records ${at + 1}–${first - 1} are missing`)
  let json: unknown
  try {
    json = JSON.parse(String(s?.['simulator']))
  } catch (e) {
    corrupt(`Cannot read the snapshot of the store ${JSON.stringify(name)} at record ${from}: ${message(e)}`)
  }
  const d = restoreSimulator(json)
  if (E.isLeft(d)) return corrupt(`Cannot read the snapshot of the store ${JSON.stringify(name)} at record ${from}: ${d.left}`)
  return { sim: d.right, at: from }
}

/** The simulator `sim` (at record `at`) with the records `rows` after it replayed, and the record it ends at. */
const replay = (
  name: string,
  sim: Simulator | undefined,
  at: number,
  rows: ReadonlyArray<Row>,
): { readonly sim: Simulator | undefined; readonly at: number } => {
  for (const row of rows) {
    if (row.seq <= at) continue
    if (row.seq !== at + 1) corrupt(`Cannot replay the store ${JSON.stringify(name)}: record ${row.seq} follows record ${at}`)
    let json: unknown
    try {
      json = JSON.parse(row.command)
    } catch {
      corrupt(`Cannot replay the store ${JSON.stringify(name)}: record ${row.seq} (chatfold_log) is not JSON`)
    }
    const c = decodeStoreCommand(json)
    if (E.isLeft(c)) return corrupt(`Cannot replay the store ${JSON.stringify(name)}: record ${row.seq} is not a command: ${c.left}`)
    const next = applyCommand(c.right)(sim)
    if (E.isLeft(next)) return corrupt(`Cannot replay the store ${JSON.stringify(name)}: record ${row.seq} (${c.right.op}) fails: ${next.left}`)
    sim = next.right
    at = row.seq
  }
  return { sim, at }
}

/** Locks the row of the store `name` (made when missing) and returns its head, refusing a database behind record `durable`. */
const lockStore = async (client: PgClientLike, name: string, durable: number): Promise<number> => {
  const locked = async () => (await client.query('SELECT head FROM chatfold_store WHERE store = $1 FOR UPDATE', [name])).rows[0]
  let row = await locked()
  if (row === undefined) {
    await client.query('INSERT INTO chatfold_store (store, head) VALUES ($1, 0) ON CONFLICT (store) DO NOTHING', [name])
    row = await locked()
  }
  const head = Number(row?.['head'] ?? 0)
  // a database behind what this process saw committed (restored from a backup, or another one): nothing here is written to it
  if (head < durable)
    corrupt(
      `The store ${
        JSON.stringify(name)
      } in the database ends at record ${head}, before record ${durable} this process saw committed: was the database restored or replaced?`,
    )
  return head
}

/** Inserts `entries` (in order, not empty) into the log of the store `name`, the last one moving its head. */
const insertRecords = async (client: PgClientLike, name: string, entries: ReadonlyArray<LogEntry>): Promise<number> => {
  const last = entries[entries.length - 1]?.seq ?? 0
  for (const e of entries) {
    const insert = 'INSERT INTO chatfold_log (store, seq, command) VALUES ($1, $2, $3)'
    // the last record moves the head in the same statement: one round trip a record
    await client.query(e.seq === last ? `WITH inserted AS (${insert}) UPDATE chatfold_store SET head = $2 WHERE store = $1` : insert, [
      name,
      e.seq,
      JSON.stringify(e.command),
    ])
  }
  return last
}

/** Writes the snapshot of the store `name` at record `last`, and deletes the records it folds in but the last. */
const writeSnapshot = async (client: PgClientLike, name: string, last: number, sim: Simulator): Promise<void> => {
  await client.query(
    'INSERT INTO chatfold_snapshot (store, seq, simulator) VALUES ($1, $2, $3) ON CONFLICT (store) DO UPDATE SET seq = excluded.seq, simulator = excluded.simulator WHERE chatfold_snapshot.seq < excluded.seq',
    [name, last, JSON.stringify(encodeSimulator(sim))],
  )
  // the last record stays: a process behind the snapshot finds a gap before it, and reads the snapshot
  await client.query('DELETE FROM chatfold_log WHERE store = $1 AND seq < $2', [name, last])
}

/**
 * Opens the store `options.store` in a PostgreSQL database, over a `pg` pool or a postgres.js sql
 * client (migrating the schema first, unless `migrate: false`): reads the latest snapshot and the records after it, and creates the store
 * when the database has none (its clock read now). Rejects with a `StoreError` (`corrupt`)
 * naming a record that cannot be replayed.
 *
 * @example
 * import { openPostgresStore, type PgPoolLike } from 'chatfold/postgres'
 * declare const pool: PgPoolLike // a pg Pool: new pg.Pool({ connectionString: url })
 * const store = await openPostgresStore(pool)({ store: 'support' })
 * await store.transaction(() => store.submit({ role: 'user', content: 'Hi' })) // committed
 * // or over postgres.js: openPostgresStore(postgres(url))({ store: 'support' })
 *
 * @since 0.1.0
 * @category postgres
 */
export const openPostgresStore = (client: PostgresClient) => async (options: PostgresStoreOptions = {}): Promise<PostgresChatStore> => {
  const pool = poolOf(client)
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

  /** Runs `f`; a store it finds it cannot read back stops this one (every later call rejects with the same failure). */
  const stopping = async <A>(f: () => Promise<A>): Promise<A> => {
    try {
      return await f()
    } catch (e) {
      if (e instanceof StoreError && e.code === 'corrupt') failure = e
      throw e
    }
  }

  /** Puts the store back to what this process knows committed. */
  const undo = (): void => {
    pending = []
    seq = durable
    latest = kept
    reset(kept)
  }

  /** Reads and replays what other processes committed after `durable` (no step of this process pending). */
  const catchUp = (client: PgClientLike): Promise<number> =>
    stopping(async () => {
      const rows = await recordsAfter(client, name, durable)
      const first = rows[0]?.seq
      if (first === undefined) return 0
      // the records after `durable` may have been folded into a snapshot: then start from it
      const base = first !== durable + 1 ? await snapshotBefore(client, name, durable, first) : { sim: kept, at: durable }
      if (first !== durable + 1) snapshotSeq = Math.max(snapshotSeq, base.at)
      const { sim, at } = replay(name, base.sim, base.at, rows)
      durable = seq = at
      kept = latest = sim
      reset(sim)
      return at - base.at
    })

  /** Locks the store's row (made when missing) and returns its head. */
  const lock = (client: PgClientLike): Promise<number> => stopping(() => lockStore(client, name, durable))

  /** Inserts the records not yet inserted in this transaction, after checking no other process wrote since this one looked. */
  const insertPending = async (t: NonNullable<typeof tx>): Promise<void> => {
    const entries = pending.filter((e) => e.seq > t.written)
    if (entries.length === 0) return
    if (!t.locked) {
      const head = await lock(t.client)
      t.locked = true
      if (head !== durable)
        throw new StoreError(
          'conflict',
          `Another process wrote the store ${
            JSON.stringify(name)
          } first (record ${head}, this process at ${durable}); the steps taken here were undone: take them again`,
        )
    }
    const last = await insertRecords(t.client, name, entries)
    t.written = last
    if (latest !== undefined && last - snapshotSeq >= every) await writeSnapshot(t.client, name, last, latest)
  }

  /** One transaction: lock (for a write), catch up, run, insert what `run` took, commit. */
  const transact = <A>(run: () => A | Promise<A>, write: boolean, opening = false): Promise<A> =>
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
        // what the steps added, published in their transaction (`durable`, `kept`: where it started)
        if (options.beforeCommit !== undefined && t.locked && (opening || t.written > durable)) {
          await options.beforeCommit({ client, before: kept?.state, after: latest?.state, opening })
        }
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
  const store: ChatStore & Required<Pick<ChatStore, 'submitDecoded' | 'fork' | 'compact' | 'compacted'>> = createChatStore(options, journal)
  // recovery, and the store created when the database has none (its clock read now)
  await transact(() => store.simulator(), true, true)
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
