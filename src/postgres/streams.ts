/**
 * The Durable Streams log in PostgreSQL (`postgresStreamsStorage`), shared by any number of
 * processes on one database: one row a record in `chatfold_streams_log`, a write one transaction
 * that locks the log's head row (`SELECT … FOR UPDATE`), reads the records other processes kept
 * since this one looked, and inserts its own after them; readers catch up from the table, woken
 * by `NOTIFY chatfold_streams` (a `pg` pool) or a short periodic re-check.
 *
 * @module
 */
import type { SharedStreamsLog, StreamRecord, StreamsStorage } from '../streams/log.ts'
import { type PgClientLike, type PgPoolLike, poolOf, type PostgresClient } from './client.ts'
import { migratePostgres } from './schema.ts'
import { CHANNEL, keepStreamRecords, recordsAfter } from './_streams-log.ts'

/**
 * Options of `postgresStreamsStorage`: whether to migrate the schema first (yes), and how often a
 * process looks for records others kept when no notification came (1000 ms).
 *
 * @since 0.1.0
 * @category postgres
 */
export type PostgresStreamsOptions = { readonly migrate?: boolean; readonly recheckMs?: number }

/** Runs `f` on one connection of the pool, released after (with the error that broke it). */
const withClient = async <A>(pool: PgPoolLike, f: (client: PgClientLike) => Promise<A>): Promise<A> => {
  const client = await pool.connect()
  try {
    return await f(client)
  } finally {
    client.release()
  }
}

/** A `pg` pool's connection that can listen (`pg.Client`: an event emitter), or undefined for anything else. */
const listening = async (client: PostgresClient, wake: () => void): Promise<(() => void) | undefined> => {
  const on = Reflect.get(client, 'on')
  const listen = Reflect.get(client, 'listen')
  if (typeof listen === 'function' && !('connect' in client)) {
    // postgres.js: `sql.listen(channel, onnotify)` resolves to `{ unlisten }`
    const l: unknown = await listen.call(client, CHANNEL, wake)
    const unlisten = typeof l === 'object' && l !== null ? Reflect.get(l, 'unlisten') : undefined
    return () => void (typeof unlisten === 'function' ? Promise.resolve(unlisten.call(l)).catch(() => undefined) : undefined)
  }
  if (typeof on !== 'function' || !('connect' in client)) return undefined
  const c = await client.connect()
  const onClient = Reflect.get(c, 'on')
  if (typeof onClient !== 'function') {
    c.release()
    return undefined
  }
  onClient.call(c, 'notification', wake)
  // a listening connection that breaks is told by an error: the re-check goes on meanwhile
  onClient.call(c, 'error', () => undefined)
  await c.query(`LISTEN ${CHANNEL}`)
  return () => c.release(true)
}

/**
 * A Durable Streams log in a PostgreSQL database (over a `pg` pool or a postgres.js client) that
 * any number of processes serve at once: `openStreamsHandler` on it writes each append in one
 * transaction holding the log's lock, after the records other processes kept (so the database
 * decides where it goes, and an idempotent producer's epoch and sequence are checked against what
 * it holds), reads from an offset after catching up with the table, and wakes its tails when
 * another process commits (LISTEN/NOTIFY with `pg`, postgres.js's `listen`, and a re-check every
 * `recheckMs`). Migrates the schema (version 2) unless told not to.
 *
 * @example
 * import { openStreamsHandler } from 'chatfold/streams'
 * import { type PgPoolLike, postgresStreamsStorage } from 'chatfold/postgres'
 * declare const pool: PgPoolLike // a pg Pool: new pg.Pool({ connectionString: url })
 * const streams = await openStreamsHandler(postgresStreamsStorage(pool))
 * // serve streams.handle under /streams, from as many processes as wanted
 *
 * @since 0.1.0
 * @category postgres
 */
