import { describe, expect, it, vi } from 'vitest'
import { pointersOf } from '../../src/history/pointer.ts'
import { readBack } from '../../src/readback/read-back.ts'
import { toPointerRef } from '../../src/readback/pointer-ref.ts'
import { toolResultText } from '../../src/message/tool-result-content.ts'
import * as E from 'fp-ts/Either'
import { compact } from '../../src/compaction/compact.ts'
import { extractiveSummarize, extractiveSummary } from '../../src/compaction/extractive.ts'
import { planCompaction, shouldCompact } from '../../src/compaction/plan.ts'
import { rebuildAfterCompaction } from '../../src/compaction/rebuild.ts'
import { SUMMARY_PROMPT, SUMMARY_SECTIONS, validateSummary } from '../../src/compaction/summary.ts'
import { renderTranscript } from '../../src/compaction/transcript.ts'
import { COMPACTION_KEY, isCompactionSummary } from '../../src/message/compaction-mark.ts'
import { countMessage, countMessages } from '../../src/tokens/count.ts'
import { heuristic } from '../../src/tokens/heuristic.ts'
import { type Estimator, MESSAGE_OVERHEAD } from '../../src/tokens/message-tokens.ts'
import { makeMessage, type Message, type Messages, textMessage } from '../../src/message/message.ts'
import { reasoning, text, toolCall, toolResult } from '../../src/message/part-make.ts'
import { forLLM, forPreservation } from '../../src/history/views.ts'
import { validateToolPairs } from '../../src/history/pairs.ts'
import { deepFreeze } from '../support/arbitraries.ts'

// --- fixtures ---

const sys = textMessage('system', 'You are a careful coding agent.', { id: 'sys' })
const user = (id: string, s: string, fields: Partial<Message> = {}): Message => textMessage('user', s, { id, ...fields })
const say = (id: string, s: string): Message => textMessage('assistant', s, { id })
const calls = (id: string, ...ids: string[]): Message =>
  makeMessage({
    id,
    role: 'assistant',
    parts: [text('Let me look.'), ...ids.map((c) => toolCall({ id: c, name: 'read_file', arguments: `{"path":"src/${c}.ts"}` }))],
  })
const result = (id: string, callId: string, content: string, fields: Partial<Message> = {}): Message =>
  makeMessage({ id, role: 'tool', parts: [toolResult({ toolCallId: callId, name: 'read_file', content })], ...fields })

/** A history of `turns` turns: a request, a call with a result of `size` characters, a conclusion. */
const history = (turns: number, size = 400): Messages => {
  const out: Message[] = [sys]
  for (let t = 0; t < turns; t++)
    out.push(
      user(`u${t}`, `Turn ${t}: fix src/parse.ts, and never touch the tests.`),
      calls(`a${t}`, `c${t}`),
      result(`r${t}`, `c${t}`, 'x '.repeat(size / 2)),
      say(`d${t}`, `Done with turn ${t}: I decided to keep the parser because it is fast.`),
    )
  return deepFreeze(out)
}

const tokensOf = (ms: Messages): number => countMessages(heuristic)(ms)

const SUMMARY = SUMMARY_SECTIONS.map((s) => `## ${s}\n- something about ${s.toLowerCase()}`).join('\n')

// --- shouldCompact ---

describe('shouldCompact', () => {
  const h = history(10) // about 1,500 tokens
  it('is false while the reserve is free, true once it is not', () => {
    const used = tokensOf(h)
    expect(shouldCompact({ contextWindow: used + 1_000, reserveTokens: 1_000, estimate: heuristic })(h)).toBe(false)
    expect(shouldCompact({ contextWindow: used + 999, reserveTokens: 1_000, estimate: heuristic })(h)).toBe(true)
  })
  it('counts with the count given', () => {
    const h = [user('u0', 'x'.repeat(400))]
    expect(shouldCompact({ contextWindow: 200, reserveTokens: 100, estimate: heuristic })(h)).toBe(true)
    expect(shouldCompact({ contextWindow: 200, reserveTokens: 100, estimate: heuristic, count: () => 1 })(h)).toBe(false)
  })
  it('starts from the provider-reported usage when given', () => {
    const usage = { messageId: 'd9', tokens: 150_000 }
    expect(shouldCompact({ contextWindow: 160_000, reserveTokens: 20_000, usage })(h)).toBe(true)
    expect(shouldCompact({ contextWindow: 200_000, reserveTokens: 20_000, usage })(h)).toBe(false)
  })
})

