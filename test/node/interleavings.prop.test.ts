/**
 * Random interleavings of appends, forks, compactions, session clears and kills on the file store
 * (test/support/interleavings.ts): one process owns a store, so the two writers of the runs are
 * that process, and a kill drops it (its log and lock closed as the system closes a dead
 * process's files, nothing flushed) before the next one opens the directory. An append dies at
 * its flush: before it reaches the log, or once it did, its answer lost. Nothing acknowledged
 * lost or repeated, nothing cleared resurrected, no overlay read on the wrong branch.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fileStorage } from '../../src/node/file-storage.ts'
import { openDurableStore, type StoreStorage } from '../../src/store/durable.ts'
import {
  EVERY_CASE,
  EVERY_CASE_INTERLEAVING,
  interleavingArb,
  type InterleavingBackend,
  type InterleavingStats,
  runInterleaving,
} from '../support/interleavings.ts'

let root = ''
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chatfold-interleavings-'))
})
afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

let runs = 0
const backend: InterleavingBackend = {
  owners: 'one',
  fresh: async () => {
    const dir = join(root, `run-${++runs}`)
    let current: { readonly storage: StoreStorage; dies: { readonly after: boolean } | undefined } | undefined
    return {
      open: async () => {
        // the process before dies: the system closes its files and its lock is left behind
        await current?.storage.close?.()
        const inner = fileStorage(dir)
        const me: { readonly storage: StoreStorage; dies: { readonly after: boolean } | undefined } = { storage: inner, dies: undefined }
        current = me
        const storage: StoreStorage = {
          ...inner,
          append: async (entries) => {
            const dies = me.dies
            if (dies === undefined) return inner.append(entries)
            me.dies = undefined
            if (dies.after) await inner.append(entries)
            throw new Error('killed while flushing')
          },
        }
        const store = await openDurableStore(storage)({ startTime: '2024-03-15T10:00:00Z', snapshotEvery: 5 })
        return {
          store,
          commit: async (step) => {
            const a = step()
            await store.flush()
            return a
          },
          refresh: async () => undefined,
        }
      },
      dieAtNextCommit: (after) => {
        if (current !== undefined) current.dies = { after }
      },
    }
  },
}

describe('the file store under random interleavings', () => {
  it('loses nothing acknowledged, resurrects nothing cleared, and reads each overlay on its own branch', async () => {
    const stats: InterleavingStats = {}
    await fc.assert(fc.asyncProperty(interleavingArb(20), (ops) => runInterleaving(backend, ops, stats)), {
      numRuns: 30,
      examples: [[EVERY_CASE_INTERLEAVING]],
    })
    expect(Object.keys(stats).sort()).toEqual(EVERY_CASE)
  })
})
