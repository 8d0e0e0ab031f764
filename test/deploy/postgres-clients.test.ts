/**
 * The PostgreSQL store over either client library, on a real PostgreSQL server (a throwaway
 * cluster of Debian's `postgresql`): a `pg` pool and a postgres.js sql client (npm `postgres`)
 * each pass the fork and compaction cases and the two-process cases (each sees what the other
 * committed, a retry on the other is refused, concurrent requests on both are numbered once, a
 * process behind a snapshot reads it) and the random interleavings of test/support/interleavings.ts
 * (fewer runs than on PGlite), and `chatfold serve --postgres-driver postgres` passes the
 * store contract with two servers on one database, SIGKILLs included (the `pg` servers pass it in
 * durable-postgres.test.ts).
 */
import fc from 'fast-check'
import pg from 'pg'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeSimulator } from '../../src/store/log.ts'
import { poolOf, type PostgresClient } from '../../src/postgres/client.ts'
import { openPostgresStore, type PostgresChatStore } from '../../src/postgres/store.ts'
import { postgresChatHandler } from '../../src/postgres/handler.ts'
import { servedEnv, type ServedStore, startChild } from '../support/served-store.ts'
import { storeContract } from '../support/store-contract.ts'
import { type PostgresServer, startPostgres } from '../support/postgres-server.ts'
import { forkCases, idsOf, post, say } from '../support/fork-cases.ts'
import { compactionCases } from '../support/compaction-cases.ts'
import { EVERY_CASE, EVERY_CASE_INTERLEAVING, interleavingArb, type InterleavingStats, postgresBackend, runInterleaving } from '../support/interleavings.ts'
import { bundleCli } from './support/bundled-cli.ts'
import { servedPair } from './support/served-pair.ts'

let server: PostgresServer | undefined
let bin = ''
const ends: Array<() => Promise<void>> = []
beforeAll(async () => {
  ;[server, bin] = await Promise.all([startPostgres(), bundleCli()])
}, 300_000)
afterAll(async () => {
  await Promise.allSettled(ends.splice(0).map((end) => end()))
  await server?.stop()
})

let databases = 0
const database = async (): Promise<string> => {
  if (server === undefined) throw new Error('no PostgreSQL server')
  return server.createDatabase(`clients${++databases}`)
}

/** A client of the library `driver` on the database at `url` (a process's own connections), closed after the file. */
const clientOf = (driver: 'pg' | 'postgres', url: string): PostgresClient => {
  if (driver === 'pg') {
    const pool = new pg.Pool({ connectionString: url, max: 4 })
    ends.push(() => pool.end())
    return pool
  }
  const sql = postgres(url, { max: 4, onnotice: () => undefined })
  ends.push(() => sql.end({ timeout: 5 }))
  return sql
}

