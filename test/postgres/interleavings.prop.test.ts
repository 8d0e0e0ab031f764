/**
 * Random interleavings of appends, forks, compactions, session clears and kills on the PostgreSQL
 * store (PGlite), two processes on one database and a third opened at the end: nothing
 * acknowledged lost or repeated, nothing cleared resurrected, no overlay read on the wrong
 * branch (test/support/interleavings.ts). A commit dies by the connection under it: before
 * PostgreSQL runs it, or once it ran, its answer lost.
 */
import { PGlite } from '@electric-sql/pglite'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { PgPoolLike } from '../../src/postgres/client.ts'
import { openPostgresStore } from '../../src/postgres/store.ts'
import { pglitePool } from '../support/pglite-pool.ts'
import { EVERY_CASE_INTERLEAVING, interleavingArb, type InterleavingBackend, type InterleavingStats, runInterleaving } from '../support/interleavings.ts'

let db: PGlite
beforeAll(async () => {
  db = await PGlite.create()
}, 180_000)

const EVERY_CASE = [
  'cleared',
  'died after its commit',
  'died before its commit',
  'killed',
  'overlay committed',
  'overlay committed on a fork',
  'overlay refused as stale',
  'session compacted',
  'session compaction raced by a clear',
  'session compaction raced by an add',
]

let stores = 0
const backend: InterleavingBackend = {
  fresh: async () => {
    const pool = await pglitePool(db)
    const name = `run-${++stores}`
    let last: { dies: { readonly after: boolean } | undefined } = { dies: undefined }
    return {
      open: async () => {
        const me: { dies: { readonly after: boolean } | undefined } = { dies: undefined }
        last = me
        // this process's connections: a commit it was told to die at fails, before or after it ran
        const mine: PgPoolLike = {
          connect: async () => {
            const c = await pool.connect()
            return {
              release: (e) => c.release(e),
              query: async (text, values) => {
                const dies = me.dies
                if (dies === undefined || !text.startsWith('COMMIT')) return c.query(text, values)
                me.dies = undefined
                if (dies.after) await c.query(text, values)
                throw new Error('Connection terminated unexpectedly')
              },
            }
          },
        }
        const store = await openPostgresStore(mine)({ store: name, startTime: '2024-03-15T10:00:00Z', snapshotEvery: 5 })
        return { store, commit: (step) => store.transaction(step), refresh: () => store.refresh() }
      },
      dieAtNextCommit: (after) => void (last.dies = { after }),
    }
  },
}

describe('the PostgreSQL store (PGlite) under random interleavings', () => {
  it('loses nothing acknowledged, resurrects nothing cleared, and reads each overlay on its own branch', async () => {
    const stats: InterleavingStats = {}
    await fc.assert(fc.asyncProperty(interleavingArb(20), (ops) => runInterleaving(backend, ops, stats)), {
      numRuns: 30,
      examples: [[EVERY_CASE_INTERLEAVING]],
    })
    // the runs reached every case: each kind of fault and each way a compaction ends
    expect(Object.keys(stats).sort()).toEqual(EVERY_CASE)
  })
})
