import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { costLedger } from '../../src/cost/mod.ts'
import type { Message } from '../../src/message/message.ts'
import { deepFreeze, messagesArb } from '../support/arbitraries.ts'

const MODELS = ['claude-opus-4-6', 'claude-sonnet-4-5', 'gpt-5', 'gemini-2.5-pro', 'in-house-7b', undefined] as const
const figure = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 400_000 }))
const usageArb = fc.record({ input: figure, output: figure, cacheRead: figure, cacheWrite: figure })

/** Histories whose assistant replies carry a usage report and a model (known, unknown or none), some replies repeated. */
const reportedArb: fc.Arbitrary<ReadonlyArray<Message>> = fc
  .tuple(messagesArb, fc.array(fc.tuple(fc.constantFrom(...MODELS), usageArb), { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 3 }))
  .map(([ms, reports, repeats]) => {
    const out = ms.map((m, i) => {
      const r = reports[i]
      if (m.role !== 'assistant' || r === undefined) return m
      const [model, usage] = r
      const { model: _drop, ...rest } = m
      return { ...rest, ...(model === undefined ? {} : { model }), metadata: { ...m.metadata, usage } }
    })
    return deepFreeze([...out, ...repeats.flatMap((k) => (out.length === 0 ? [] : [out[k % out.length] as Message]))])
  })

describe('cost ledger laws', () => {
  it('adds up: lines, models, days and turns each sum to the total, and nothing is priced below zero', () => {
    fc.assert(
      fc.property(reportedArb, (ms) => {
        const l = costLedger({})(ms)
        const sum = (xs: ReadonlyArray<{ readonly cost?: number }>) => xs.reduce((a, x) => a + (x.cost ?? 0), 0)
        const near = (a: number) => Math.abs(a - l.total) <= 1e-9 * Math.max(1, l.total)
        expect(near(l.lines.reduce((a, x) => a + x.charge.total, 0))).toBe(true)
        for (const by of [l.byModel, l.byDay, l.byTurn]) expect(near(sum(by))).toBe(true)
        for (const x of l.lines) expect(x.charge.total).toBeGreaterThanOrEqual(0)
      }),
    )
  })

  it('counts each reply once: a priced line or a failure per distinct reply with a report, repeats named apart', () => {
    fc.assert(
      fc.property(reportedArb, (ms) => {
        const l = costLedger({})(ms)
        const reported = ms.filter((m) => m.role === 'assistant' && m.kind !== 'metadata' && m.kind !== 'bookmark' && m.metadata?.['usage'] !== undefined)
        const distinct = new Set(reported.map((m) => m.id))
        expect(l.lines.length + l.failures.length).toBe(distinct.size)
        expect(l.duplicates.length).toBe(reported.length - distinct.size)
        expect(new Set(l.lines.map((x) => x.messageId)).size).toBe(l.lines.length)
      }),
    )
  })

  it('never prices a model the table lacks: its replies are failures, not zeros', () => {
    fc.assert(
      fc.property(reportedArb, (ms) => {
        const l = costLedger({})(ms)
        expect(
          l.lines.filter((x) =>
            x.model === 'in-house-7b' && x.charge.total === 0 && x.usage.input + x.usage.output + x.usage.cacheRead + x.usage.cacheWrite > 0
          ),
        ).toEqual([])
        for (const f of l.failures) if (f.kind === 'unpriced') expect(f.model).toBe('in-house-7b')
      }),
    )
  })
})
