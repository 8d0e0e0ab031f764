import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as views from '../../src/history/views.ts'
import { validateToolPairs } from '../../src/history/pairs.ts'
import { conversationArb, messagesArb } from '../support/arbitraries.ts'
import type { Messages } from '../../src/message/message.ts'

const all: ReadonlyArray<readonly [string, (ms: Messages) => Messages]> = [
  ['forLLM', views.forLLM],
  ['forDisplay', views.forDisplay],
  ['forExport', views.forExport],
  ['forExportStructured', views.forExportStructured],
  ['forSave', views.forSave],
  ['forPreservation', views.forPreservation],
  ['forCompaction(50)', views.forCompaction(50)],
  ['withoutInternal', views.withoutInternal],
  ['withoutSynthetic', views.withoutSynthetic],
  ['withoutThinking', views.withoutThinking],
  ['lastTurns(2)', views.lastTurns(2)],
]

const historyArb = fc.oneof(messagesArb, conversationArb)
const idsOf = (ms: Messages) => ms.map((m) => m.id)
const isSubsequence = (small: ReadonlyArray<string>, big: ReadonlyArray<string>) => {
  let j = 0
  for (const x of small) {
    while (j < big.length && big[j] !== x) j++
    if (j++ >= big.length) return false
  }
  return true
}

describe('view laws', () => {
  it.each(all)('%s never adds a message and is idempotent', (_, view) => {
    fc.assert(
      fc.property(historyArb, (h) => {
        const once = view(h)
        expect(isSubsequence(idsOf(once), idsOf(h))).toBe(true)
        expect(view(once)).toEqual(once)
      }),
      { numRuns: 100 },
    )
  })

  it.each(all)('%s keeps a valid history valid', (_, view) => {
    fc.assert(
      fc.property(conversationArb, (h) => {
        if (view !== views.forDisplay) expect(validateToolPairs(view(h)).issues).toEqual([])
      }),
      { numRuns: 100 },
    )
  })

  it('views nest: forPreservation ⊆ forLLM ⊆ withoutInternal; forExport ⊆ forExportStructured ⊆ forSave', () => {
    fc.assert(
      fc.property(historyArb, (h) => {
        const sub = (a: Messages, b: Messages) => expect(isSubsequence(idsOf(a), idsOf(b))).toBe(true)
        sub(views.forPreservation(h), views.forLLM(h))
        sub(views.forLLM(h), views.withoutInternal(h))
        sub(views.forExport(h), views.forExportStructured(h))
        sub(views.forExportStructured(h), views.forSave(h))
        sub(views.forPreservation(h), views.forExport(h))
        sub(views.forCompaction(10)(h), views.forPreservation(h))
        sub(views.forDisplay(h), h)
      }),
      { numRuns: 150 },
    )
  })

  it('forCompaction cuts every tool result to the limit', () => {
    fc.assert(
      fc.property(historyArb, fc.nat({ max: 60 }), (h, n) => {
        for (const m of views.forCompaction(n)(h)) for (const p of m.parts) if (p.type === 'tool_result') expect(p.content.length).toBeLessThanOrEqual(n)
      }),
      { numRuns: 150 },
    )
  })

  it('lastTurns(n) is a suffix that starts a turn and holds the last n turn starts (all when fewer)', () => {
    fc.assert(
      fc.property(historyArb, fc.nat({ max: 6 }), (h, n) => {
        const kept = views.lastTurns(n)(h)
        expect(h.slice(h.length - kept.length)).toEqual(kept)
        const starts = (ms: Messages) => ms.filter((m) => views.lastTurns(1)([m]).length === 1).length
        expect(starts(kept)).toBe(Math.min(n, starts(h)))
        if (kept.length > 0) expect(views.lastTurns(1)([kept[0] as Messages[number]])).toHaveLength(1)
      }),
      { numRuns: 150 },
    )
  })
})
