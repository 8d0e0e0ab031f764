/**
 * Durable Streams on `chatfold serve --postgres`, two servers on one database of a real
 * PostgreSQL server: a writer appends through one while a reader tails through the other (by
 * Server-Sent Events, then by long-poll), and the reader sees every append once, in order. And
 * the notification alone wakes a tail on another process: with the periodic re-check out of
 * reach, a long-poll through one handler is answered with an append made through another, over
 * `pg` and over postgres.js. And each conversation of the chat store is a stream both servers
 * serve alike: a submit acknowledged by one reaches a tail on the other (SSE, long-poll) with no
 * request to the other's chat routes; a client that read up to an offset on one gets exactly the
 * rest from the other (a third server, over postgres.js, publishing too); a server killed and
 * restarted serves the same bytes; clients cannot write it.
 */
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Child, startChild, stopChild } from '../support/served-store.ts'
import { type PostgresServer, startPostgres } from '../support/postgres-server.ts'
import { tailStream } from '../../src/streams/tail.ts'
import { openStreamsHandler } from '../../src/streams/handler.ts'
import { postgresStreamsStorage } from '../../src/postgres/streams.ts'
import { openClient } from '../../src/postgres/_connect.ts'

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'chatfold.mjs')
let server: PostgresServer | undefined
let dbUrl = ''
const children: Array<Child & { match: RegExpExecArray }> = []

const startServer = (url: string, driver: 'pg' | 'postgres' = 'pg') =>
  startChild(
    process.execPath,
    [bin, 'serve', '--port', '0', '--host', '127.0.0.1', '--postgres', url, '--postgres-driver', driver],
    /listening on (http:\/\/127\.0\.0\.1:\d+)\n/,
  )

beforeAll(async () => {
  server = await startPostgres()
  const db = await server.createDatabase('streams')
  dbUrl = db
  // started together: both migrate at once, and the database lets one do it
  children.push(...(await Promise.all([startServer(db), startServer(db)])))
  // a third over postgres.js: it publishes conversations with the same statements
  children.push(await startServer(db, 'postgres'))
}, 120_000)
afterAll(async () => {
  await Promise.all(children.map((c) => stopChild(c.process, 'SIGTERM')))
  await server?.stop()
})

const COUNT = 200

for (const live of ['sse', 'long-poll'] as const) {
  describe(`two chatfold serve --postgres on one database (${live})`, { timeout: 120_000 }, () => {
    it('a reader tailing through one server sees every append through the other once, in order', async () => {
      const writer = `${children[0]?.match[1]}/streams/pg-${live}`
      const reader = `${children[1]?.match[1]}/streams/pg-${live}`
      const created = await fetch(writer, { method: 'PUT', headers: { 'content-type': 'application/json' } })
      expect(created.status).toBe(201)
      const seen: unknown[] = []
      const tailing = (async () => {
        for await (const batch of tailStream(reader, { live, retryMs: 50 })) {
          seen.push(...batch.messages)
          if (batch.closed) return
        }
      })()
      for (let i = 0; i < COUNT; i++) {
        const r = await fetch(writer, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ i }) })
        expect(r.status).toBe(204)
      }
      const closed = await fetch(writer, { method: 'POST', headers: { 'stream-closed': 'true' } })
      expect(closed.status).toBe(204)
      await tailing
      expect(seen).toEqual(Array.from({ length: COUNT }, (_, i) => ({ i })))
    })
  })
}

for (const driver of ['pg', 'postgres'] as const) {
  it(`a long-poll is woken by another process's commit through NOTIFY alone (${driver})`, { timeout: 120_000 }, async () => {
    const opened = await Promise.all([openClient(dbUrl, 2, () => undefined, driver), openClient(dbUrl, 2, () => undefined, driver)])
    // the re-check would come only after the long-poll gave up: only the notification can wake it
    const [a, b] = await Promise.all(
      opened.map((o) => openStreamsHandler(postgresStreamsStorage(o.client, { recheckMs: 600_000 }), { longPollTimeoutMs: 60_000 })),
    )
    if (a === undefined || b === undefined) throw new Error('no handlers')
    try {
      const url = `http://localhost/streams/notify-${driver}`
      const created = await a.handle(new Request(url, { method: 'PUT', headers: { 'content-type': 'text/plain' } }))
      expect(created.status).toBe(201)
      const tail = created.headers.get('stream-next-offset') ?? ''
      // b learns the stream exists (a read catches up), then waits at its end
      expect((await b.handle(new Request(`${url}?offset=-1`))).status).toBe(200)
      // (a catch-up waits for the LISTEN to be taken: b listens from here on)
      const polled = b.handle(new Request(`${url}?offset=${tail}&live=long-poll`))
      expect((await a.handle(new Request(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'woken' }))).status).toBe(204)
      const r = await polled
      expect(r.status).toBe(200)
      expect(await r.text()).toBe('woken')
    } finally {
      await a.close()
      await b.close()
      await Promise.all(opened.map((o) => o.end()))
    }
  })
}

