/**
 * The PostgreSQL store on PGlite (the same SQL in WASM): two stores on one database stand for two
 * processes. Each sees what the other committed, a message id retried on the other is refused
 * (409), concurrent requests on both are numbered by the database with none lost or repeated, a
 * failed commit is answered 503 and leaves nothing, a snapshot is read by a store that was behind
 * it, and the schema is migrated once.
 */
import { PGlite } from '@electric-sql/pglite'
import { beforeAll, describe, expect, it } from 'vitest'
import { encodeSimulator } from '../../src/store/log.ts'
import { isStoreError } from '../../src/store/failure.ts'
import { migratePostgres, POSTGRES_SCHEMA_VERSION } from '../../src/postgres/schema.ts'
import { openPostgresStore, type PostgresChatStore } from '../../src/postgres/store.ts'
import { postgresChatHandler } from '../../src/postgres/handler.ts'
import { pglitePool } from '../support/pglite-pool.ts'

const START = '2024-03-15T10:00:00Z'

const post = (handler: (r: Request) => Promise<Response>, path: string, body: unknown) =>
  handler(new Request(`http://127.0.0.1${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))

const snapshotOf = async (handler: (r: Request) => Promise<Response>) => (await handler(new Request('http://127.0.0.1/environment/modalities/chat'))).json()

const logSeqs = async (pool: Awaited<ReturnType<typeof pglitePool>>, store: string) =>
  (await pool.db.query<{ seq: number }>('SELECT seq::int AS seq FROM chatfold_log WHERE store = $1 ORDER BY seq', [store])).rows.map((r) => r.seq)

// one database for the file (PGlite compiles its WASM when created: seconds): each test its own store
let db: PGlite
beforeAll(async () => {
  db = await PGlite.create()
}, 180_000)

describe('the PostgreSQL store on PGlite', { timeout: 60_000 }, () => {
  it('migrates the schema once, and refuses a database of a newer version', async () => {
    const pool = await pglitePool(db)
    expect(await migratePostgres(pool)).toEqual([1, 2])
    expect(await migratePostgres(pool)).toEqual([])
    expect((await pool.db.query<{ version: number }>('SELECT version FROM chatfold_migrations ORDER BY version')).rows).toEqual([
      { version: 1 },
      { version: POSTGRES_SCHEMA_VERSION },
    ])
    await pool.db.query("INSERT INTO chatfold_migrations (version, name) VALUES (99, 'future')")
    await expect(migratePostgres(pool)).rejects.toMatchObject({ code: 'corrupt' })
    await pool.db.query('DELETE FROM chatfold_migrations WHERE version = 99')
  })

  it('recovers exactly the simulator its committed steps made, refused steps leaving no record', async () => {
    const pool = await pglitePool(db)
    const a = await openPostgresStore(pool)({ store: 't1', startTime: START, idPrefix: 'p-' })
    await a.transaction(() => {
      a.submit({ role: 'user', content: "What's the weather?" })
      a.submit({ role: 'assistant', content: 'Sunny.', message_id: 'a-1', conversation_id: 'c-1' })
      a.submit({ role: 'user', content: 'dup', message_id: 'a-1', conversation_id: 'c-1' }) // refused
      a.schedule({ scheduled_time: '2024-03-15T10:30:00Z', data: { role: 'user', content: 'later' } })
      a.advanceBy(3600)
    })
    // create, 2 submits, a schedule, an advance
    expect(await logSeqs(pool, 't1')).toEqual([1, 2, 3, 4, 5])
    const b = await openPostgresStore(pool)({ store: 't1' })
    expect(encodeSimulator(b.simulator())).toEqual(encodeSimulator(a.simulator()))
    expect(b.recovery).toEqual({ snapshotSeq: 0, replayed: 5, seq: 5, messages: 3, repaired: [] })
  })

  it('serves two processes on one database: each sees the other, and a retry on the other is refused (409)', async () => {
    const pool = await pglitePool(db)
    const a = postgresChatHandler(await openPostgresStore(pool)({ store: 't2' }))
    const b = postgresChatHandler(await openPostgresStore(pool)({ store: 't2' }))
    expect((await post(a, '/modalities/chat/submit', { role: 'user', content: 'Hello', message_id: 'm-1', conversation_id: 'c' })).status).toBe(201)
    const retry = await post(b, '/modalities/chat/submit', { role: 'user', content: 'Hello', message_id: 'm-1', conversation_id: 'c' })
    expect(retry.status).toBe(409)
    expect((await post(b, '/modalities/chat/submit', { role: 'assistant', content: 'Hi', message_id: 'm-2', conversation_id: 'c' })).status).toBe(201)
    const seenByA = await snapshotOf(a)
    expect(seenByA.messages.map((m: { message_id: string }) => m.message_id)).toEqual(['m-1', 'm-2'])
    expect(await snapshotOf(b)).toEqual(seenByA)
  })

  it('numbers concurrent requests on two processes in one order, none lost or repeated', async () => {
    const pool = await pglitePool(db)
    const stores = [await openPostgresStore(pool)({ store: 't3' }), await openPostgresStore(pool)({ store: 't3' })]
    const handlers = stores.map((s) => postgresChatHandler(s))
    const n = 40
    const replies = await Promise.all(
      Array.from(
        { length: n },
        (_, i) =>
          post(handlers[i % 2] as (r: Request) => Promise<Response>, '/modalities/chat/submit', {
            role: 'user',
            content: `m${i}`,
            message_id: `p-${i}`,
            conversation_id: `c-${i % 3}`,
          }),
      ),
    )
    expect(replies.map((r) => r.status)).toEqual(Array(n).fill(201))
    const [x, y] = await Promise.all(handlers.map(snapshotOf))
    expect(x).toEqual(y)
    expect(x.update_count).toBe(n)
    expect(new Set(x.messages.map((m: { input_id: string }) => m.input_id)).size).toBe(n)
    expect(await logSeqs(pool, 't3')).toEqual(Array.from({ length: n + 1 }, (_, i) => i + 1))
    const [s0, s1] = stores
    if (s0 === undefined || s1 === undefined) throw new Error('two stores')
    expect(encodeSimulator(s0.simulator())).toEqual(encodeSimulator(s1.simulator()))
  })

  it('asks the same tokens as the other servers, and answers 413 to a body over the limit, committing nothing', async () => {
    const pool = await pglitePool(db)
    const store = await openPostgresStore(pool)({ store: 't7' })
    const token = 'a-write-token-0123456789'
    const readToken = 'a-read-token-0123456789'
    const handler = postgresChatHandler(store, { token, readToken, maxBodyBytes: 1_000 })
    const send = (body: unknown, bearer?: string) =>
      handler(
        new Request('http://127.0.0.1/modalities/chat/submit', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }) },
          body: JSON.stringify(body),
        }),
      )
    expect((await send({ role: 'user', content: 'no token' })).status).toBe(401)
    expect((await send({ role: 'user', content: 'read token' }, readToken)).status).toBe(403)
    expect((await send({ role: 'user', content: 'x'.repeat(5_000) }, token)).status).toBe(413)
    expect((await send({ role: 'user', content: 'fits' }, token)).status).toBe(201)
    expect(await logSeqs(pool, 't7')).toEqual([1, 2])
  })

  it('answers 503 when the commit fails, keeps nothing of it, and goes on', async () => {
    const pool = await pglitePool(db)
    const store = await openPostgresStore(pool)({ store: 't4' })
    const handler = postgresChatHandler(store)
    pool.failNext(/^COMMIT/)
    const r = await post(handler, '/modalities/chat/submit', { role: 'user', content: 'lost', message_id: 'x' })
    expect(r.status).toBe(503)
    expect(store.state().updateCount).toBe(0)
    expect(await logSeqs(pool, 't4')).toEqual([1])
    // the retry is stored (not refused as a duplicate of what was never committed)
    expect((await post(handler, '/modalities/chat/submit', { role: 'user', content: 'lost', message_id: 'x' })).status).toBe(201)
    const other = await openPostgresStore(pool)({ store: 't4' })
    expect(other.state().updateCount).toBe(1)
  })

  it('refuses to write to a database behind what it saw committed (restored from a backup), answering 503', async () => {
    const pool = await pglitePool(db)
    const store = await openPostgresStore(pool)({ store: 't8' })
    const handler = postgresChatHandler(store)
    expect((await post(handler, '/modalities/chat/submit', { role: 'user', content: 'kept', message_id: 'k' })).status).toBe(201)
    // the database goes back to before the submit
    await pool.db.query("DELETE FROM chatfold_log WHERE store = 't8' AND seq > 1")
    await pool.db.query("UPDATE chatfold_store SET head = 1 WHERE store = 't8'")
    const r = await post(handler, '/modalities/chat/submit', { role: 'user', content: 'next', message_id: 'n' })
    expect(r.status).toBe(503)
    expect((await r.json()).error.message).toMatch(/ends at record 1, before record 2/)
    expect(await logSeqs(pool, 't8')).toEqual([1])
    expect(store.failed()).toMatchObject({ code: 'corrupt' })
  })

  it('reads a snapshot when the records it is behind were folded into one', async () => {
    const pool = await pglitePool(db)
    const a = await openPostgresStore(pool)({ store: 't5', snapshotEvery: 5 })
    const b = await openPostgresStore(pool)({ store: 't5', snapshotEvery: 5 })
    for (let i = 0; i < 12; i++) await a.transaction(() => a.submit({ role: 'user', content: `m${i}` }))
    // the log keeps the records from the latest snapshot on
    const seqs = await logSeqs(pool, 't5')
    expect(seqs[0]).toBeGreaterThan(1)
    expect(seqs[seqs.length - 1]).toBe(13)
    await b.refresh()
    expect(encodeSimulator(b.simulator())).toEqual(encodeSimulator(a.simulator()))
    const c = await openPostgresStore(pool)({ store: 't5' })
    expect(c.recovery.snapshotSeq).toBe(seqs[0])
    expect(c.recovery.messages).toBe(12)
  })

  it('refuses to commit a step taken outside a transaction once another process wrote (conflict), undoing it', async () => {
    const pool = await pglitePool(db)
    const a: PostgresChatStore = await openPostgresStore(pool)({ store: 't6' })
    const b: PostgresChatStore = await openPostgresStore(pool)({ store: 't6' })
    a.submit({ role: 'user', content: 'from a', message_id: 'a' })
    await b.transaction(() => b.submit({ role: 'user', content: 'from b', message_id: 'b' }))
    const e = await a.flush().then(
      () => undefined,
      (x: unknown) => x,
    )
    expect(isStoreError(e) && e.code).toBe('conflict')
    // undone, and caught up with what b committed
    expect(a.state().updateCount).toBe(1)
    a.submit({ role: 'user', content: 'from a', message_id: 'a' })
    await a.flush()
    const c = await openPostgresStore(pool)({ store: 't6' })
    expect(c.state().updateCount).toBe(2)
  })
})
