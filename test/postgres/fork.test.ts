/**
 * The fork cases on the PostgreSQL store (PGlite): a fork is one committed record; the store
 * opened again is a second process on the same database, which replays it and goes on.
 */
import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe } from 'vitest'
import { openPostgresStore, type PostgresChatStore } from '../../src/postgres/store.ts'
import { postgresChatHandler } from '../../src/postgres/handler.ts'
import { pglitePool } from '../support/pglite-pool.ts'
import { forkCases } from '../support/fork-cases.ts'
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