// --- planCompaction ---

describe('planCompaction', () => {
  it('partitions the history: system prompt, head, tail', () => {
    const h = history(10)
    const plan = planCompaction({ keepRecentTokens: 500, estimate: heuristic })(h)
    expect([...plan.system, ...plan.head, ...h.slice(plan.cut)]).toEqual(h)
    expect(plan.system).toEqual([sys])
    expect(plan.head.length).toBeGreaterThan(0)
    expect(plan.tokens.preserved).toBeLessThanOrEqual(500)
    expect(plan.tokens.head + plan.tokens.preserved + plan.tokens.system).toBe(tokensOf(h))
  })
  it('cuts at the start of a turn when whole turns fit', () => {
    const h = history(10)
    const plan = planCompaction({ keepRecentTokens: 500, estimate: heuristic })(h)
    expect(h[plan.cut]?.role).toBe('user')
    expect(plan.splitTurn).toBe(false)
    expect(plan.preserved).toEqual(h.slice(plan.cut))
    expect(plan.preserved[0]).toBe(h[plan.cut]) // kept by identity
  })
  it('cuts inside the last turn, and says so, when not even that turn fits', () => {
    const h = history(3, 2_000) // a turn is about 560 tokens
    const plan = planCompaction({ keepRecentTokens: 100, estimate: heuristic })(h)
    expect(plan.splitTurn).toBe(true)
    expect(plan.preserved.map((m) => m.id)).toEqual(['d2'])
    expect(validateToolPairs(plan.preserved).valid).toBe(true)
  })
  it('may cut at any pair-safe message with boundary: message', () => {
    const h = history(10)
    const turn = planCompaction({ keepRecentTokens: 300, estimate: heuristic })(h)
    const message = planCompaction({ keepRecentTokens: 300, estimate: heuristic, boundary: 'message' })(h)
    expect(message.cut).toBeLessThanOrEqual(turn.cut)
    expect(validateToolPairs(message.preserved).valid).toBe(true)
    expect(h[message.cut]?.role).not.toBe('tool')
  })
  it('never separates a call from its result', () => {
    const h = history(6, 1_000)
    for (let budget = 0; budget < 2_000; budget += 37) {
      const plan = planCompaction({ keepRecentTokens: budget, estimate: heuristic, boundary: 'message' })(h)
      expect(validateToolPairs(plan.preserved).valid).toBe(true)
      expect(validateToolPairs([...plan.system, ...plan.head]).valid).toBe(true)
    }
  })
  it('keeps the newest call and result when they alone are over budget, cutting the result to fit', () => {
    const big = 'y'.repeat(40_000)
    const h = deepFreeze([sys, user('u0', 'read it'), calls('a0', 'c0'), result('r0', 'c0', big)])
    const plan = planCompaction({ keepRecentTokens: 1_000, estimate: heuristic })(h)
    expect(plan.preserved.map((m) => m.id)).toEqual(['a0', 'r0'])
    expect(plan.truncatedResults).toEqual(['c0'])
    expect(plan.tokens.preserved).toBeLessThanOrEqual(1_000 + 30) // the budget, give or take the marker
    const cut = plan.preserved[1]?.parts[0]
    expect(cut?.type === 'tool_result' && toolResultText(cut).includes('cut by compaction')).toBe(true)
    expect((h[3]?.parts[0] as { content: string }).content).toBe(big) // the input keeps the original
    // the marker shows the pointer's reference, and the whole reads back from the history before the compaction
    const [pointer] = pointersOf(plan.preserved[1]!)
    expect(cut?.type === 'tool_result' && toolResultText(cut).endsWith(`cut by compaction, ref ${toPointerRef(pointer!)}]`)).toBe(true)
    expect(readBack(pointer!, { maxBytes: 100_000 })(h)).toMatchObject({ right: { text: big } })
    expect(validateToolPairs(plan.preserved).valid).toBe(true)
  })
  it('keeps the tail with forPreservation semantics', () => {
    const h = deepFreeze([
      sys,
      user('u0', 'old request'),
      say('d0', 'old answer'),
      user('u1', 'new request'),
      user('s1', 'Reminder', { kind: 'synthetic' }),
      textMessage('assistant', 'Saved.', { id: 'n1', kind: 'display' }),
      say('d1', 'new answer'),
    ])
    const plan = planCompaction({ keepRecentTokens: 20, estimate: heuristic })(h)
    expect(plan.preserved.map((m) => m.id)).toEqual(['u1', 'd1'])
    expect(plan.preserved).toEqual(forPreservation(h.slice(plan.cut)))
  })
  it('has nothing to summarise when everything fits, or there is nothing', () => {
    const h = history(2)
    expect(planCompaction({ keepRecentTokens: 1_000_000 })(h).head).toEqual([])
    expect(planCompaction({})([])).toMatchObject({ head: [], preserved: [], system: [], cut: 0 })
    expect(planCompaction({})([sys])).toMatchObject({ head: [], preserved: [], system: [sys] })
  })
  it('counts with a counter you keep, given as count: a turn later only the new messages are estimated', () => {
    let calls = 0
    const estimate: Estimator = (t) => (calls++, heuristic(t))
    const counter = countMessage(estimate)
    const count = (m: Message): number => counter(m).total
    const h = history(20)
    const first = planCompaction({ keepRecentTokens: 500, estimate, count })(h)
    expect(first).toEqual(planCompaction({ keepRecentTokens: 500, estimate: heuristic })(h))
    const before = calls
    const next = [...h, user('u20', 'One more thing.')]
    expect(planCompaction({ keepRecentTokens: 500, estimate, count })(next)).toEqual(planCompaction({ keepRecentTokens: 500, estimate: heuristic })(next))
    expect(calls - before).toBe(1) // the new message's one text part
  })
  it('normalises the budget', () => {
    const h = history(3)
    expect(planCompaction({ keepRecentTokens: Number.NaN, estimate: heuristic })(h).cut).toBe(
      planCompaction({ keepRecentTokens: 0, estimate: heuristic })(h).cut,
    )
    expect(planCompaction({ keepRecentTokens: -5, estimate: heuristic })(h).preserved.length).toBeGreaterThan(0)
  })
})

