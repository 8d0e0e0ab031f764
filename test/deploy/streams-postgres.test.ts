/**
 * Durable Streams on `chatfold serve --postgres`, two servers on one database of a real
 * PostgreSQL server: a writer appends through one while a reader tails through the other (by
 * Server-Sent Events, then by long-poll), and the reader sees every append once, in order.
 */
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Child, startChild, stopChild } from '../support/served-store.ts'
import { type PostgresServer, startPostgres } from '../support/postgres-server.ts'
import { tailStream } from '../../src/streams/tail.ts'

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'chatfold.mjs')
let server: PostgresServer | undefined
const children: Array<Child & { match: RegExpExecArray }> = []

const startServer = (url: string) =>
  startChild(process.execPath, [bin, 'serve', '--port', '0', '--host', '127.0.0.1', '--postgres', url], /listening on (http:\/\/127\.0\.0\.1:\d+)\n/)

beforeAll(async () => {
  server = await startPostgres()
  const db = await server.createDatabase('streams')
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
