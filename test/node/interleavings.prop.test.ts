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
import type { StoreStorage } from '../../src/store/durable.ts'
import { EVERY_CASE, EVERY_CASE_INTERLEAVING, interleavingArb, type InterleavingStats, runInterleaving, singleOwnerBackend } from '../support/interleavings.ts'

let root = ''
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chatfold-interleavings-'))
})
afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

let runs = 0
const backend = singleOwnerBackend(async () => {
  const dir = join(root, `run-${++runs}`)
  let current: StoreStorage | undefined
  return async (fate) => {
    // the process before dies: the system closes its files and its lock is left behind
    await current?.close?.()
    const inner = fileStorage(dir)
    current = inner
    return {
      ...inner,
      append: async (entries) => {
        const dies = fate.dies
        if (dies === undefined) return inner.append(entries)
        fate.dies = undefined
        if (dies.after) await inner.append(entries)
        throw new Error('killed while flushing')
      },
    }
  }
})

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
