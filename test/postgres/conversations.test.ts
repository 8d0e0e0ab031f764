/**
 * A PostgreSQL store's conversations as Durable Streams (on PGlite): two stores and two streams
 * handlers on one database stand for two servers. A submit committed through either is on its
 * conversation's stream on both, with the same bytes and offsets (a client resumes on the other
 * with the offset it had); a long-poll on one is answered with a submit through the other; a commit
 * that fails is on no stream; clients cannot write the streams; and a store written before it
 * published has its conversations back-filled once, by message id.
 */
import { PGlite } from '@electric-sql/pglite'
import { beforeAll, describe, expect, it } from 'vitest'
import { openStreamsHandler, type StreamsHandler } from '../../src/streams/handler.ts'
import { postgresStreamsStorage } from '../../src/postgres/streams.ts'
import { openPostgresStore, type PostgresChatStore } from '../../src/postgres/store.ts'
import { publishConversations } from '../../src/postgres/conversations.ts'
import { type PglitePool, pglitePool } from '../support/pglite-pool.ts'

const START = '2024-03-15T10:00:00Z'

let db: PGlite
beforeAll(async () => {
  db = await PGlite.create()
}, 180_000)

const open = (pool: PglitePool, store: string, publish = true) =>
  openPostgresStore(pool)({ store, startTime: START, ...(publish ? { beforeCommit: publishConversations(store) } : {}) })

const streamsOn = (pool: PglitePool, recheckMs = 50) => openStreamsHandler(postgresStreamsStorage(pool, { recheckMs }))

const submit = (store: PostgresChatStore, conversation: string, id: string) =>
  store.transaction(() => store.submit({ role: 'user', content: `text of ${id}`, conversation_id: conversation, message_id: id }))

const read = async (streams: StreamsHandler, url: string, offset = '-1') => {
  const r = await streams.handle(new Request(`${url}?offset=${offset}`))
  const body = await r.text()
  return {
    status: r.status,
    body,
    ids: r.status === 200 ? (JSON.parse(body) as Array<{ message_id: string }>).map((m) => m.message_id) : [],
    next: r.headers.get('stream-next-offset') ?? '',
  }
}

const logRows = async (pool: PglitePool, prefix: string) =>
  (await pool.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chatfold_streams_log WHERE starts_with(path, $1)', [prefix])).rows[0]?.n

describe('conversations as streams on PostgreSQL (PGlite)', { timeout: 60_000 }, () => {
  it('shows a submit through either server on both, with the same bytes and offsets, and wakes a long-poll on the other', async () => {
    const pool = await pglitePool(db)
    const [a, b] = [await open(pool, 'two'), await open(pool, 'two')]
    const [sa, sb] = [await streamsOn(pool), await streamsOn(pool)]
    const url = 'http://localhost/streams/stores/two/conversations/c%201'
    expect((await read(sb, url)).status).toBe(404)
    await submit(a, 'c 1', 'm1')
    const first = await read(sb, url)
    expect(first.ids).toEqual(['m1'])
    // a long-poll on b from where the client is, answered by a submit through a
    const polled = sb.handle(new Request(`${url}?offset=${first.next}&live=long-poll`))
    await submit(a, 'c 1', 'm2')
    const woken = await polled
    expect(woken.status).toBe(200)
    expect(((await woken.json()) as Array<{ message_id: string }>).map((m) => m.message_id)).toEqual(['m2'])
    const second = woken.headers.get('stream-next-offset') ?? ''
    // a submit through b; the client resumes on a with the offset b gave: exactly the rest
    await submit(b, 'c 1', 'm3')
    await submit(b, 'c 2', 'x1')
    const rest = await read(sa, url, second)
    expect(rest.ids).toEqual(['m3'])
    const [whole, wholeB] = [await read(sa, url), await read(sb, url)]
    expect(whole.ids).toEqual(['m1', 'm2', 'm3'])
    expect(wholeB.body).toBe(whole.body)
    expect(wholeB.next).toBe(whole.next)
    expect(rest.next).toBe(whole.next)
    // the stream holds the messages as the chat routes show them
    expect(JSON.parse(whole.body)[0]).toMatchObject({ message_id: 'm1', conversation_id: 'c 1', role: 'user', content: 'text of m1' })
    // a fork is a conversation of its own, on its own stream
    await a.transaction(() => a.fork('c 1', 'm2', 'c 3'))
    expect((await read(sb, 'http://localhost/streams/stores/two/conversations/c%203')).ids).toHaveLength(2)
    for (const s of [sa, sb]) await s.close()
  })

  it('shows no message whose commit failed, and refuses client writes even through a server that has not caught up', async () => {
    const pool = await pglitePool(db)
    const a = await open(pool, 'refused')
    // c has not looked at the log since before the conversation began (no re-check in this test)
    const [sa, sc] = [await streamsOn(pool), await streamsOn(pool, 600_000)]
    const url = 'http://localhost/streams/stores/refused/conversations/c'
    await submit(a, 'c', 'm1')
    pool.failNext(/^COMMIT/)
    await expect(submit(a, 'c', 'lost')).rejects.toThrow()
    expect((await read(sa, url)).ids).toEqual(['m1'])
    await submit(a, 'c', 'm2')
    expect((await read(sa, url)).ids).toEqual(['m1', 'm2'])
    const writes = [
      new Request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"forged":true}' }),
      new Request(url, { method: 'PUT', headers: { 'content-type': 'application/json' } }),
      new Request(url, { method: 'DELETE' }),
    ]
    for (const w of writes) expect((await sc.handle(w.clone())).status).toBe(405)
    for (const w of writes) expect((await sa.handle(w.clone())).status).toBe(405)
    expect((await read(sc, url)).ids).toEqual(['m1', 'm2'])
    for (const s of [sa, sc]) await s.close()
  })

  it('back-fills the conversations of a store written before it published, once, by message id', async () => {
    const pool = await pglitePool(db)
    const prefix = '/stores/old/conversations/'
    const before = await open(pool, 'old', false)
    await submit(before, 'c', 'm1')
    await submit(before, 'c', 'm2')
    await submit(before, 'd', 'd1')
    expect(await logRows(pool, prefix)).toBe(0)
    const a = await open(pool, 'old')
    const streams = await streamsOn(pool)
    const url = 'http://localhost/streams/stores/old/conversations/c'
    const filled = await read(streams, url)
    expect(filled.ids).toEqual(['m1', 'm2'])
    expect((await read(streams, 'http://localhost/streams/stores/old/conversations/d')).ids).toEqual(['d1'])
    const rows = await logRows(pool, prefix)
    // opened again: nothing twice
    await open(pool, 'old')
    expect(await logRows(pool, prefix)).toBe(rows)
    // a message written without publishing is appended by the next opening, after what the stream has
    await submit(before, 'c', 'm3')
    await submit(a, 'c', 'm4')
    await open(pool, 'old')
    const whole = await read(streams, url)
    expect(whole.ids).toEqual(['m1', 'm2', 'm4', 'm3'])
    // and the offsets a client had still hold
    expect((await read(streams, url, filled.next)).ids).toEqual(['m4', 'm3'])
    await streams.close()
  })
})