// --- renderTranscript ---

describe('renderTranscript', () => {
  it('gives labelled lines, results cut, no reasoning, nothing internal', () => {
    const h = deepFreeze([
      sys,
      user('u0', 'Fix the test'),
      makeMessage({
        id: 'a0',
        role: 'assistant',
        parts: [reasoning('secret thoughts'), text('Reading.'), toolCall({ id: 'c0', name: 'read_file', arguments: '{"path":"a.ts"}' })],
      }),
      result('r0', 'c0', 'z'.repeat(5_000)),
      textMessage('assistant', 'Checkpoint saved', { id: 'n0', kind: 'display' }),
    ])
    const t = renderTranscript({ maxResultLen: 100 })(h)
    expect(t).toContain('[User]: Fix the test')
    expect(t).toContain('[Assistant]: Reading.')
    expect(t).toContain('read_file({"path":"a.ts"})')
    expect(t).not.toContain('secret thoughts')
    expect(t).not.toContain('Checkpoint saved')
    expect(t).not.toContain('careful coding agent')
    expect(t).not.toContain('z'.repeat(101))
  })
  it('passes a previous summary first, as such', () => {
    const { messages } = rebuildAfterCompaction(SUMMARY, 50, [])(history(1))
    const t = renderTranscript({})([...messages.slice(1), user('u9', 'Next request')])
    expect(t.startsWith('[Previous summary]:\n## Goal')).toBe(true)
    expect(t).not.toContain('[User]: ## Goal')
    expect(t).toContain('[User]: Next request')
  })
})

// --- summary ---

describe('SUMMARY_PROMPT and validateSummary', () => {
  it('the prompt asks for every section', () => {
    for (const s of SUMMARY_SECTIONS) expect(SUMMARY_PROMPT).toContain(`## ${s}`)
  })
  it('accepts a summary with every section', () => {
    expect(validateSummary(SUMMARY)).toEqual(E.right(SUMMARY))
    const loose = SUMMARY_SECTIONS.map((s) => `### **${s.toUpperCase()}**:\nok`).join('\n\n')
    expect(E.isRight(validateSummary(loose))).toBe(true)
  })
  it('lists missing and empty sections', () => {
    expect(validateSummary('## Goal\nFix it\n## Constraints\n\n## Files\n- a.ts')).toEqual(
      E.left({ missing: ['Progress', 'Decisions', 'Next steps'], empty: ['Constraints'] }),
    )
    expect(validateSummary('')).toEqual(E.left({ missing: [...SUMMARY_SECTIONS], empty: [] }))
  })
})

// --- rebuildAfterCompaction ---

