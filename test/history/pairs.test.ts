import { describe, expect, it } from 'vitest'
import { repairToolPairs, validateToolPairs } from '../../src/history/pairs.ts'
import { call, everyKind, ids, msg, result, think, txt } from './fixtures.ts'

describe('validateToolPairs', () => {
  it('accepts a well-paired history', () => {
    expect(validateToolPairs(everyKind)).toEqual({ valid: true, issues: [] })
    expect(validateToolPairs([])).toEqual({ valid: true, issues: [] })
  })

  it('reports a call without a result, with its name', () => {
    const h = [msg('u', 'user', [txt('go')]), msg('a', 'assistant', [call('c1', 'grep')]), msg('u2', 'user', [txt('next')])]
    expect(validateToolPairs(h).issues).toEqual([{ kind: 'missing_result', index: 1, messageId: 'a', toolCallId: 'c1', name: 'grep' }])
  })

  it('a result after the next user message does not answer the call', () => {
    const h = [msg('a', 'assistant', [call('c1')]), msg('u', 'user', [txt('wait')]), msg('t', 'tool', [result('c1')])]
    expect(validateToolPairs(h).issues.map((i) => i.kind)).toEqual(['missing_result', 'orphan_result'])
  })

  it('a system message does not end the turn', () => {
    const h = [msg('a', 'assistant', [call('c1')]), msg('s', 'system', [txt('note')]), msg('t', 'tool', [result('c1')])]
    expect(validateToolPairs(h).valid).toBe(true)
  })

  it('reports a result without a call, and a result outside a tool message', () => {
    const h = [msg('t', 'tool', [result('x')]), msg('a', 'assistant', [txt('hi'), result('y')])]
    expect(validateToolPairs(h).issues).toEqual([
      { kind: 'orphan_result', index: 0, messageId: 't', toolCallId: 'x' },
      { kind: 'orphan_result', index: 1, messageId: 'a', toolCallId: 'y' },
    ])
  })

  it('reports a call id used twice and a second result for one call', () => {
    const h = [
      msg('a1', 'assistant', [call('c1')]),
      msg('t1', 'tool', [result('c1')]),
      msg('t2', 'tool', [result('c1')]),
      msg('a2', 'assistant', [call('c1')]),
      msg('t3', 'tool', [result('c1')]),
    ]
    expect(validateToolPairs(h).issues).toEqual([
      { kind: 'duplicate_id', index: 2, messageId: 't2', toolCallId: 'c1' },
      { kind: 'duplicate_id', index: 3, messageId: 'a2', toolCallId: 'c1' },
    ])
  })

  it('matches results to calls in any order, also in a turn with many calls', () => {
    const ids = Array.from({ length: 40 }, (_, i) => `k${i}`)
    const h = [msg('a', 'assistant', ids.map((id) => call(id))), ...[...ids].reverse().map((id) => msg(`t${id}`, 'tool', [result(id)]))]
    expect(validateToolPairs(h).valid).toBe(true)
    const extra = [...h, msg('tx', 'tool', [result('k3')]), msg('ty', 'tool', [result('nope')])]
    expect(validateToolPairs(extra).issues.map((i) => i.kind)).toEqual(['duplicate_id', 'orphan_result'])
  })

  it('reports an assistant message with only reasoning', () => {
    const h = [msg('u', 'user', [txt('q')]), msg('a', 'assistant', [think('hmm', 's'), txt('  ')])]
    expect(validateToolPairs(h).issues).toEqual([{ kind: 'reasoning_only', index: 1, messageId: 'a' }])
  })
})

