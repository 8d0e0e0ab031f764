import { describe, expect, it } from 'vitest'
import { makeMessage, textMessage } from '../../src/message.ts'
import { providerPart } from '../../src/part.ts'
import { planCompaction } from '../../src/compaction/plan.ts'
import { buildTranscript } from '../../src/compaction/transcript.ts'
import { rebuildAfterCompaction } from '../../src/compaction/rebuild.ts'

const count = (): number => 10
const system = textMessage('system', 'Be brief.', { id: 's' })
const replaced = [textMessage('user', 'old request', { id: 'u0' }), textMessage('assistant', 'old answer', { id: 'a0' })]
const boundary = makeMessage({
  id: 'b',
  role: 'assistant',
  parts: [providerPart('anthropic', 'compaction', { type: 'compaction', content: 'Goal: a CSV parser. Done: the reader.' })],
})
const after = [textMessage('user', 'now the writer', { id: 'u1' }), textMessage('assistant', 'written', { id: 'a1' }), textMessage('user', 'tests?', { id: 'u2' })]
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
    const transcript = buildTranscript({})([boundary, ...after])
    expect(transcript.startsWith('[Previous summary]')).toBe(true)
    expect(transcript).toContain('Goal: a CSV parser. Done: the reader.')
    expect(transcript).toContain('now the writer')
  })

  it('says so when the boundary is opaque', () => {
    const opaque = makeMessage({ role: 'assistant', parts: [providerPart('openai', 'compaction', { type: 'compaction', encrypted_content: 'gAAAA' })] })
    expect(buildTranscript({})([opaque])).toContain('compacted by openai')
  })
})
