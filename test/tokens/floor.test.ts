import { describe, expect, it } from 'vitest'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { smartHeuristic } from '../../src/tokens/heuristic.ts'
import { countModelRequest, DEFAULT_CALIBRATION } from '../../src/counting/count.ts'
import { textMessage } from '../../src/message/message.ts'
import { CONTENT_CLASSES, contentSample } from '../../sample/content-classes.ts'

const PLAIN = { disallowedSpecial: new Set<string>() }
const o200k = (s: string): number => countTokens(s, PLAIN)

/** Seeded samples of each class, of 2,000 and 20,000 characters: the estimate is of a total. */
const samples = (cls: (typeof CONTENT_CLASSES)[number]): ReadonlyArray<string> =>
  [2_000, 20_000].flatMap((size) => Array.from({ length: 6 }, (_, seed) => contentSample(cls, 1_000 * seed + size, size)))

describe('the default estimate never reads under the tokenizer', () => {
  for (const cls of CONTENT_CLASSES)
    it(`smartHeuristic reads at least 0.97 of o200k_base on ${cls}`, () => {
      const ratios = samples(cls).map((s) => smartHeuristic(s) / o200k(s))
      expect(Math.min(...ratios)).toBeGreaterThanOrEqual(0.97)
    })

  it('a whole request of each provider reads at least 0.97 of o200k_base times its calibration', () => {
    for (const cls of ['emoji', 'cjk-rare', 'base64', 'json', 'code'] as const)
      for (const provider of ['openai', 'anthropic', 'google'] as const) {
        const text = contentSample(cls, 7, 20_000)
        const counted = countModelRequest(provider)({ messages: [textMessage('user', text)] }).total
        expect({ cls, provider, floor: counted >= 0.97 * o200k(text) * DEFAULT_CALIBRATION[provider] }).toEqual({ cls, provider, floor: true })
      }
  })

  it('counts a character outside the BMP by what the tokenizer falls back to', () => {
    // an ideograph of CJK Extension B is four byte tokens; a recent emoji three
    for (const s of ['\u{20000}'.repeat(100), '\u{20001}\u{2A6D0}'.repeat(50), '\u{3400}\u{4DB0}'.repeat(50)])
      expect(smartHeuristic(s)).toBeGreaterThanOrEqual(0.97 * o200k(s))
    expect(smartHeuristic('🫠🪿🫎🪼')).toBeGreaterThanOrEqual(o200k('🫠🪿🫎🪼'))
    expect(smartHeuristic('👨🏽‍💻 👩‍🔬 🇫🇷')).toBeGreaterThanOrEqual(o200k('👨🏽‍💻 👩‍🔬 🇫🇷'))
  })
})
