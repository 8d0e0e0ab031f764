import { describe, expect, it } from 'vitest'
import * as T from '../../src/store/_tree.ts'

const cmp = (a: number, b: number) => a - b

describe('tree', () => {
  it('stays logarithmic in height for 100,000 in-order inserts', () => {
    let t: T.Tree<number, number> = undefined
    for (let i = 0; i < 100_000; i++) t = T.insert(cmp, i, i, t)
    const height = (x: T.Tree<number, number>): number => (x === undefined ? 0 : 1 + Math.max(height(x.l), height(x.r)))
    expect(T.size(t)).toBe(100_000)
    // a weight-balanced tree with delta 3 is at most about 2.7 log2(n) high
    expect(height(t)).toBeLessThanOrEqual(Math.ceil(2.8 * Math.log2(100_000)))
    expect(T.isValidTree(cmp, t)).toBe(true)
  })

  it('returns the very same tree when removing an absent key', () => {
    const t = T.insert(cmp, 2, 'b', T.insert(cmp, 1, 'a', undefined))
    expect(T.remove(cmp, 3, t)).toBe(t)
  })

  it('shares structure: an insert leaves the old version unchanged', () => {
    const a = T.insert(cmp, 1, 'a', undefined)
    const b = T.insert(cmp, 2, 'b', a)
    expect(T.values(a)).toEqual(['a'])
    expect(T.values(b)).toEqual(['a', 'b'])
    expect(T.get(cmp, 1, T.insert(cmp, 1, 'z', b))).toBe('z')
    expect(T.get(cmp, 1, b)).toBe('a')
  })
})
