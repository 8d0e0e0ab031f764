/**
 * The fork cases on the PostgreSQL store (PGlite): a fork is one committed record; the store
 * opened again is a second process on the same database, which replays it and goes on.
 */
import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPostgresStore, type PostgresChatStore } from '../../src/postgres/store.ts'
import { postgresChatHandler } from '../../src/postgres/handler.ts'
import { pglitePool } from '../support/pglite-pool.ts'
import { forkCases, post, say } from '../support/fork-cases.ts'
import { compactionCases } from '../support/compaction-cases.ts'

let db: PGlite
const opened: PostgresChatStore[] = []
afterAll(async () => void (await Promise.all(opened.map((s) => s.close()))))
beforeAll(async () => {
  db = await PGlite.create()
}, 180_000)

let n = 0
forkCases('PostgreSQL (PGlite), reopened as a second process', async () => {
  const pool = await pglitePool(db)
  const name = `fork-${++n}`
  const stores: PostgresChatStore[] = [await openPostgresStore(pool)({ store: name, startTime: '2024-03-15T10:00:00Z' })]
  return {
    handler: postgresChatHandler(stores[0]!),
    reopen: async () => {
      const second = await openPostgresStore(pool)({ store: name })
      stores.push(second)
      return postgresChatHandler(second)
    },
    close: async () => void (await Promise.all(stores.map((s) => s.close()))),
  }
})

it('commits a fork as one row of the log, never a copy of the history it shares', async () => {
  const pool = await pglitePool(db)
  const name = `fork-rows-${++n}`
  const store = await openPostgresStore(pool)({ store: name, startTime: '2024-03-15T10:00:00Z' })
  opened.push(store)
  const h = postgresChatHandler(store)
  const long = 'x'.repeat(20_000)
  for (const id of ['u1', 'a1', 'u2', 'a2']) expect((await say(h, 'main', id, `${id} ${long}`)).status).toBe(201)
  const rows = async () =>
    (await db.query<{ seq: number; command: string }>('SELECT seq, command FROM chatfold_log WHERE store = $1 ORDER BY seq', [name])).rows
  const before = await rows()
  expect((await post(h, '/modalities/chat/fork', { conversation_id: 'main', message_id: 'a2', new_conversation_id: 'copy' })).status).toBe(201)
  const after = await rows()
  expect(after.slice(0, before.length)).toEqual(before)
  expect(after.slice(before.length).map((r) => JSON.parse(r.command).op)).toEqual(['fork'])
  expect(after.at(-1)!.command.length).toBeLessThan(500)
})

describe('compaction as a committed overlay: PostgreSQL (PGlite), the append from a second process', () => {
  compactionCases(async () => {
    const pool = await pglitePool(db)
    const name = `compact-${++n}`
    const store = await openPostgresStore(pool)({ store: name, startTime: '2024-03-15T10:00:00Z', snapshotEvery: 4 })
    const writer = await openPostgresStore(pool)({ store: name, snapshotEvery: 4 })
    const stores = opened
    stores.push(store, writer)
    return {
      store,
      writer,
      commit: (s, step) => (s as PostgresChatStore).transaction(step),
      reopen: async () => {
        const third = await openPostgresStore(pool)({ store: name })
        stores.push(third)
        return third
      },
    }
  })
})
