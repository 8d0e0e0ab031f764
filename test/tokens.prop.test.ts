import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { backfillToolTokens, countMessage, countMessages, guardEstimator, heuristic, MESSAGE_OVERHEAD, smartHeuristic, withTokens } from '../src/tokens.ts'
import type { Message } from '../src/message.ts'
import { conversationArb, messageArb, messagesArb } from './arbitraries.ts'

/** Strings with long runs, lone surrogates, special-token look-alikes and CJK. */
const hostileArb = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 600 }),
  fc.tuple(fc.constantFrom('a', ' ', '=', '会', '😀', '\n'), fc.integer({ min: 0, max: 3_000 })).map(([c, n]) => c.repeat(n)),
  fc.array(fc.constantFrom('<|endoftext|>', '<|im_start|>', 'word ', '12345', '\t', 'x'.repeat(300)), { maxLength: 30 }).map((xs) => xs.join('')),
)

describe('estimator laws', () => {
  it('every estimator gives a non-negative integer on any text, and 0 on the empty one', () => {
    const guarded = guardEstimator(smartHeuristic)
    fc.assert(
      fc.property(hostileArb, (s) => {
        for (const e of [heuristic, smartHeuristic, guarded]) {
          const n = e(s)
          expect(Number.isInteger(n) && n >= 0).toBe(true)
        }
      }),
      { numRuns: 150 },
    )
    for (const e of [heuristic, smartHeuristic, guarded]) expect(e('')).toBe(0)
  })
  it('the guard changes nothing on text without long runs', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2_000 }), (s) => {
        const calls: string[] = []
        const n = guardEstimator((t) => (calls.push(t), smartHeuristic(t)))(s)
        if (!/(.)\1{256}/su.test(s)) expect(calls.length <= 1 && n === smartHeuristic(s)).toBe(true)
      }),
      { numRuns: 150 },
    )
  })
})

describe('the run guard', () => {
  /** Text made of runs of one character, of any length up to 700, at any offset. */
  const runsArb = fc
    .array(fc.tuple(fc.constantFrom('a', 'Z', ' ', '\n', '=', '7', '会', 'é'), fc.integer({ min: 0, max: 700 })), { minLength: 1, maxLength: 8 })
    .map((runs) => runs.map(([c, n]) => c.repeat(n)).join(''))
  const longestRun = (s: string): number => {
    let best = 0
    for (const m of s.matchAll(/[\p{L}\p{M}]+|[^\s\p{L}\p{M}\p{N}]+|\s+/gu)) best = Math.max(best, m[0].length)
    return best
  }
  it('never hands the counter a run of one class longer than 256 characters, and counts every character', () => {
    fc.assert(
      fc.property(runsArb, (s) => {
        const pieces: string[] = []
        const n = guardEstimator((t) => (pieces.push(t), t.length))(s)
        for (const p of pieces) expect(longestRun(p)).toBeLessThanOrEqual(256)
        if (pieces.join('') === s) expect(n).toBe(s.length) // not sampled: every character counted once
        else expect(Math.abs(n - s.length)).toBeLessThanOrEqual(1) // sampled runs scale back to their length
      }),
      { numRuns: 200 },
    )
  })
})

describe('counting laws', () => {
  it('total = content + thinking + tools + overhead, and the cache agrees with a fresh count', () => {
    fc.assert(
      fc.property(messageArb, (m) => {
        const b = countMessage(heuristic)(m)
        expect(b.total).toBe(b.content + b.thinking + b.tools + MESSAGE_OVERHEAD)
        expect(countMessage(heuristic)({ ...m })).toEqual(b)
      }),
      { numRuns: 150 },
    )
  })
  it('countMessages is additive over concatenation', () => {
    fc.assert(
      fc.property(messagesArb, messagesArb, (a, b) => {
        expect(countMessages(heuristic)([...a, ...b])).toBe(countMessages(heuristic)(a) + countMessages(heuristic)(b))
      }),
      { numRuns: 100 },
    )
  })
  it('withTokens is idempotent and only fills what is missing', () => {
    fc.assert(
      fc.property(messagesArb, (ms) => {
        const once = withTokens(heuristic)(ms)
        expect(withTokens(heuristic)(once)).toBe(once)
        once.forEach((m, i) => {
          const before = ms[i] as Message
          if (before.tokens !== undefined) expect(m).toBe(before)
          else expect(m).toEqual({ ...before, tokens: countMessage(heuristic)(before) })
        })
      }),
      { numRuns: 150 },
    )
  })
})

describe('backfillToolTokens laws', () => {
  it('shares the whole delta among the tool messages after the last assistant message, and touches nothing else', () => {
    fc.assert(
      fc.property(fc.oneof(conversationArb, messagesArb), fc.integer({ min: 1, max: 1_000_000 }), (ms, delta) => {
        const out = backfillToolTokens(delta)(ms)
        let lastAssistant = -1
        ms.forEach((m, i) => {
          if (m.role === 'assistant') lastAssistant = i
        })
        const targets = ms.map((m, i) => i > lastAssistant && m.role === 'tool')
        if (!targets.includes(true)) {
          expect(out).toBe(ms)
          return
        }
        let sum = 0
        out.forEach((m, i) => {
          if (targets[i]) sum += m.tokens?.total ?? 0
          else expect(m).toBe(ms[i])
        })
        expect(sum).toBe(delta)
      }),
      { numRuns: 150 },
    )
  })
})
