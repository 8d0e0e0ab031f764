/**
 * The request's fixed part and the usage anchor in compaction decisions: tool definitions that tip
 * a history over the window make `shouldCompact` say so and `compact` bring the whole request back
 * under it; after a reported usage, the decision estimates only what was added since.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { makeMessage, type Message, type Messages, textMessage } from '../../src/message/message.ts'
import { text, toolCall, toolResult } from '../../src/message/part-make.ts'
import { countModelRequest, DEFAULT_CALIBRATION } from '../../src/counting/count.ts'
import type { ToolDefinition } from '../../src/adapters/request.ts'
import { fromClaudeCode } from '../../src/sessions/claude-code.ts'
import { planCompaction, shouldCompact, SUMMARY_ALLOWANCE } from '../../src/compaction/plan.ts'
import { compact } from '../../src/compaction/compact.ts'
import { extractiveSummarize } from '../../src/compaction/extractive.ts'
import { contextTokens, lastReportedUsage, usageCorrected } from '../../src/tokens/usage.ts'
import { countMessage } from '../../src/tokens/count.ts'
import { smartHeuristic } from '../../src/tokens/heuristic.ts'
import { totalOf } from '../../src/tokens/message-tokens.ts'

const tools: ReadonlyArray<ToolDefinition> = Array.from({ length: 40 }, (_, i) => ({
  type: 'function',
  name: `tool_${i}`,
  description: `Tool number ${i}: reads, searches and edits project files of kind ${i}, with options described below in detail.`,
  inputSchema: {
    type: 'object',
    properties: Object.fromEntries(
      Array.from(
        { length: 8 },
        (
          _,
          k,
        ) => [`option_${k}`, {
          type: 'string',
          description: `The ${k}th option of tool ${i}: a path, a pattern or a flag, as the tool documents it at length.`,
        }],
      ),
    ),
    required: ['option_0'],
  },
}))

const agentHistory = (): Messages => {
  const h: Message[] = [textMessage('system', 'You are a coding agent.', { id: 's' })]
  for (let i = 0; i < 40; i++) {
    h.push(textMessage('user', `Fix bug ${i} in the cart module, please.`, { id: `u${i}` }))
    h.push(
      makeMessage({
        id: `a${i}`,
        role: 'assistant',
        parts: [toolCall({ id: `c${i}`, name: 'tool_1', arguments: '{"option_0":"src/cart.ts"}', status: 'complete' })],
      }),
    )
    h.push(makeMessage({ id: `t${i}`, role: 'tool', parts: [toolResult({ toolCallId: `c${i}`, content: `line ${i} of the cart module\n`.repeat(40) })] }))
    h.push(textMessage('assistant', `Bug ${i} is fixed.`, { id: `b${i}` }))
  }
  return h
}

describe('the request’s fixed part in the budget', () => {
  const history = agentHistory()
  const count = countModelRequest('anthropic')
  const calibration = DEFAULT_CALIBRATION.anthropic
  const withTools = count({ messages: history, tools })
  const alone = count({ messages: history })
  const reserveTokens = 4_000
  // between the history alone and the history with its tools
  const contextWindow = Math.round((withTools.total + alone.total) / 2) + reserveTokens
  const limit = contextWindow - reserveTokens

  it('with 40 tool definitions the request is over the window, without them it is not', () => {
    expect(withTools.tools).toBeGreaterThan(5_000)
    expect(withTools.total).toBeGreaterThan(limit)
    expect(alone.total).toBeLessThanOrEqual(limit)
  })

  it('shouldCompact: true with the tools as fixedTokens, false for the same history without them', () => {
    expect(shouldCompact({ contextWindow, reserveTokens, calibration, fixedTokens: withTools.tools })(history)).toBe(true)
    expect(shouldCompact({ contextWindow, reserveTokens, calibration })(history)).toBe(false)
    // its figure is the provider's count of the request (no report anchors it)
    expect(Math.abs(contextTokens({ calibration, fixedTokens: withTools.tools })(history).total - withTools.total)).toBeLessThanOrEqual(history.length)
  })

  it('compact with the window brings the whole request, tools included, under it; without the window it does not', async () => {
    const window = { contextWindow, reserveTokens, calibration, fixedTokens: withTools.tools }
    const { messages, report } = await compact({ summarize: extractiveSummarize, ...window })(history)
    expect(report.compacted).toBe(true)
    const after = count({ messages, tools })
    expect(after.total).toBeLessThanOrEqual(limit)
    expect(shouldCompact(window)(messages)).toBe(false)
    // the tail's budget alone (the default 20,000) keeps everything: nothing is compacted
    const plain = await compact({ summarize: extractiveSummarize })(history)
    expect(plain.report.compacted).toBe(false)
    expect(count({ messages: plain.messages, tools }).total).toBeGreaterThan(limit)
  })

  it('planCompaction caps the tail at what the window leaves: system, summary allowance, tail and fixed tokens fit', () => {
    for (const fixedTokens of [0, 2_000, withTools.tools]) {
      const plan = planCompaction({ contextWindow, reserveTokens, calibration, fixedTokens })(history)
      const used = Math.ceil(plan.tokens.system * calibration) + SUMMARY_ALLOWANCE + plan.tokens.preserved * calibration + fixedTokens
      expect(used).toBeLessThanOrEqual(limit)
      // a history that does not fit beside the fixed part is cut
      if (shouldCompact({ contextWindow, reserveTokens, calibration, fixedTokens })(history)) expect(plan.head.length).toBeGreaterThan(0)
    }
    // more fixed tokens leave a smaller tail; no window, the budget alone
    const small = planCompaction({ contextWindow, reserveTokens, calibration, fixedTokens: withTools.tools })(history)
    const large = planCompaction({ contextWindow, reserveTokens, calibration })(history)
    expect(small.tokens.preserved).toBeLessThan(large.tokens.preserved)
    expect(planCompaction({ keepRecentTokens: 3_000, reserveTokens, fixedTokens: 1e9 })(history)).toEqual(planCompaction({ keepRecentTokens: 3_000 })(history))
  })

  it('a window too small for even the fixed part keeps the newest unit, its results cut to nothing but their marker', () => {
    const plan = planCompaction({ contextWindow: 1_000, fixedTokens: 5_000 })(history)
    expect(plan.preserved.length).toBeGreaterThan(0)
    expect(plan.head.length).toBeGreaterThan(0)
  })
})

describe('calibration and the anchor in decisions', () => {
  const reply = (id: string, prompt: number, output: number): Message =>
    makeMessage({ id, role: 'assistant', parts: [text('ok')], metadata: { usage: { input: prompt - 100, cacheRead: 100, output } } })
  const count = totalOf(countMessage(smartHeuristic))

  it('applies the calibration to what is estimated: the messages after the report, or all when none anchors', () => {
    const added = textMessage('user', 'word '.repeat(800), { id: 'later' })
    const anchored = [textMessage('user', 'first'), reply('a1', 50_000, 200), added]
    const c = contextTokens({ calibration: 1.3, fixedTokens: 9_999 })(anchored)
    expect(c).toEqual({ total: 50_200 + Math.round(count(added) * 1.3), reported: 50_200, estimated: Math.round(count(added) * 1.3), fixed: 0, anchor: 'a1' })
    expect(c.total - usageCorrected({ usage: { messageId: 'a1', tokens: 50_200 } })(anchored)).toBe(Math.round(count(added) * 1.3) - count(added))
    const loose = [textMessage('user', 'first', { id: 'f' }), added]
    const all = count(loose[0] as Message) + count(added)
    expect(contextTokens({ calibration: 1.3, fixedTokens: 9_999 })(loose)).toEqual({
      total: Math.round(all * 1.3) + 9_999,
      reported: 0,
      estimated: Math.round(all * 1.3),
      fixed: 9_999,
    })
    // the decision follows the calibrated figure
    expect(shouldCompact({ contextWindow: c.total, reserveTokens: 0, calibration: 1.3 })(anchored)).toBe(false)
    expect(shouldCompact({ contextWindow: c.total - 1, reserveTokens: 0, calibration: 1.3 })(anchored)).toBe(true)
    // without a calibration the estimate is as it was (no correction by default)
    expect(shouldCompact({ contextWindow: c.total - 1, reserveTokens: 0 })(anchored)).toBe(false)
  })

  it('anchors on no reply a model does not see again, nor on a report of no prompt', () => {
    const subAgent = makeMessage({
      id: 'sub',
      role: 'assistant',
      kind: 'display',
      parts: [text('sub-agent')],
      metadata: { usage: { input: 3_000, output: 10 } },
    })
    const failed = makeMessage({ id: 'err', role: 'assistant', parts: [text('API Error')], metadata: { usage: { input: 0, output: 0, cacheRead: 0 } } })
    expect(lastReportedUsage([textMessage('user', 'go'), reply('a1', 40_000, 100), subAgent, failed])).toEqual({ messageId: 'a1', tokens: 40_100 })
  })
})

describe('after a reported usage, the decision estimates only what was added (recorded Claude Code sessions)', () => {
  const dir = new URL('../fixtures/claude-code/', import.meta.url)
  const sessions = readdirSync(dir).filter((f) => f.endsWith('.jsonl'))
  const count = totalOf(countMessage(smartHeuristic))
  const reaches = (m: Message): boolean => m.kind !== 'display' && m.kind !== 'bookmark' && m.kind !== 'metadata'
  const promptOf = (m: Message): number => {
    const u = m.metadata?.['usage'] as Record<string, number> | undefined
    return u === undefined ? 0 : (u['input'] ?? 0) + (u['cacheRead'] ?? 0) + (u['cacheWrite'] ?? 0)
  }

  it.each(sessions)('%s', (file) => {
    const session = fromClaudeCode()(readFileSync(new URL(file, dir), 'utf8'))
    if (session._tag === 'Left') throw new Error(JSON.stringify(session.left))
    const ms = session.right.messages
    // each request after the first reported one: the history it was sent with, and the prompt the provider counted
    const replies = ms.map((m, i) => [m, i] as const).filter(([m]) => m.role === 'assistant' && reaches(m) && promptOf(m) > 0)
    let pairs = 0
    for (let r = 1; r < replies.length; r++) {
      const [previous] = replies[r - 1] as readonly [Message, number]
      const [reply, at] = replies[r] as readonly [Message, number]
      const sent = ms.slice(0, at)
      const provider = promptOf(reply)
      const c = contextTokens({ count })(sent)
      const usage = previous.metadata?.['usage'] as Record<string, number>
      const added = sent.slice(sent.indexOf(previous) + 1).filter(reaches)
      const estimateOfAdded = added.reduce((n, m) => n + count(m), 0)
      // the figure is the previous report plus the estimate of the messages added since, nothing else estimated
      expect(c.anchor).toBe(previous.id)
      expect(c.reported).toBe(promptOf(previous) + (usage['output'] ?? 0))
      expect(c.estimated).toBe(estimateOfAdded)
      expect(c.total).toBe(c.reported + estimateOfAdded)
      // so its error is the added messages' alone (their estimate against what the provider counted for them), …
      const error = c.total - provider
      // … where the estimate of the whole history misses the system prompt and tool definitions the provider counted
      const whole = sent.filter(reaches).reduce((n, m) => n + count(m), 0)
      expect(Math.abs(error)).toBeLessThan(Math.abs(whole - provider) / 5)
      pairs++
    }
    expect(pairs).toBe(Math.max(0, replies.length - 1))
  })
})