describe('rebuildAfterCompaction', () => {
  const h = history(4)
  const plan = planCompaction({ keepRecentTokens: 300, estimate: heuristic })(h)
  const { messages, archive } = rebuildAfterCompaction(SUMMARY, 77, plan.preserved)(h)
  it('keeps the system prompt first, then the summary, then the preserved tail', () => {
    expect(messages[0]).toBe(sys)
    expect(messages.slice(2)).toEqual(plan.preserved)
    const summary = messages[1] as Message
    expect(summary).toMatchObject({ role: 'user', kind: 'normal', parts: [{ type: 'text', text: SUMMARY }], tokens: { total: 77 } })
    expect(isCompactionSummary(summary)).toBe(true)
    expect(summary.metadata?.[COMPACTION_KEY]).toEqual({ summarised: archive.length, through: plan.head[plan.head.length - 1]?.id })
  })
  it('archives everything else, in order', () => {
    expect(archive).toEqual(plan.head)
  })
  it('makes a summary every model-bound view keeps', () => {
    expect(forLLM(messages)).toEqual(messages)
    expect(forPreservation(messages)).toEqual(messages)
  })
  it('is deterministic', () => {
    expect(rebuildAfterCompaction(SUMMARY, 77, plan.preserved)(h)).toEqual({ messages, archive })
  })
  it('archives the original of a preserved message it changed', () => {
    const big = deepFreeze([sys, user('u0', 'go'), calls('a0', 'c0'), result('r0', 'c0', 'q'.repeat(20_000))])
    const p = planCompaction({ keepRecentTokens: 500, estimate: heuristic })(big)
    const r = rebuildAfterCompaction(SUMMARY, 10, p.preserved)(big)
    expect(r.archive).toContain(big[3])
    expect(r.messages).not.toContain(big[3])
  })
  it('is not fooled by a look-alike: only a compaction record marks a summary', () => {
    expect(isCompactionSummary(user('x', 'hi', { metadata: { compaction: 'no' } }))).toBe(false)
    expect(isCompactionSummary(user('x', 'hi'))).toBe(false)
  })
})

// --- compact ---

describe('compact', () => {
  it('runs the whole pipeline and reports it', async () => {
    const h = history(20)
    const summarize = vi.fn(async (transcript: string, context: { readonly prompt: string }) => {
      expect(context.prompt).toBe(SUMMARY_PROMPT)
      expect(transcript).toContain('[User]: Turn 0')
      return SUMMARY
    })
    const stages: string[] = []
    const { messages, archive, report } = await compact({ summarize, keepRecentTokens: 500, estimate: heuristic, onProgress: (p) => stages.push(p.stage) })(h)
    expect(summarize).toHaveBeenCalledTimes(1)
    expect(stages).toEqual(['plan', 'transcript', 'summarize', 'rebuild'])
    expect(report).toMatchObject({ compacted: true, archived: archive.length, preserved: messages.length - 2, splitTurn: false, missingSections: [] })
    expect(report.tokensBefore).toBe(tokensOf(h))
    expect(report.tokensAfter).toBe(tokensOf(messages))
    expect(report.tokensAfter).toBeLessThan(report.tokensBefore)
    expect(report.summaryTokens).toBe(heuristic(SUMMARY) + MESSAGE_OVERHEAD)
    expect(validateToolPairs(messages).valid).toBe(true)
  })
  it('returns the history itself, without calling the summariser, when there is nothing to summarise', async () => {
    const h = history(2)
    const summarize = vi.fn(async () => SUMMARY)
    const r = await compact({ summarize, keepRecentTokens: 1_000_000 })(h)
    expect(r.messages).toBe(h)
    expect(r.report.compacted).toBe(false)
    expect(summarize).not.toHaveBeenCalled()
  })
  it('plans and reports with the count given, one counter for both', async () => {
    const h = history(20)
    const seen = new Set<Message>()
    let repeats = 0
    const counter = countMessage(heuristic)
    const count = (m: Message): number => {
      if (seen.has(m)) repeats++
      seen.add(m)
      return counter(m).total
    }
    const r = await compact({ summarize: async () => SUMMARY, keepRecentTokens: 500, estimate: heuristic, count })(h)
    expect(r).toEqual(await compact({ summarize: async () => SUMMARY, keepRecentTokens: 500, estimate: heuristic })(h))
    expect(repeats).toBeGreaterThan(0) // plan and report both asked, of the same messages
    const doubled = await compact({ summarize: async () => SUMMARY, keepRecentTokens: 500, estimate: heuristic, count: (m) => 2 * count(m) })(h)
    expect(doubled.report.tokensBefore).toBe(2 * tokensOf(h))
  })
  it('loads an estimator by name', async () => {
    const r = await compact({ summarize: async () => SUMMARY, keepRecentTokens: 300, estimate: 'heuristic' })(history(6))
    expect(r.report.tokensBefore).toBe(tokensOf(history(6)))
  })
  it('reports the sections a summary lacks', async () => {
    const r = await compact({ summarize: async () => '## Goal\nonly this', keepRecentTokens: 300 })(history(6))
    expect(r.report.missingSections).toEqual(['Constraints', 'Progress', 'Decisions', 'Next steps', 'Files'])
  })
  it('rejects when aborted before it starts, or while the summariser works', async () => {
    const before = new AbortController()
    before.abort()
    await expect(compact({ summarize: async () => SUMMARY, signal: before.signal })(history(6))).rejects.toMatchObject({ name: 'AbortError' })
    const during = new AbortController()
    const never = compact({
      summarize: (_t, { signal }) => {
        expect(signal).toBe(during.signal)
        queueMicrotask(() => during.abort())
        return new Promise<string>(() => {})
      },
      keepRecentTokens: 300,
      signal: during.signal,
    })(history(6))
    await expect(never).rejects.toMatchObject({ name: 'AbortError' })
  })
  it('rejects on a blank summary, and passes the summariser error on', async () => {
    await expect(compact({ summarize: async () => '  ', keepRecentTokens: 300 })(history(6))).rejects.toThrow('empty summary')
    await expect(compact({ summarize: () => Promise.reject(new Error('model down')), keepRecentTokens: 300 })(history(6))).rejects.toThrow('model down')
  })
  it('compacts a compacted history again, extending the summary', async () => {
    const first = await compact({ summarize: extractiveSummarize, keepRecentTokens: 300 })(history(8))
    const more = deepFreeze([...first.messages, ...history(12).slice(33)])
    const seen: string[] = []
    const second = await compact({ summarize: async (t) => (seen.push(t), extractiveSummarize(t)), keepRecentTokens: 300 })(more)
    expect(seen[0]?.startsWith('[Previous summary]:')).toBe(true)
    expect(second.archive).toContain(first.messages[1]) // the old summary is archived, not lost
    expect(second.messages.filter(isCompactionSummary)).toHaveLength(1)
  })
})

