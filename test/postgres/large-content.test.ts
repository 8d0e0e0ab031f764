/**
 * Large content on the PostgreSQL store (PGlite): a screenshot repeated in 40 turns is kept once
 * in its log and its snapshot, and a second process reads it back whole; in the database, the
 * log's first row carries the screenshot and every later row a small reference to it, and the
 * snapshot row holds it once.
 */
import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPostgresStore, type PostgresChatStore } from '../../src/postgres/store.ts'
import { pglitePool } from '../support/pglite-pool.ts'
import { copiesIn, largeContentCases, screenshot, turnOf } from '../support/large-content-cases.ts'

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

it('writes the screenshot into one row of the log, a reference to it into each of the 39 others, and once into the snapshot', async () => {
  const pool = await pglitePool(db)
  const name = 'large-rows'
  const store = await openPostgresStore(pool)({ store: name, startTime: '2024-03-15T10:00:00Z', snapshotEvery: 10_000 })
  opened.push(store)
  const data = screenshot()
  for (let i = 0; i < 40; i++) expect((await store.transaction(() => store.submit(turnOf(i, data))))._tag).toBe('Right')
  const rows = (await db.query<{ command: string }>('SELECT command FROM chatfold_log WHERE store = $1 ORDER BY seq', [name])).rows
  const turns = rows.filter((r) => /"message_id":"s\d+"/.test(r.command))
  expect(turns).toHaveLength(40)
  expect(turns.map((r) => copiesIn(r.command, data))).toEqual(Array.from({ length: 40 }, (_, i) => (i === 0 ? 1 : 0)))
  // each later row names the screenshot by its digest: a few hundred bytes (and the long text every eighth turn)
  for (const [i, r] of turns.entries()) {
    if (i === 0) continue
    expect(r.command).toContain('"chatfold:blob"')
    expect(r.command.length).toBeLessThan(i % 8 === 0 ? 151_000 : 1_000)
  }
  // a snapshot written from this store's state: one row, the screenshot in it once
  const again = await openPostgresStore(pool)({ store: name, snapshotEvery: 1 })
  opened.push(again)
  expect((await again.transaction(() => again.submit({ ...turnOf(40, 'no screenshot'), content: 'one more' })))._tag).toBe('Right')
  const snapshots = (await db.query<{ simulator: string }>('SELECT simulator FROM chatfold_snapshot WHERE store = $1', [name])).rows
  expect(snapshots).toHaveLength(1)
  expect(copiesIn(snapshots[0]?.simulator ?? '', data)).toBe(1)
  // the snapshot folds the rows before it in: the log no longer holds the screenshot
  const left = (await db.query<{ command: string }>('SELECT command FROM chatfold_log WHERE store = $1', [name])).rows
  expect(left.length).toBeLessThan(rows.length)
  expect(left.every((r) => copiesIn(r.command, data) === 0)).toBe(true)
}, 240_000)
