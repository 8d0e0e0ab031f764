/**
 * Random interleavings of appends, forks, compactions, session clears and kills on the Deno KV
 * store (`kvStorage` over a real `Deno.openKv`), run by `deno test` (test/support/interleavings.ts):
 * nothing acknowledged lost or repeated, nothing cleared resurrected, no overlay read on the wrong
 * branch. One process owns a store (its lease), so the two writers of the runs are that process; a
 * kill drops it as a dead process is dropped: its KV handle answers nothing more, its lease is left
 * behind and renewed by no one, and the next process waits it out. An append dies at its atomic
 * commit: before Deno KV runs it, or once it ran, its answer lost.
 *
 * The processes share one in-memory database (`Deno.openKv(':memory:')`): KV handles on one file
 * see the same atomic commits, and an in-memory one needs no write permission. `Deno.openKv` needs
 * `--unstable-kv` (deno.json's `unstable`); without it the test is reported as ignored.
 */
import fc from 'fast-check'
import { expect } from 'vitest'
import { type KvAtomicLike, type KvLike, kvStorage } from '../../../src/deno/kv-storage.ts'
import {
  EVERY_CASE,
  EVERY_CASE_INTERLEAVING,
  type Fate,
  interleavingArb,
  type InterleavingStats,
  runInterleaving,
  singleOwnerBackend,
} from '../../support/interleavings.ts'

declare const Deno: {
  test(def: { name: string; ignore?: boolean; sanitizeOps?: boolean; sanitizeResources?: boolean; fn: () => Promise<void> }): void
  openKv?: (path?: string) => Promise<KvLike & { close(): void }>
}

/** A process's handle on the database: dead once killed (every call refused, as by a process that is gone). */
const handleOn = (kv: KvLike, me: Fate): KvLike => {
  const gone = () => Promise.reject(new Error('the process is gone'))
  const refuse: KvAtomicLike = { check: () => refuse, set: () => refuse, delete: () => refuse, commit: gone }
  const wrap = (a: KvAtomicLike, heads: boolean): KvAtomicLike => ({
    check: (...c) => wrap(a.check(...c), heads),
    set: (k, v) => wrap(a.set(k, v), heads || k.at(-1) === 'head'),
    delete: (k) => wrap(a.delete(k), heads),
    commit: async () => {
      if (me.dead) return gone()
      const dies = me.dies
      // the commit of an append (it moves the head) dies with its process
      if (dies === undefined || !heads) return a.commit()
      me.dies = undefined
      me.dead = true
      if (dies.after) await a.commit()
      throw new Error('killed while committing')
    },
  })
  return {
    get: (k) => (me.dead ? gone() : kv.get(k)),
    list: (s) => kv.list(s),
    atomic: () => (me.dead ? refuse : wrap(kv.atomic(), false)),
  }
}

const available = typeof Deno.openKv === 'function'

Deno.test({
  name: `the Deno KV store under random interleavings${available ? '' : ' (ignored: run deno test with --unstable-kv)'}`,
  ignore: !available,
  // a killed process's lease timer is cleared by no one: it fails on its dead handle, and ends with the test
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const kv = await (Deno.openKv as (path: string) => Promise<KvLike & { close(): void }>)(':memory:')
    let runs = 0
    // the process before dies: its handle answers nothing more, its lease is left behind; the
    // shortest lease, so that a process taking over waits a killed one's out quickly
    const backend = singleOwnerBackend(async () => {
      const id = `run-${++runs}`
      return (fate) => kvStorage(handleOn(kv, fate), id, { leaseMs: 300 })
    })
    try {
      const stats: InterleavingStats = {}
      await fc.assert(fc.asyncProperty(interleavingArb(20), (ops) => runInterleaving(backend, ops, stats)), {
        numRuns: 25,
        examples: [[EVERY_CASE_INTERLEAVING]],
      })
      // the runs reached every case: each kind of fault and each way a compaction ends
      expect(Object.keys(stats).sort()).toEqual(EVERY_CASE)
    } finally {
      kv.close()
    }
  },
})