// --- extractiveSummarize ---

describe('extractiveSummarize', () => {
  const h = history(5)
  it('writes every section, deterministically', async () => {
    const a = await extractiveSummarize(h)
    expect(E.isRight(validateSummary(a))).toBe(true)
    expect(await extractiveSummarize(h)).toBe(a)
    expect(extractiveSummary(renderTranscript({})(h))).toBe(a)
  })
  it('extracts goals, constraints, tools, decisions, the last reply and files', async () => {
    const s = await extractiveSummarize(h)
    expect(s).toContain('First request: Turn 0: fix src/parse.ts')
    expect(s).toContain('Latest request: Turn 4')
    expect(s).toMatch(/### Constraints\n- Turn 0: fix src\/parse\.ts, and never touch the tests\./)
    expect(s).toContain('read_file ×5')
    expect(s).toContain('I decided to keep the parser')
    expect(s).toContain('Continue from the last reply: Done with turn 4')
    expect(s).toMatch(/### Files\n- src\/parse\.ts \(\d+ mentions\)/)
    expect(s).toContain('src/c0.ts')
  })
  it('says what failed and what is pending', async () => {
    const failing = deepFreeze([
      user('u0', 'Run the tests'),
      makeMessage({ id: 'a0', role: 'assistant', parts: [toolCall({ id: 'c0', name: 'bash', arguments: '{"cmd":"npm test"}' })] }),
      makeMessage({ id: 'r0', role: 'tool', parts: [toolResult({ toolCallId: 'c0', name: 'bash', content: 'Error: 3 tests failed\nmore', isError: true })] }),
      user('u1', 'Why did it fail?'),
    ])
    const s = await extractiveSummarize(failing)
    expect(s).toContain('bash failed: Error: 3 tests failed')
    expect(s).toContain('Answer the pending request: Why did it fail?')
  })
  it('stays bounded on hostile input', async () => {
    const s = await extractiveSummarize([user('u0', `${'a'.repeat(200_000)} src/${'b/'.repeat(5_000)}x.ts`)])
    expect(s.length).toBeLessThan(5_000)
    expect(E.isRight(validateSummary(s))).toBe(true)
  })
})