for (const driver of ['pg', 'postgres'] as const) {
  describe(`the PostgreSQL store over ${driver}, on a real server`, { timeout: 120_000 }, () => {
    forkCases(`PostgreSQL over ${driver}, reopened as a second process`, async () => {
      const url = await database()
      const stores: PostgresChatStore[] = [await openPostgresStore(clientOf(driver, url))({ startTime: '2024-03-15T10:00:00Z' })]
      return {
        handler: postgresChatHandler(stores[0] as PostgresChatStore),
        reopen: async () => {
          const second = await openPostgresStore(clientOf(driver, url))()
          stores.push(second)
          return postgresChatHandler(second)
        },
        close: async () => void (await Promise.all(stores.map((s) => s.close()))),
      }
    })

    describe('compaction as a committed overlay, the append from a second process', () => {
      compactionCases(async () => {
        const url = await database()
        const store = await openPostgresStore(clientOf(driver, url))({ startTime: '2024-03-15T10:00:00Z', snapshotEvery: 4 })
        const writer = await openPostgresStore(clientOf(driver, url))({ snapshotEvery: 4 })
        return {
          store,
          writer,
          commit: (s, step) => (s as PostgresChatStore).transaction(step),
          reopen: () => openPostgresStore(clientOf(driver, url))(),
        }
      })
    })

    it('serves two processes on one database: each sees the other, a retry on the other is refused, concurrent requests are numbered once', async () => {
      const url = await database()
      const stores = [
        await openPostgresStore(clientOf(driver, url))({ snapshotEvery: 7 }),
        await openPostgresStore(clientOf(driver, url))({ snapshotEvery: 7 }),
      ]
      const [a, b] = stores.map((s) => postgresChatHandler(s))
      if (a === undefined || b === undefined) throw new Error('two handlers')
      expect((await say(a, 'c', 'm-1')).status).toBe(201)
      expect((await say(b, 'c', 'm-1')).status).toBe(409)
      const n = 30
      const replies = await Promise.all(Array.from({ length: n }, (_, i) => say(i % 2 === 0 ? a : b, `c-${i % 3}`, `p-${i}`)))
      expect(replies.map((r) => r.status)).toEqual(Array(n).fill(201))
      for (let c = 0; c < 3; c++) {
        const mine = Array.from({ length: n }, (_, i) => i).filter((i) => i % 3 === c).map((i) => `p-${i}`)
        expect([...(await idsOf(a, `c-${c}`))].sort()).toEqual(mine.sort())
        expect(await idsOf(b, `c-${c}`)).toEqual(await idsOf(a, `c-${c}`))
      }
      // snapshots every 7 records: a third process opens behind several, and reads the same
      const third = await openPostgresStore(clientOf(driver, url))()
      expect(third.recovery.snapshotSeq).toBeGreaterThan(0)
      const [s0, s1] = stores
      await s0?.refresh()
      await s1?.refresh()
      expect(encodeSimulator(third.simulator())).toEqual(encodeSimulator(s0?.simulator() ?? third.simulator()))
      expect(encodeSimulator(third.simulator())).toEqual(encodeSimulator(s1?.simulator() ?? third.simulator()))
      expect((await post(postgresChatHandler(third), '/environment/modalities/chat/query', { conversation_id: 'c' })).body.messages).toHaveLength(1)
    })

    it('loses nothing acknowledged, resurrects nothing cleared, and reads each overlay on its own branch, under random interleavings', async () => {
      const url = await database()
      let runs = 0
      // each process its own client of the database, as separate servers have
      const backend = postgresBackend(() => poolOf(clientOf(driver, url)), () => `run-${++runs}`)
      const stats: InterleavingStats = {}
      await fc.assert(fc.asyncProperty(interleavingArb(16), (ops) => runInterleaving(backend, ops, stats)), {
        numRuns: 6,
        examples: [[EVERY_CASE_INTERLEAVING]],
      })
      expect(Object.keys(stats).sort()).toEqual(EVERY_CASE)
    })
  })
}

/** `chatfold serve --postgres URL --postgres-driver postgres` (the simulator routes on: the contract moves the clock). */
const startServer = (url: string) =>
  startChild(
    process.execPath,
    [bin, 'serve', '--port', '0', '--simulator', '--postgres', url, '--postgres-driver', 'postgres'],
    /\(postgres\) at record[^\n]*\n[^]*listening on (http:\/\/127\.0\.0\.1:\d+)\n/,
    { env: servedEnv(), timeoutMs: 120_000 },
  )

/** Two postgres.js servers on a fresh database: `url()` alternates between them, `restart` SIGKILLs (or stops) one, in turn, and starts it again. */
const serveTwo = async (): Promise<ServedStore> => {
  const db = await database()
  return servedPair(() => startServer(db))
}

storeContract('Node, PostgreSQL over postgres.js (chatfold serve --postgres-driver postgres), two servers on one database', serveTwo, {
  kills: 3,
  clients: 16,
  perClient: 20,
})
