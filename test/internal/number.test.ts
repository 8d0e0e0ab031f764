/**
 * Normalising numeric options: counts the fp-ts way (`nonNegativeInt`), and options with a default
 * (`wholeOption`), with the options that use them, NaN among the inputs.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { grouped, nonNegativeInt, wholeOption } from '../../src/internal/number.ts'
import { createChatStore } from '../../src/store/store.ts'
import { recentEvents } from '../../src/store/simulator.ts'
import { memoryStorage, openDurableStore } from '../../src/store/durable.ts'
import { modelSummarizer } from '../../src/summarize/check.ts'
import { SUMMARY_PROMPT } from '../../src/compaction/summary.ts'

describe('nonNegativeInt', () => {
  it('is the fallback when absent, 0 for NaN and below, the integer part otherwise, capped at MAX_SAFE_INTEGER', () => {
    expect(nonNegativeInt(undefined, 7)).toBe(7)
    expect([Number.NaN, -1, -Infinity, 0, 0.5, 2.9].map((n) => nonNegativeInt(n, 7))).toEqual([0, 0, 0, 0, 0, 2])
    expect(nonNegativeInt(Infinity)).toBe(Number.MAX_SAFE_INTEGER)
  })
})

describe('wholeOption', () => {
  it('is the fallback when absent or NaN, the integer part otherwise, at least min; Infinity stays', () => {
    expect(wholeOption(undefined, { fallback: 10 })).toBe(10)
    expect(wholeOption(Number.NaN, { fallback: 10 })).toBe(10)
    expect([-5, -Infinity, 0, 2.9, Infinity].map((n) => wholeOption(n, { fallback: 10 }))).toEqual([0, 0, 0, 2, Infinity])
    expect([-5, 0, 0.5, 3.5].map((n) => wholeOption(n, { fallback: 10, min: 1 }))).toEqual([1, 1, 1, 3])
    expect(wholeOption(Number.NaN, { fallback: undefined, min: 1 })).toBeUndefined()
  })
})

describe('options normalised with them', () => {
  it('recentEvents with a NaN limit reads no event, as getRecentMessages does', () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    for (let i = 0; i < 3; i++) store.submit({ role: 'user', content: `m${i}` })
    expect(recentEvents({ limit: Number.NaN })(store.simulator())).toEqual([])
    expect(recentEvents({ limit: Infinity })(store.simulator())).toHaveLength(3)
  })

  // 10,000 submits through a durable store (the default snapshot interval): about 2 s on an idle
  // machine, several times that beside other work, so a budget of its own rather than vitest's 5 s
  it('a durable store with snapshotEvery NaN snapshots at the default 10,000 records, not never', async () => {
    const storage = memoryStorage()
    const store = await openDurableStore(storage)({ startTime: '2024-03-15T10:00:00Z', snapshotEvery: Number.NaN })
    for (let i = 0; i < 10_000; i++) store.submit({ role: 'user', content: `m${i}` })
    await store.flush()
    expect(storage.snapshot()).toBeDefined()
    expect(storage.records()).toEqual([])
  }, 60_000)

  it('a model summariser with NaN attempts and output tokens uses the defaults (2 attempts, 4,096 tokens)', async () => {
    const asked: number[] = []
    const summarize = modelSummarizer(
      async ({ maxOutputTokens }) => {
        asked.push(maxOutputTokens)
        return '## Goal\n- incomplete'
      },
      { attempts: Number.NaN, maxOutputTokens: Number.NaN },
    )
    await expect(summarize('[User]: hi', { prompt: SUMMARY_PROMPT })).rejects.toThrow('after 2 attempts')
    expect(asked).toEqual([4_096, 4_096])
  })
})

describe('grouped', () => {
  it("writes a whole number as toLocaleString('en') does", () => {
    expect([0, 999, 1_000, -1_234, 12_140, 1_234_567].map(grouped)).toEqual(['0', '999', '1,000', '-1,234', '12,140', '1,234,567'])
    const numbers = fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.double().filter((n) => !Number.isInteger(n)))
    fc.assert(
      fc.property(numbers, (n) => {
        expect(grouped(n)).toBe(n.toLocaleString('en'))
      }),
    )
  })
})
