import { describe, expect, it } from 'vitest'
import { makeMessage, type Message, textMessage } from '../../src/message/message.ts'
import { providerPart } from '../../src/message/part-make.ts'
import { planCompaction } from '../../src/compaction/plan.ts'
import { renderTranscript } from '../../src/compaction/transcript.ts'
import { isProviderSummary, rebuildAfterCompaction } from '../../src/compaction/rebuild.ts'
import { compact } from '../../src/compaction/compact.ts'
import { isCompactionSummary } from '../../src/message/compaction-mark.ts'

const count = (): number => 10
const system = textMessage('system', 'Be brief.', { id: 's' })
const replaced = [textMessage('user', 'old request', { id: 'u0' }), textMessage('assistant', 'old answer', { id: 'a0' })]
const boundary = makeMessage({
  id: 'b',
  role: 'assistant',
  parts: [providerPart('anthropic', 'compaction', { type: 'compaction', content: 'Goal: a CSV parser. Done: the reader.' })],
})
const after = [
  textMessage('user', 'now the writer', { id: 'u1' }),
  textMessage('assistant', 'written', { id: 'a1' }),
  textMessage('user', 'tests?', { id: 'u2' }),
]
const history = [system, ...replaced, boundary, ...after]

describe('a provider compaction boundary in compaction planning', () => {
  it('starts the head at the boundary, so what it replaced is neither summarised nor kept', () => {
    const plan = planCompaction({ keepRecentTokens: 10, count })(history)
    expect(plan.system.map((m) => m.id)).toEqual(['s'])
    expect(plan.head.map((m) => m.id)).toEqual(['b', 'u1', 'a1'])
    expect(plan.preserved.map((m) => m.id)).toEqual(['u2'])
  })

  it('archives what the boundary replaced when the history is rebuilt', () => {
    const plan = planCompaction({ keepRecentTokens: 10, count })(history)
    const { messages, archive } = rebuildAfterCompaction('## Goal\nA CSV parser', 5, plan.preserved)(history)
    expect(archive.map((m) => m.id)).toEqual(expect.arrayContaining(['u0', 'a0', 'b']))
    expect(messages.map((m) => m.id)).not.toContain('u0')
  })

  it('passes the boundary’s summary to the summariser as the previous summary', () => {
    const transcript = renderTranscript({})([boundary, ...after])
    expect(transcript.startsWith('[Previous summary]')).toBe(true)
    expect(transcript).toContain('Goal: a CSV parser. Done: the reader.')
    expect(transcript).toContain('now the writer')
  })

  it('says so when the boundary is opaque', () => {
    const opaque = makeMessage({ role: 'assistant', parts: [providerPart('openai', 'compaction', { type: 'compaction', encrypted_content: 'gAAAA' })] })
    expect(renderTranscript({})([opaque])).toContain('compacted by openai')
  })
})

describe('a provider compaction boundary in pruning', () => {
  it('prunes only the boundary and what follows it; what precedes it is never sent', async () => {
    const { pruneToolResultsWithReport } = await import('../../src/history/prune.ts')
    const { toolCall, toolResult } = await import('../../src/message/part-make.ts')
    const use = (n: number) => [
      makeMessage({ id: `c${n}`, role: 'assistant', parts: [toolCall({ id: `k${n}`, name: 'read', arguments: '{}', status: 'complete' })] }),
      makeMessage({ id: `r${n}`, role: 'tool', parts: [toolResult({ toolCallId: `k${n}`, content: 'line\n'.repeat(2_000) })] }),
    ]
    const before = [1, 2, 3].flatMap(use)
    const after = [4, 5, 6, 7].flatMap(use)
    const history = [system, ...before, boundary, textMessage('user', 'go on', { id: 'g' }), ...after, textMessage('user', 'last', { id: 'l' })]
    const opts = { protectTokens: 2_000, minimumSavings: 0, estimate: (s: string) => Math.ceil(s.length / 4) }
    const r = pruneToolResultsWithReport(opts)(history)
    // the results before the boundary are as they were, the same objects
    for (const m of before) expect(r.messages.find((x) => x.id === m.id)).toBe(m)
    // and the report counts what is sent: the same as pruning the boundary and what follows alone
    const sent = history.slice(history.indexOf(boundary))
    expect(r.report).toEqual(pruneToolResultsWithReport(opts)(sent).report)
    expect(r.report.prunedResults).toBeGreaterThan(0)
    // nothing to prune after the boundary: the input comes back itself
    const quiet = [system, ...before, boundary, textMessage('user', 'short')]
    expect(pruneToolResultsWithReport(opts)(quiet).messages).toBe(quiet)
  })
})

describe('a provider summary as the compaction boundary', () => {
  const openai = providerPart('openai', 'compaction', { id: 'cmp_1', type: 'compaction', encrypted_content: 'gAAAA+/==' })

  it('rebuilds with the boundary alone in an assistant message, marked as the compaction summary', () => {
    const plan = planCompaction({ keepRecentTokens: 10, count })(history)
    const { messages, archive } = rebuildAfterCompaction({ boundary: openai }, 7, plan.preserved)(history)
    expect(messages.map((m) => m.id)).toEqual(['s', 'compaction-a1', 'u2'])
    expect(messages[1]).toMatchObject({ role: 'assistant', kind: 'normal', provider: 'openai', parts: [openai], tokens: { total: 7 } })
    expect(isCompactionSummary(messages[1] as Message)).toBe(true)
    expect(archive.map((m) => m.id)).toEqual(['u0', 'a0', 'b', 'u1', 'a1'])
    expect(rebuildAfterCompaction({ boundary: openai }, 7, plan.preserved)(history)).toEqual({ messages, archive })
  })

  it('tells a provider summary from text and from a part that is no boundary', () => {
    expect(isProviderSummary({ boundary: openai })).toBe(true)
    expect(isProviderSummary('## Goal')).toBe(false)
    expect(isProviderSummary({ boundary: providerPart('openai', 'web_search_call', { type: 'web_search_call' }) })).toBe(false)
  })

  it('compact rejects an answer that is neither text nor a boundary, and keeps a boundary it is given', async () => {
    // what a summariser beyond the types may answer: read from JSON, as one across a boundary would be
    const junk = (): Promise<string> => Promise.resolve(JSON.parse('{"boundary":{"type":"text","text":"x"}}'))
    await expect(compact({ summarize: junk, count, keepRecentTokens: 10 })(history)).rejects.toThrow(/empty summary/)
    const r = await compact({ summarize: () => Promise.resolve({ boundary: openai }), count, keepRecentTokens: 10 })(history)
    expect(r.messages[1]?.parts).toEqual([openai])
    expect(r.report).toMatchObject({ compacted: true, summaryTokens: 10, missingSections: [] })
  })
})
