import { describe, expect, it } from 'vitest'
import { shouldCompact } from '../../src/compaction/plan.ts'
import { underReadRatio } from '../../src/tokens/usage-ratio.ts'
import { heuristic } from '../../src/tokens/heuristic.ts'
import { makeMessage, textMessage } from '../../src/message/message.ts'
import { text } from '../../src/message/part-make.ts'

const reply = (input: number) => makeMessage({ role: 'assistant', parts: [text('ok')], metadata: { usage: { input, output: 1 } } })

describe('shouldCompact anchors up, never down', () => {
  it('a report lower than the estimate of the whole history does not keep it from compacting', () => {
    const history = [textMessage('user', 'x'.repeat(40_000)), reply(100), textMessage('user', 'go on')]
    // reported 101 plus the last message's estimate is well within 5,000; the history's estimate is 10,000
    expect(shouldCompact({ contextWindow: 5_000, reserveTokens: 0, estimate: heuristic })(history)).toBe(true)
  })
  it('a report above the estimate still decides', () => {
    const history = [textMessage('user', 'short'), reply(9_000), textMessage('user', 'go on')]
    expect(shouldCompact({ contextWindow: 5_000, reserveTokens: 0, estimate: heuristic })(history)).toBe(true)
    expect(shouldCompact({ contextWindow: 20_000, reserveTokens: 0, estimate: heuristic })(history)).toBe(false)
  })
})

describe('underReadRatio', () => {
  const count = (m: Parameters<ReturnType<typeof underReadRatio>>[0][number]) => heuristic(m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')) + 4
  it('is the median ratio of reported growth to estimated growth between reports, at least 1', () => {
    const step = textMessage('user', 'y'.repeat(1_000)) // 250 + 4 estimated
    const history = [textMessage('system', 'sys'), reply(1_000), step, reply(1_000 + 3 * 255), step, reply(1_000 + 6 * 255)]
    expect(underReadRatio(count)(history)).toBeCloseTo(3, 1)
    const over = [textMessage('system', 'sys'), reply(1_000), step, reply(1_100)]
    expect(underReadRatio(count)(over)).toBe(1)
    expect(underReadRatio(count)([step])).toBe(1)
  })
})