describe('repairToolPairs', () => {
  it('returns the very same array when the history is valid', () => {
    const r = repairToolPairs(everyKind)
    expect(r.messages).toBe(everyKind)
    expect(r.report).toEqual({ addedResults: [], droppedResults: [], droppedMessages: [], changed: false })
  })

  it("answers an orphan call with an interrupted error result after the turn's results", () => {
    const h = [
      msg('u', 'user', [txt('go')]),
      msg('a', 'assistant', [call('c1'), call('c2', 'bash')]),
      msg('t1', 'tool', [result('c1')]),
      msg('u2', 'user', [txt('next')]),
    ]
    const { messages, report } = repairToolPairs(h)
    expect(ids(messages)).toEqual(['u', 'a', 't1', 'interrupted-c2', 'u2'])
    const added = messages[3]
    expect(added).toMatchObject({ role: 'tool', kind: 'normal', metadata: { repaired: true } })
    expect(added?.parts[0]).toMatchObject({ type: 'tool_result', toolCallId: 'c2', name: 'bash', isError: true })
    expect(added?.parts[0]?.type === 'tool_result' && added.parts[0].content).toMatch(/interrupted/)
    expect(report).toEqual({ addedResults: ['c2'], droppedResults: [], droppedMessages: [], changed: true })
    expect(validateToolPairs(messages).valid).toBe(true)
  })

  it('drops orphan results and the messages they leave empty', () => {
    const h = [msg('u', 'user', [txt('go')]), msg('t', 'tool', [result('x')]), msg('t2', 'tool', [txt('note'), result('y')])]
    const { messages, report } = repairToolPairs(h)
    expect(ids(messages)).toEqual(['u', 't2'])
    expect(messages[1]?.parts).toEqual([txt('note')])
    expect(report).toEqual({ addedResults: [], droppedResults: ['x', 'y'], droppedMessages: ['t'], changed: true })
  })

  it('renames a repeated call id together with its result', () => {
    const h = [msg('a1', 'assistant', [call('c1')]), msg('t1', 'tool', [result('c1')]), msg('a2', 'assistant', [call('c1')]), msg('t2', 'tool', [result('c1')])]
    const { messages } = repairToolPairs(h)
    expect(messages[2]?.parts[0]).toMatchObject({ type: 'tool_call', id: 'c1_2' })
    expect(messages[3]?.parts[0]).toMatchObject({ type: 'tool_result', toolCallId: 'c1_2' })
    expect(validateToolPairs(messages).valid).toBe(true)
  })

  it('drops a reasoning-only assistant message', () => {
    const h = [msg('u', 'user', [txt('q')]), msg('a', 'assistant', [think('hmm', 's')]), msg('a2', 'assistant', [txt('answer')])]
    const { messages, report } = repairToolPairs(h)
    expect(ids(messages)).toEqual(['u', 'a2'])
    expect(report.droppedMessages).toEqual(['a'])
  })
})

describe('repairToolPairs with a result recorded late', () => {
  it('moves a result that stands after the next turn back next to its call, and invents nothing', () => {
    const h = [
      msg('u', 'user', [txt('write both')]),
      msg('a1', 'assistant', [call('w1', 'Write'), call('w2', 'Write')]),
      msg('t1', 'tool', [result('w1')]),
      msg('a2', 'assistant', [txt('both written')]),
      msg('t2', 'tool', [result('w2')]),
    ]
    expect(validateToolPairs(h).valid).toBe(false)
    const { messages, report } = repairToolPairs(h)
    expect(ids(messages)).toEqual(['u', 'a1', 't1', 't2', 'a2'])
    expect(messages[3]).toBe(h[4])
    expect(report).toEqual({ addedResults: [], droppedResults: [], droppedMessages: [], movedResults: ['w2'], changed: true })
    expect(validateToolPairs(messages).valid).toBe(true)
  })

  it("joins a late result to its turn's last tool message when it shares a message with another result", () => {
    const h = [
      msg('a1', 'assistant', [call('c1'), call('c2')]),
      msg('t1', 'tool', [result('c1')]),
      msg('a2', 'assistant', [call('c3')]),
      msg('t3', 'tool', [result('c3'), result('c2')]),
    ]
    const { messages, report } = repairToolPairs(h)
    expect(ids(messages)).toEqual(['a1', 't1', 'a2', 't3'])
    expect(messages[1]?.parts.map((p) => (p.type === 'tool_result' ? p.toolCallId : p.type))).toEqual(['c1', 'c2'])
    expect(messages[3]?.parts.map((p) => (p.type === 'tool_result' ? p.toolCallId : p.type))).toEqual(['c3'])
    expect(report.addedResults).toEqual([])
    expect(report.movedResults).toEqual(['c2'])
    expect(validateToolPairs(messages).valid).toBe(true)
  })

  it('still answers a call whose result never came', () => {
    const h = [msg('a1', 'assistant', [call('c1')]), msg('a2', 'assistant', [txt('next')]), msg('t', 'tool', [result('other')])]
    const { report } = repairToolPairs(h)
    expect(report.addedResults).toEqual(['c1'])
    expect(report.movedResults).toBeUndefined()
  })
})
