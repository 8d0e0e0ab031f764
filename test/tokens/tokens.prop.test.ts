import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants'
import { countMessage, countMessages, withTokens } from '../../src/tokens/count.ts'
import { guardEstimator } from '../../src/tokens/guard.ts'
import { heuristic, smartHeuristic } from '../../src/tokens/heuristic.ts'
import { MESSAGE_OVERHEAD } from '../../src/tokens/message-tokens.ts'
import { backfillToolTokens } from '../../src/tokens/usage.ts'
import type { Message } from '../../src/message/message.ts'
import { conversationArb, messageArb, messagesArb } from '../support/arbitraries.ts'

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
  /** Text made of runs of one character (an astral symbol too, two code units), of any length up to 700, at any offset. */
  const runsArb = fc
    .array(fc.tuple(fc.constantFrom('a', 'Z', ' ', '\n', '=', '7', '会', 'é', '😀', "'", '\t'), fc.integer({ min: 0, max: 700 })), {
      minLength: 1,
      maxLength: 8,
    })
    .map((runs) => runs.map(([c, n]) => c.repeat(n)).join(''))
  /** The longest pre-token of `s` under either encoding's own split pattern: what a merge loop's cost grows with. */
  const longestPretoken = (s: string): number => {
    let best = 0
    for (const re of [O200K_TOKEN_SPLIT_REGEX, CL100K_TOKEN_SPLIT_REGEX]) {
      for (const m of s.matchAll(new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`))) best = Math.max(best, m[0].length)
    }
    return best
  }
  /**
   * A run the guard leaves whole (256 characters at most) can still take, in the tokenizer's
   * pre-token, one character before it (`=` or a space before letters) and a contraction after it
   * (`'ll`): 260 at most. A whitespace run counted as such can be longer than its line breaks
   * alone, when those went to the symbols before them (`=\n\n` then spaces): two pre-tokens.
   */
  const MAX_PRETOKEN = 256 + 4
  it('never hands the counter a pre-token much longer than 256 characters, and counts every character', () => {
    fc.assert(
      fc.property(runsArb, (s) => {
        const pieces: string[] = []
        const n = guardEstimator((t) => (pieces.push(t), t.length))(s)
        for (const p of pieces) expect(longestPretoken(p)).toBeLessThanOrEqual(MAX_PRETOKEN)
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
