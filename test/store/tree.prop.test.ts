import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as T from '../../src/store/_tree.ts'

const cmp = (a: number, b: number) => a - b

type Op = { readonly op: 'insert'; readonly k: number; readonly v: string } | { readonly op: 'remove'; readonly k: number } | { readonly op: 'removeMin' }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('insert' as const), k: fc.integer({ min: -50, max: 50 }), v: fc.string({ maxLength: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('remove' as const), k: fc.integer({ min: -50, max: 50 }) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'removeMin' as const }) },
)

/** Replays operations on the tree and on a Map, keeping every version of the tree. */
const replay = (ops: ReadonlyArray<Op>) => {
  let t: T.Tree<number, string> = undefined
  const model = new Map<number, string>()
  const versions: Array<{ tree: T.Tree<number, string>; entries: Array<[number, string]> }> = []
  const snapshot = () => [...model.entries()].sort((a, b) => a[0] - b[0])
  for (const o of ops) {
    if (o.op === 'insert') {
      t = T.insert(cmp, o.k, o.v, t)
      model.set(o.k, o.v)
    } else if (o.op === 'remove') {
      t = T.remove(cmp, o.k, t)
      model.delete(o.k)
    } else if (t !== undefined) {
      const [m, rest] = T.removeMin(t)
      expect(m.k).toBe(Math.min(...model.keys()))
      model.delete(m.k)
      t = rest
    }
    versions.push({ tree: t, entries: snapshot() })
  }
  return versions
}

describe('persistent weight-balanced tree', () => {
  it('agrees with a Map after any operations, stays balanced, and keeps every old version intact', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 120 }), (ops) => {
        const versions = replay(ops)
        for (const { tree, entries } of versions) {
          expect(T.isValidTree(cmp, tree)).toBe(true)
          expect(T.size(tree)).toBe(entries.length)
          expect(T.values(tree)).toEqual(entries.map((e) => e[1]))
          for (const [k, v] of entries) expect(T.get(cmp, k, tree)).toBe(v)
        }
      }),
      { numRuns: 150 },
    )
  })

  it('walks up from a lower bound and down from an upper bound, stopping on request', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 200 }), { maxLength: 80 }), fc.integer({ min: -5, max: 205 }), fc.nat(10), (keys, bound, stop) => {
        const t = keys.reduce<T.Tree<number, number>>((acc, k) => T.insert(cmp, k, k, acc), undefined)
        const sorted = [...keys].sort(cmp)
        const up: number[] = []
        T.forEachUp(t, (k) => k >= bound, (v) => {
          up.push(v)
          return up.length < stop
        })
        expect(up).toEqual(sorted.filter((k) => k >= bound).slice(0, Math.max(1, stop)))
        const down: number[] = []
        T.forEachDown(t, (k) => k <= bound, (v) => void down.push(v))
        expect(down).toEqual(sorted.filter((k) => k <= bound).reverse())
      }),
      { numRuns: 150 },
    )
  })

  it('builds a valid tree from sorted entries', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer(), { maxLength: 200 }), (keys) => {
        const sorted = [...keys].sort(cmp)
        const t = T.fromSorted(sorted.map((k) => [k, k] as const))
        expect(T.isValidTree(cmp, t)).toBe(true)
        expect(T.values(t)).toEqual(sorted)
        expect(T.min(t)?.k).toBe(sorted[0])
        expect(T.max(t)?.k).toBe(sorted[sorted.length - 1])
      }),
      { numRuns: 100 },
    )
  })
})
