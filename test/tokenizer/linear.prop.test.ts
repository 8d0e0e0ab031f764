import { beforeAll, describe, expect, it } from 'vitest'
import { toolResultText } from '../../src/message/tool-result-content.ts'
import fc from 'fast-check'
import * as o200k from 'gpt-tokenizer/encoding/o200k_base'
import * as cl100k from 'gpt-tokenizer/encoding/cl100k_base'
import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base'
import cl100kRanks from 'gpt-tokenizer/bpeRanks/cl100k_base'
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants'
import { loadEstimator } from '../../src/tokenizer/load.ts'
import { type Estimator } from '../../src/tokens/message-tokens.ts'
import { exactCounter } from '../../src/tokenizer/_bpe.ts'
import { sampleSession } from '../../sample/session.ts'

const PLAIN = { disallowedSpecial: new Set<string>() }

/** The character classes of CLI output, tables, prose and code, each a list of characters. */
const CLASSES = {
  letters: [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéßжλǅ', 'e\u0301'],
  cjk: [...'会话历史需要压缩話한국어'],
  digits: [...'0123456789٣'],
  punctuation: [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'],
  symbols: [...'§©®°±¶·×÷–—•…€™←→'],
  box: [...'─│┌┐└┘├┤┬┴┼═║╔╗'],
  emoji: ['😀', '👍🏽', '🚀', '❤️', '🇫🇷'],
  whitespace: [' ', ' ', '\t', '\n', '\r\n', '\u00a0', '\ufeff', '\u3000'],
} as const
type ClassName = keyof typeof CLASSES
const NAMES = Object.keys(CLASSES) as ClassName[]

/**
 * Text as a list of segments, each drawn from a mix of one to three classes: a mix of
 * punctuation, symbols, emoji and box drawing is one pre-token however long, as is a mix of
 * letters and CJK, or of whitespace and U+FEFF. `scale` stretches the segments so that strings
 * reach `maxLength` characters.
 */
const textArb = (maxLength: number): fc.Arbitrary<string> =>
  fc
    .array(
      fc.record({
        classes: fc.subarray(NAMES, { minLength: 1, maxLength: 3 }),
        length: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: maxLength })),
        seed: fc.integer(),
      }),
      { minLength: 1, maxLength: 6 },
    )
    .map((segments) => {
      let out = ''
      for (const { classes, length, seed } of segments) {
        const alphabet = classes.flatMap((c) => CLASSES[c])
        let x = seed | 0
        const parts: string[] = []
        let n = out.length
        for (let i = 0; i < length && n < maxLength; i++) {
          x = (Math.imul(x, 1103515245) + 12345) | 0
          const c = alphabet[(x >>> 8) % alphabet.length] as string
          parts.push(c)
          n += c.length
        }
        out += parts.join('')
        if (out.length >= maxLength) break
      }
      return out
    })

const raw = { o200k_base: (s: string) => o200k.countTokens(s, PLAIN), cl100k_base: (s: string) => cl100k.countTokens(s, PLAIN) }
const estimators: Partial<Record<keyof typeof raw, Estimator>> = {}

beforeAll(async () => {
  estimators.o200k_base = await loadEstimator('o200k_base')
  estimators.cl100k_base = await loadEstimator('cl100k_base')
})

describe.each(['o200k_base', 'cl100k_base'] as const)('%s on any text', (name) => {
  it("gives the tokenizer's own count on text the tokenizer finishes", () => {
    const estimate = estimators[name] as Estimator
    fc.assert(
      fc.property(textArb(3_000), (s) => {
        expect(estimate(s)).toBe(raw[name](s))
      }),
      { numRuns: 120 },
    )
  }, 120_000)

  it('counts within a per-character time budget, up to 1 MB', () => {
    const estimate = estimators[name] as Estimator
    // About 1 µs a character is usual here; the tokenizer alone takes 200 µs a character on
    // 80,000 characters of "|─" and is quadratic. The budget is linear: 20 µs a character.
    const budget = (chars: number): number => 250 + chars * 0.02
    fc.assert(
      fc.property(textArb(1_000_000), (s) => {
        const t0 = performance.now()
        const n = estimate(s)
        const took = performance.now() - t0
        expect(Number.isInteger(n) && n >= 0).toBe(true)
        expect({ chars: s.length, withinBudget: took <= budget(s.length) }).toEqual({ chars: s.length, withinBudget: true })
      }),
      { numRuns: 8 },
    )
    for (const unit of ['|─', '!§', '-😀', '.©', ' \ufeff', 'a', ' ']) {
      const s = unit.repeat(Math.floor(1_000_000 / unit.length))
      const t0 = performance.now()
      estimate(s)
      expect({ unit, withinBudget: performance.now() - t0 <= budget(s.length) }).toEqual({ unit, withinBudget: true })
    }
  }, 300_000)
})

describe('the exact byte-pair count', () => {
  const exact = { o200k_base: exactCounter(o200kRanks, O200K_TOKEN_SPLIT_REGEX), cl100k_base: exactCounter(cl100kRanks, CL100K_TOKEN_SPLIT_REGEX) }
  it("equals the tokenizer's count on every text, short pre-tokens as well as long", () => {
    fc.assert(
      fc.property(fc.oneof(textArb(2_000), fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 300 })), (s) => {
        expect([exact.o200k_base(s), exact.cl100k_base(s)]).toEqual([raw.o200k_base(s), raw.cl100k_base(s)])
      }),
      { numRuns: 300 },
    )
  }, 120_000)
  it("equals the tokenizer's count on each text of a coding-agent session (code, JSON, logs, prose, CJK), its short pieces remembered across texts", () => {
    const texts = sampleSession({ messages: 1_500, seed: 3 }).flatMap((m) =>
      m.parts.flatMap((
        p,
      ) => (p.type === 'text' || p.type === 'reasoning'
        ? [p.text]
        : p.type === 'tool_call'
        ? [p.arguments]
        : p.type === 'tool_result'
        ? [toolResultText(p)]
        : [])
      )
    )
    expect(texts.length).toBeGreaterThan(2_000)
    const differ = texts.filter((s) => exact.o200k_base(s) !== raw.o200k_base(s) || exact.cl100k_base(s) !== raw.cl100k_base(s))
    expect(differ).toEqual([])
  }, 60_000)
  it('merges a leading byte-order mark as gpt-tokenizer does (its text decoder drops it)', () => {
    for (const s of [' \ufeff'.repeat(500), '\ufeff'.repeat(300), '\ufeffa\ufeff b', 'x\ufeff\ufeff\ufeff']) {
      expect([exact.o200k_base(s), exact.cl100k_base(s)]).toEqual([raw.o200k_base(s), raw.cl100k_base(s)])
    }
  })
})
