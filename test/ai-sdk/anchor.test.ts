import { describe, expect, it } from 'vitest'
import { anchored, anchorOf, inputTokensOf, underRatioOf } from '../../src/ai-sdk/_anchor.ts'
import { textMessage } from '../../src/message/message.ts'

describe('the reported usage as an anchor', () => {
  it('reads the input tokens of a language model usage (v3) and of a step usage', () => {
    expect(inputTokensOf({ inputTokens: { total: 1_200, noCache: 200, cacheRead: 1_000, cacheWrite: undefined } })).toBe(1_200)
    expect(inputTokensOf({ inputTokens: { total: undefined, noCache: 200, cacheRead: 1_000, cacheWrite: 30 } })).toBe(1_230)
    expect(inputTokensOf({ inputTokens: 900, outputTokens: 20 })).toBe(900)
    for (const u of [undefined, null, {}, { inputTokens: undefined }, { inputTokens: { total: undefined } }, { inputTokens: Number.NaN }, { inputTokens: -3 }])
      expect(inputTokensOf(u)).toBeUndefined()
  })

  it('reads a prompt at the ratio the provider counted over the estimate, never under the estimate', () => {
    const ms = [textMessage('user', 'a'), textMessage('assistant', 'b')]
    const count = () => 50
    const over = anchorOf({ messages: ms, fixed: 100 }, count, 400) // estimated 200, reported 400
    expect(over.estimated).toBe(200)
    expect(underRatioOf(over)).toBe(2)
    expect(anchored(over, 300)).toBe(600)
    const under = anchorOf({ messages: ms, fixed: 100 }, count, 150)
    expect(anchored(under, 300)).toBe(300)
    expect(anchored(undefined, 300)).toBe(300)
  })
})
