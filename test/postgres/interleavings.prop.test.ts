/**
 * Random interleavings of appends, forks, compactions, session clears and kills on the PostgreSQL
 * store (PGlite), two processes on one database and a third opened at the end: nothing
 * acknowledged lost or repeated, nothing cleared resurrected, no overlay read on the wrong
 * branch (test/support/interleavings.ts). A commit dies by the connection under it: before
 * PostgreSQL runs it, or once it ran, its answer lost. The same runs on a real server in
 * test/deploy/postgres-clients.test.ts.
 */
import { PGlite } from '@electric-sql/pglite'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { type PglitePool, pglitePool } from '../support/pglite-pool.ts'
import { EVERY_CASE, EVERY_CASE_INTERLEAVING, interleavingArb, type InterleavingStats, postgresBackend, runInterleaving } from '../support/interleavings.ts'

let db: PGlite
beforeAll(async () => {
  db = await PGlite.create()
}, 180_000)

describe('the PostgreSQL store (PGlite) under random interleavings', () => {
  it('loses nothing acknowledged, resurrects nothing cleared, and reads each overlay on its own branch', async () => {
    // one PGlite connection: every process of a run shares its pool, which runs one transaction at a time
    let pool: PglitePool | undefined
    let runs = 0
    const backend = postgresBackend(() => pool as PglitePool, () => `run-${++runs}`)
    const stats: InterleavingStats = {}
    await fc.assert(
      fc.asyncProperty(interleavingArb(20), async (ops) => {
        pool = await pglitePool(db)
        await runInterleaving(backend, ops, stats)
      }),
      { numRuns: 30, examples: [[EVERY_CASE_INTERLEAVING]] },
    )
    // the runs reached every case: each kind of fault and each way a compaction ends
    expect(Object.keys(stats).sort()).toEqual(EVERY_CASE)
  })
})
