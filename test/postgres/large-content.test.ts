/** Large content on the PostgreSQL store (PGlite): a screenshot repeated in 40 turns is kept once in its log and its snapshot, and a second process reads it back whole. */
import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe } from 'vitest'
import { openPostgresStore, type PostgresChatStore } from '../../src/postgres/store.ts'
import { pglitePool } from '../support/pglite-pool.ts'
import { largeContentCases } from '../support/large-content-cases.ts'

let db: PGlite
const opened: PostgresChatStore[] = []
afterAll(async () => void (await Promise.all(opened.map((s) => s.close()))))
beforeAll(async () => {
  db = await PGlite.create()
}, 180_000)

describe('large content: PostgreSQL (PGlite), read back by a second process', () => {
  largeContentCases(async () => {
    const pool = await pglitePool(db)
    const store = await openPostgresStore(pool)({ store: 'large', startTime: '2024-03-15T10:00:00Z', snapshotEvery: 8 })
    opened.push(store)
    return {
      store,
      commit: (step) => store.transaction(step),
      logBytes: async () => {
        const r = await db.query<{ n: number }>(`SELECT coalesce(sum(octet_length(command)), 0)::int AS n FROM chatfold_log WHERE store = 'large'`)
        return Number(r.rows[0]?.n ?? 0)
      },
      reopen: async () => {
        const second = await openPostgresStore(pool)({ store: 'large', snapshotEvery: 8 })
        opened.push(second)
        return second
      },
    }
  })
})