const submitTo = async (origin: string, conversation: string, id: string) => {
  const r = await fetch(`${origin}/modalities/chat/submit`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ role: 'user', content: `text of ${id}`, conversation_id: conversation, message_id: id }),
  })
  await r.body?.cancel()
  return r.status
}
const idsOf = (messages: ReadonlyArray<unknown>) => messages.map((m) => (m as { message_id: string }).message_id)

describe('each conversation is a stream both servers serve alike', { timeout: 120_000 }, () => {
  for (const live of ['sse', 'long-poll'] as const) {
    it(`a submit acknowledged by one server reaches a tail (${live}) on the other`, async () => {
      const [a, b] = [children[0]?.match[1] ?? '', children[1]?.match[1] ?? '']
      const conversation = `tail ${live}`
      expect(await submitTo(a, conversation, 'm0')).toBe(201)
      const abort = new AbortController()
      const seen: unknown[] = []
      let reached: () => void = () => undefined
      const all = new Promise<void>((resolve) => (reached = resolve))
      const tailing = (async () => {
        const url = `${b}/streams/conversations/${encodeURIComponent(conversation)}`
        for await (const batch of tailStream(url, { live, retryMs: 50, signal: abort.signal })) {
          seen.push(...batch.messages)
          if (seen.length >= 6) reached()
        }
      })().catch(() => undefined)
      // b's chat routes are never called: only its streams, woken by the database
      for (let i = 1; i <= 5; i++) expect(await submitTo(a, conversation, `m${i}`)).toBe(201)
      await all
      abort.abort()
      await tailing
      expect(idsOf(seen)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5'])
    })
  }

  it('a client that read up to an offset on one server gets exactly the rest from the other, the same bytes after a SIGKILL and restart', async () => {
    const [a, b, c] = [children[0]?.match[1] ?? '', children[1]?.match[1] ?? '', children[2]?.match[1] ?? '']
    const path = '/streams/conversations/resumed'
    for (const id of ['r1', 'r2']) expect(await submitTo(a, 'resumed', id)).toBe(201)
    const first = await fetch(`${a}${path}?offset=-1`)
    expect(idsOf((await first.json()) as unknown[])).toEqual(['r1', 'r2'])
    const offset = first.headers.get('stream-next-offset') ?? ''
    for (const [origin, id] of [[b, 'r3'], [a, 'r4'], [c, 'r5']] as const) expect(await submitTo(origin, 'resumed', id)).toBe(201)
    const rest = await fetch(`${b}${path}?offset=${offset}`)
    expect(idsOf((await rest.json()) as unknown[])).toEqual(['r3', 'r4', 'r5'])
    const whole = async (origin: string) => {
      const r = await fetch(`${origin}${path}?offset=-1`)
      return { body: await r.text(), next: r.headers.get('stream-next-offset') }
    }
    const before = await whole(a)
    expect(await whole(b)).toEqual(before)
    expect(await whole(c)).toEqual(before)
    expect(before.next).toBe(rest.headers.get('stream-next-offset'))
    // b killed mid-life and started again on the database: the stream is the one it served
    const killed = children[1]
    if (killed === undefined) throw new Error('no server')
    await stopChild(killed.process, 'SIGKILL')
    children[1] = await startServer(dbUrl)
    expect(await whole(children[1].match[1] ?? '')).toEqual(before)
  })

  it('clients cannot write a conversation stream (405) on either server', async () => {
    const [a, b] = [children[0]?.match[1] ?? '', children[1]?.match[1] ?? '']
    expect(await submitTo(a, 'kept', 'k1')).toBe(201)
    for (const origin of [a, b]) {
      const url = `${origin}/streams/conversations/kept`
      const writes = [
        await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"forged":true}' }),
        await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' } }),
        await fetch(url, { method: 'DELETE' }),
      ]
      expect(writes.map((w) => w.status)).toEqual([405, 405, 405])
      for (const w of writes) await w.body?.cancel()
      const read = await fetch(`${url}?offset=-1`)
      expect(idsOf((await read.json()) as unknown[])).toEqual(['k1'])
    }
  })
})
