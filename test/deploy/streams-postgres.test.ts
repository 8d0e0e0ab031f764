/**
 * Durable Streams on `chatfold serve --postgres`, two servers on one database of a real
 * PostgreSQL server: a writer appends through one while a reader tails through the other (by
 * Server-Sent Events, then by long-poll), and the reader sees every append once, in order. And
 * the notification alone wakes a tail on another process: with the periodic re-check out of
 * reach, a long-poll through one handler is answered with an append made through another, over
 * `pg` and over postgres.js.
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

const startServer = (url: string) =>
  startChild(process.execPath, [bin, 'serve', '--port', '0', '--host', '127.0.0.1', '--postgres', url], /listening on (http:\/\/127\.0\.0\.1:\d+)\n/)

beforeAll(async () => {
  server = await startPostgres()
  const db = await server.createDatabase('streams')
  dbUrl = db
  // started together: both migrate at once, and the database lets one do it
  children.push(...(await Promise.all([startServer(db), startServer(db)])))
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
