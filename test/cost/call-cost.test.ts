import * as E from 'fp-ts/Either'
import { generateText } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { callCostOf } from '../../src/cost/call-cost.ts'
import { PRICES, withPrices } from '../../src/cost/mod.ts'

describe('callCostOf', () => {
  it('prices a generateText answer from the usage the provider reported, cache reads and writes apart', async () => {
    const model = new MockLanguageModelV3({
      modelId: 'claude-haiku-4-5',
      doGenerate: {
        content: [{ type: 'text', text: 'Done.' }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: {
          inputTokens: { total: 1_300_000, noCache: 100_000, cacheRead: 1_000_000, cacheWrite: 200_000 },
          outputTokens: { total: 100_000, text: 100_000, reasoning: undefined },
        },
        warnings: [],
      },
    })
    const answer = await generateText({ model, prompt: 'Hi' })
    // Haiku 4.5: $1 input, $0.10 cache read, $1.25 cache write (5 minutes), $5 output, per million
    expect(callCostOf({})(answer)).toEqual(
      E.right({ input: 0.1, cacheRead: 0.1, cacheWrite: 0.25, output: 0.5, total: 0.1 + 0.1 + 0.25 + 0.5, longContext: false }),
    )
  })

  it('says why when a call cannot be priced, and prices it once the row is given', () => {
    const answer = { response: { modelId: 'in-house-7b' }, usage: { inputTokens: 2_000_000, outputTokens: 0 } }
    expect(callCostOf({})(answer)).toEqual(E.left({ kind: 'unpriced', model: 'in-house-7b' }))
    expect(callCostOf({ prices: withPrices([{ model: 'in-house-7b', input: 0.5, output: 1 }])(PRICES) })(answer)).toMatchObject(E.right({ total: 1 }))
    expect(callCostOf({})({ response: { modelId: 'gpt-5' } })).toEqual(E.left({ kind: 'no-usage' }))
    expect(callCostOf({})({ usage: { inputTokens: 1, outputTokens: 1 } })).toEqual(E.left({ kind: 'no-model' }))
  })
})