export const postgresStreamsStorage = (
  client: PostgresClient,
  options: PostgresStreamsOptions = {},
): StreamsStorage & { readonly shared: SharedStreamsLog } => {
  const pool = poolOf(client)
  const recheckMs = options.recheckMs ?? 1000
  let migrated: Promise<unknown> | undefined = options.migrate === false ? Promise.resolve() : undefined
  const ready = () => (migrated ??= migratePostgres(pool).catch((e: unknown) => {
    migrated = undefined
    throw e
  }))
  /** The last record this process has handed to its handler. */
  let cursor = 0
  let queue: Promise<unknown> = Promise.resolve()
  const serial = <A>(f: () => Promise<A>): Promise<A> => {
    const run = queue.then(f, f)
    queue = run.catch(() => undefined)
    return run
  }
  const stops: Array<() => void> = []
  /** Resolves once the LISTEN of `watch` is taken (or failed): a catch-up after it misses no notification. */
  let listened: Promise<unknown> = Promise.resolve()

  const exclusive: SharedStreamsLog['exclusive'] = (write) =>
    serial(async () => {
      await ready()
      const c = await pool.connect()
      let broken: Error | boolean = false
      try {
        await c.query('BEGIN')
        const head = Number((await c.query('SELECT seq FROM chatfold_streams_head WHERE id = 1 FOR UPDATE')).rows[0]?.['seq'] ?? 0)
        const fresh = head > cursor ? await recordsAfter(c, cursor) : { records: [], last: cursor }
        cursor = fresh.last
        let at = head
        const a = await write(fresh.records, async (records) => {
          for (const r of records) {
            at += 1
            await c.query('INSERT INTO chatfold_streams_log (seq, path, record) VALUES ($1, $2, $3)', [at, r.path, JSON.stringify(r)])
          }
        })
        if (at > head) {
          await c.query('UPDATE chatfold_streams_head SET seq = $1 WHERE id = 1', [at])
          await c.query('SELECT pg_notify($1, $2)', [CHANNEL, String(at)])
        }
        await c.query('COMMIT')
        cursor = at
        return a
      } catch (e) {
        await c.query('ROLLBACK').catch((r: unknown) => void (broken = r instanceof Error ? r : true))
        throw e
      } finally {
        c.release(broken)
      }
    })

  return {
    load: () =>
      serial(async () => {
        await ready()
        const { records, last } = await withClient(pool, (c) => recordsAfter(c, 0))
        cursor = last
        return records
      }),
    // records kept outside the handler's transactions: read back by `sync`, as another process's
    append: (records) =>
      serial(async () => {
        await ready()
        await exclusiveRaw(records)
      }),
    close: async () => {
      for (const stop of stops.splice(0)) stop()
      await queue
    },
    shared: {
      sync: (apply) =>
        serial(async () => {
          await listened
          const { records, last } = await withClient(pool, (c) => recordsAfter(c, cursor))
          cursor = last
          if (records.length > 0) apply(records)
        }),
      exclusive,
      watch: (wake) => {
        const timer = setInterval(wake, recheckMs)
        Reflect.get(timer, 'unref')?.call(timer)
        let stopped = false
        let unlisten: (() => void) | undefined
        listened = listening(client, wake).then((u) => {
          if (stopped) u?.()
          else unlisten = u
        }, () => undefined)
        const stop = () => {
          if (stopped) return
          stopped = true
          clearInterval(timer)
          unlisten?.()
        }
        stops.push(stop)
        return stop
      },
    },
  }

  /** Inserts records after the head in a transaction of their own, leaving this process's cursor where it was. */
  async function exclusiveRaw(records: ReadonlyArray<StreamRecord>): Promise<void> {
    await withClient(pool, async (c) => {
      await c.query('BEGIN')
      try {
        await keepStreamRecords(c, records)
        await c.query('COMMIT')
      } catch (e) {
        await c.query('ROLLBACK').catch(() => undefined)
        throw e
      }
    })
  }
}
