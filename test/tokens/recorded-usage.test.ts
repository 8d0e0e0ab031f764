import { describe, expect, it } from 'vitest'
import { forLLM } from '../../src/history/views.ts'
import { type Message, textMessage } from '../../src/message/message.ts'
import { countMessage } from '../../src/tokens/count.ts'
import { heuristic } from '../../src/tokens/heuristic.ts'
import { recordedUsage } from '../../src/tokens/recorded-usage.ts'
import { recordedHistory } from '../support/recorded-history.ts'

const count = (m: Message): number => countMessage(heuristic)(m).total
const u = recordedUsage({ estimate: heuristic })

describe('recordedUsage', () => {
  const h = recordedHistory()
  const r = u(h)

  it('sums the reported figures per model, sub-conversations included, in order of first use', () => {
    expect(r.byModel.map((x) => [x.model, x.provider, x.replies, x.input, x.output, x.cacheRead, x.cacheWrite])).toEqual([
      ['claude-sonnet-4-5', 'anthropic', 5, 4 + 3 + 5 + 12 + 6, 96 + 141 + 88 + 60 + 52, 5_210 + 5_630 + 1_300, 5_210 + 420 + 310 + 1_300 + 200],
      ['claude-haiku-4-5', 'anthropic', 2, 2_010 + 2_150, 75, 0, 0],
    ])
    expect(r.total).toMatchObject({ replies: 7, output: 96 + 141 + 88 + 60 + 52 + 75 })
    const sonnet = h.filter((m) => m.model === 'claude-sonnet-4-5')
    expect(r.byModel[0]?.estimatedOutput).toBe(sonnet.reduce((s, m) => s + count(m), 0))
    expect(r.total.estimatedOutput).toBe((r.byModel[0]?.estimatedOutput ?? 0) + (r.byModel[1]?.estimatedOutput ?? 0))
  })

  it("sets each model's reported prompts next to the estimate of what the history holds of them", () => {
    const before = (id: string, from = 0, keep: (m: Message) => boolean = (m) => m.metadata?.['subagent'] === undefined) => {
      const at = h.findIndex((m) => m.id === id)
      return forLLM(h.slice(from, at).filter(keep)).reduce((s, m) => s + count(m), 0)
    }
    const sum = h.findIndex((m) => m.id === 'sum')
    const sonnet = before('a1') + before('a2') + before('a3') + before('a4', sum) + before('a5', sum)
    // a sub-conversation's messages are display messages of the main one: all of each is its prompt
    const sub = (id: string) =>
      h.slice(0, h.findIndex((m) => m.id === id)).filter((m) => m.metadata?.['subagent'] !== undefined).reduce((s, m) => s + count(m), 0)
    const haiku = sub('s2') + sub('s4')
    expect(haiku).toBeGreaterThan(0)
    expect(r.byModel.map((x) => [x.model, x.reportedPrompt, x.estimatedPrompt])).toEqual([
      ['claude-sonnet-4-5', 30 + 12_140 + 7_440, sonnet],
      ['claude-haiku-4-5', 4_160, haiku],
    ])
    expect(r.total.estimatedPrompt).toBe(sonnet + haiku)
  })

  it('spans the earliest to the latest createdAt', () => {
    expect(r.span).toEqual({ first: '2026-03-02T10:00:00.000Z', last: '2026-03-02T10:07:02.000Z', ms: 422_000 })
  })

  it('compares the last main reply with the estimate of what was sent for it, from the last compaction on', () => {
    const at = h.findIndex((m) => m.id === 'a5')
    const from = h.findIndex((m) => m.id === 'sum')
    const sent = forLLM(h.slice(from, at)).reduce((s, m) => s + count(m), 0)
    expect(r.last).toEqual({
      messageId: 'a5',
      model: 'claude-sonnet-4-5',
      createdAt: '2026-03-02T10:07:02.000Z',
      reported: { input: 6, output: 52, cacheRead: 1_300, cacheWrite: 200, reasoning: 0 },
      reportedContext: 1_506,
      estimatedContext: sent,
      ratio: sent / 1_506,
    })
  })

  it('leaves sub-conversation replies out of the last request, and their messages out of its prompt', () => {
    const upToTask = h.slice(0, h.findIndex((m) => m.id === 'a3'))
    const last = u(upToTask).last
    expect(last?.messageId).toBe('a2')
    const sent = forLLM(upToTask.slice(0, upToTask.findIndex((m) => m.id === 'a2'))).reduce((s, m) => s + count(m), 0)
    expect(last?.estimatedContext).toBe(sent)
  })

  it('names replies whose usage is not in the expected shape, and counts replies without one', () => {
    const bad = textMessage('assistant', 'x', { id: 'bad', metadata: { usage: { input: '12', output: 3 } } })
    const none = textMessage('assistant', 'y', { id: 'none' })
    const r2 = u([...h, bad, none])
    expect(r2.malformed).toEqual(['bad'])
    expect(r2.unreported).toBe(2)
    expect(r2.total).toEqual(r.total)
    expect(r2.last?.messageId).toBe('a5')
  })

  it('has no span, last request nor models for a history without them', () => {
    expect(u([textMessage('user', 'hi')])).toEqual({
      byModel: [],
      total: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, replies: 0, reportedPrompt: 0, estimatedPrompt: 0, estimatedOutput: 0 },
      unreported: 0,
      malformed: [],
    })
  })
})
