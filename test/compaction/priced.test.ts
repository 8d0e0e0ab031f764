/**
 * `pricedSummarizer`: each model call a summariser tells is priced in the order made, the
 * caller's own `onAnswer` is still told, an unknown model is named and never priced as zero, and a
 * summariser that calls no model leaves `calls` empty.
 */
import { describe, expect, it } from 'vitest'
import { compact, extractiveSummarize, pricedSummarizer, type Summarizer } from '../../src/compaction/mod.ts'
import { textMessage } from '../../src/message/message.ts'
import type { CallAnswer } from '../../src/cost/call-cost.ts'

const history = Array.from({ length: 12 }, (_, i) => textMessage(i % 2 === 0 ? 'user' : 'assistant', `turn ${i} `.repeat(200)))

const answer = (modelId: string, inputTokens: number): CallAnswer => ({ response: { modelId }, usage: { inputTokens, outputTokens: 100 } })

describe('pricedSummarizer', () => {
  it('prices each call the summariser tells, in order, and still tells the caller', async () => {
    const told: CallAnswer[] = []
    const twoCalls: Summarizer = (_transcript, context) => {
      context.onAnswer?.(answer('gpt-5.4', 1_000_000))
      context.onAnswer?.(answer('no-such-model', 10))
      return Promise.resolve('## Goal\nsummary')
    }
    const { summarize, calls } = pricedSummarizer(twoCalls)
    await summarize('transcript', { prompt: 'p', onAnswer: (a) => told.push(a) })
    expect(told.map((a) => a.response?.modelId)).toEqual(['gpt-5.4', 'no-such-model'])
    expect(calls).toHaveLength(2)
    expect(calls[0]).toMatchObject({ model: 'gpt-5.4' })
    expect(calls[0]?.usd).toBeCloseTo(2.5 + 100 * 15 / 1e6, 6)
    expect(calls[1]).toMatchObject({ model: 'no-such-model', usd: null })
  })

  it('leaves calls empty for a summariser that calls no model', async () => {
    const { summarize, calls } = pricedSummarizer(extractiveSummarize)
    const { report } = await compact({ summarize, contextWindow: 2_000, keepRecentTokens: 500 })(history)
    expect(report.compacted).toBe(true)
    expect(calls).toEqual([])
  })
})
