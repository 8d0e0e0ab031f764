/**
 * The engine's operations on plain data: history diffs and their application, the cached
 * counter, and a pruner that remembers what it pruned.
 */
import { describe, expect, it } from 'vitest'
import { counter, prune, pruneChanges, prunerKey } from '../../src/history/prune-changes.ts'
import { diffHistories } from '../support/engine-diff.ts'
import { applyChanges } from '../../src/engine/types.ts'
import { textMessage } from '../../src/message/message.ts'
import { heuristic } from '../../src/tokens/heuristic.ts'
import { sampleSession } from '../../sample/session.ts'
import { deepFreeze } from '../support/arbitraries.ts'

const a = textMessage('user', 'one')
const b = textMessage('assistant', 'two two')
const c = textMessage('user', 'three three three')

describe('diffHistories and applyChanges', () => {
  const count = counter(heuristic)

  it('reports replaced messages by position, with the token delta, and applies back', () => {
    const before = deepFreeze([a, b])
    const after = [a, c]
    const d = diffHistories(before, after, count)
    expect(d.changes).toEqual([{ index: 1, message: c }])
    expect(d.length).toBe(2)
    expect(d.delta).toBe(count(c) - count(b))
    expect(applyChanges(d)(before)).toEqual(after)
  })

  it('reports a history of another length whole', () => {
    const d = diffHistories([a, b, c], [c], count)
    expect(d.changes).toEqual([{ index: 0, message: c }])
    expect(d.delta).toBe(-count(a) - count(b))
    expect(applyChanges(d)([a, b, c])).toEqual([c])
  })

  it('changes nothing, and gives the input itself, when nothing changed', () => {
    const ms = [a, b]
    expect(diffHistories(ms, [a, b], count)).toEqual({ changes: [], length: 2, delta: 0 })
    expect(applyChanges({ changes: [], length: 2 })(ms)).toBe(ms)
  })
})

describe('prune', () => {
  it('keeps identities across calls with the same pruner, so a turn rewrites only new messages', () => {
    const ms = deepFreeze(sampleSession({ messages: 200, seed: 8, maxResult: 3_000 }))
    const p = prune({ protectTokens: 2_000, minimumSavings: 100 }, heuristic)
    const first = p(ms).messages
    const second = p(ms).messages
    expect(first).not.toBe(ms)
    expect(second.every((m, i) => m === first[i])).toBe(true)
  })
})

describe('pruneChanges', () => {
  const options = { protectTokens: 2_000, minimumSavings: 100 }
  const ms = deepFreeze(sampleSession({ messages: 200, seed: 8, maxResult: 3_000 }))
  const count = counter(heuristic)

  it('answers the pruned history, the replaced messages by position and the token delta, against the resident history', () => {
    const got = pruneChanges(prune(options, heuristic), count)({ appended: ms, pruned: [] })
    expect(got.changes.length).toBeGreaterThan(0)
    expect(got.length).toBe(ms.length)
    expect(applyChanges(got)(ms)).toEqual(got.messages)
    expect(got.delta).toBe(got.messages.reduce((n, m) => n + count(m), 0) - ms.reduce((n, m) => n + count(m), 0))
    expect(got.delta).toBeLessThan(0)
  })

  it('answers no changes when the resident history is already that prune', () => {
    const pruner = prune(options, heuristic)
    const first = pruneChanges(pruner, count)({ appended: ms, pruned: [] })
    const again = pruneChanges(pruner, count)({ appended: ms, pruned: first.pruned }) // the resident history is the first prune's
    expect(again.changes).toEqual([])
    expect(again.delta).toBe(0)
  })
})

describe('prunerKey', () => {
  it('is the same whatever order the options came in, and differs when they differ', () => {
    expect(prunerKey({ protectTokens: 1, minimumSavings: 2 })).toBe(prunerKey({ minimumSavings: 2, protectTokens: 1 }))
    expect(prunerKey({ protectTokens: 1 })).not.toBe(prunerKey({ protectTokens: 2 }))
  })
})
