/**
 * The Durable Streams log in PostgreSQL (on PGlite): two handlers, each with its own storage on
 * one database, stand for two servers. Appends through either are ordered by the database,
 * an idempotent producer's retry through the other is known, reads and long-polls through one see
 * what the other kept, and a write the database refuses is answered 503 and shown to no reader.
 */
import { PGlite } from '@electric-sql/pglite'
import { beforeAll, describe, expect, it } from 'vitest'
import { openStreamsHandler, type StreamsHandler } from '../../src/streams/handler.ts'
import { postgresStreamsStorage } from '../../src/postgres/streams.ts'
import { type PglitePool, pglitePool } from '../support/pglite-pool.ts'

let db: PGlite
beforeAll(async () => {
  db = await PGlite.create()
}, 180_000)

let n = 0
/** Two handlers on the one database, and a fresh stream path for the test. */
const two = async (): Promise<{ a: StreamsHandler; b: StreamsHandler; pool: PglitePool; url: string }> => {
  const pool = await pglitePool(db)
  const a = await openStreamsHandler(postgresStreamsStorage(pool, { recheckMs: 50 }))
  const b = await openStreamsHandler(postgresStreamsStorage(pool, { recheckMs: 50 }))
  n += 1
  return { a, b, pool, url: `http://localhost/streams/s${n}` }
}
const put = (url: string, type = 'text/plain') => new Request(url, { method: 'PUT', headers: { 'content-type': type } })
const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  new Request(url, { method: 'POST', headers: { 'content-type': 'text/plain', ...headers }, body })

describe('Durable Streams on PostgreSQL (PGlite)', { timeout: 60_000 }, () => {
  it('orders appends through two servers in the database, and each reads what the other kept', async () => {
    const { a, b, url } = await two()
    expect((await a.handle(put(url))).status).toBe(201)
    expect((await b.handle(put(url))).status).toBe(200) // the same stream, created by the other server
    const offsets: string[] = []
    for (let i = 0; i < 6; i++) {
      const r = await (i % 2 === 0 ? a : b).handle(post(url, String(i)))
      expect(r.status).toBe(204)
      offsets.push(r.headers.get('stream-next-offset') ?? '')
    }
    expect(new Set(offsets).size).toBe(6)
    expect([...offsets].sort()).toEqual(offsets)
    for (const h of [a, b]) {
      const read = await h.handle(new Request(`${url}?offset=-1`))
      expect(await read.text()).toBe('012345')
      expect(read.headers.get('stream-next-offset')).toBe(offsets[5])
    }
    await a.close()
    await b.close()
  })

  it("knows an idempotent producer's retry sent to the other server, and its epoch", async () => {
    const { a, b, url } = await two()
    await a.handle(put(url))
    const producer = (seq: number, epoch = 0) => ({ 'producer-id': 'p', 'producer-epoch': String(epoch), 'producer-seq': String(seq) })
    expect((await a.handle(post(url, 'x', producer(0)))).status).toBe(200)
    expect((await b.handle(post(url, 'x', producer(0)))).status).toBe(204) // a duplicate: not appended again
    expect((await b.handle(post(url, 'y', producer(2)))).status).toBe(409) // seq 1 skipped
    expect((await b.handle(post(url, 'y', producer(1)))).status).toBe(200)
    expect((await a.handle(post(url, 'z', producer(0, 1)))).status).toBe(200)
    expect((await b.handle(post(url, 'w', producer(2, 0)))).status).toBe(403) // the older epoch is fenced
    expect(await (await b.handle(new Request(`${url}?offset=-1`))).text()).toBe('xyz')
    await a.close()
    await b.close()
  })

  it('wakes a long-poll on one server when the other appends', async () => {
    const { a, b, url } = await two()
    const created = await a.handle(put(url))
    const tail = created.headers.get('stream-next-offset') ?? ''
    const polled = b.handle(new Request(`${url}?offset=${tail}&live=long-poll`))
    expect((await a.handle(post(url, 'late'))).status).toBe(204)
    const r = await polled
    expect(r.status).toBe(200)
    expect(await r.text()).toBe('late')
    await a.close()
    await b.close()
  })

  it('answers 503 for an append the database did not commit, and shows it to no reader', async () => {
    const { a, b, pool, url } = await two()
    await a.handle(put(url))
    expect((await a.handle(post(url, 'kept'))).status).toBe(204)
    pool.failNext(/^COMMIT/)
    expect((await a.handle(post(url, 'lost'))).status).toBe(503)
    for (const h of [a, b]) expect(await (await h.handle(new Request(`${url}?offset=-1`))).text()).toBe('kept')
    // the server that failed reads the log again, and appends after what was kept
    let r = await a.handle(post(url, '!'))
    for (let i = 0; i < 10 && r.status === 503; i++) r = await a.handle(post(url, '!'))
    expect(r.status).toBe(204)
    expect(await (await b.handle(new Request(`${url}?offset=-1`))).text()).toBe('kept!')
    await a.close()
    await b.close()
  })
})
