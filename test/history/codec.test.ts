import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/Either'
import { fromJSON, fromJSONL, MAX_REPORTED_LINES, parseJSONL, toJSON, toJSONL } from '../../src/history/codec.ts'
import { formatDecodeFailure } from '../../src/message/failure.ts'
import { textMessage } from '../../src/message/message.ts'
import { conversationArb, messagesArb } from '../support/arbitraries.ts'
import { exportJSON, exportJSONL, exportMessages, exportStructuredMessages } from '../../src/history/export.ts'
import { tokensForEstimation, totalTokens } from '../../src/history/recorded-tokens.ts'
import { forExportStructured } from '../../src/history/views.ts'
import { call, everyKind, msg, result, think, txt } from './fixtures.ts'

const good = toJSONL([textMessage('user', 'hi', { id: '1' }), textMessage('assistant', 'hello', { id: '2' })])

describe('JSONL', () => {
  it('writes one message per line, each ending in a newline', () => {
    const lines = good.split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[2]).toBe('')
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ id: '1', role: 'user', parts: [{ type: 'text', data: { text: 'hi' } }] })
  })

  it('an empty history is the empty string, and reads back as empty', () => {
    expect(toJSONL([])).toBe('')
    expect(fromJSONL('')).toEqual(E.right([]))
  })

  it('round-trips every history (lossless, bytes included)', () => {
    fc.assert(
      fc.property(messagesArb, (ms) => {
        expect(fromJSONL(toJSONL(ms))).toEqual(E.right(ms))
        expect(fromJSON(toJSON(ms, 2))).toEqual(E.right(ms))
      }),
      { numRuns: 100 },
    )
  })

  it('skips blank lines and accepts CRLF endings', () => {
    const crlf = `\r\n${good.replace(/\n/g, '\r\n')}\r\n\r\n`
    const r = fromJSONL(crlf)
    expect(E.isRight(r) && r.right.map((m) => m.id)).toEqual(['1', '2'])
  })

  it('names the line of every bad line, and what is wrong there', () => {
    const text = [
      '{"id":"1","role":"user","parts":[]}',
      '{"id":"2","role":"bot","parts":[]}',
      '',
      '{not json',
      '{"id":"5","role":"user","parts":[{"type":"txt","data":{"text":"x"}}]}',
    ].join('\n')
    const r = fromJSONL(text)
    expect(E.isLeft(r)).toBe(true)
    if (E.isRight(r)) return
    const report = formatDecodeFailure(r.left)
    expect(report).toContain('line 2: role: expected "system" | "user" | "assistant" | "tool", got "bot"')
    expect(report).toMatch(/^line 4: expected a JSON message, got /m)
    expect(report).toContain('line 5: parts[0].type: expected "text" | "reasoning"')
    expect(report).toContain('got "txt"')
    // line 1 is good: no issue names it (Deno's JSON.parse messages mention "line 1 column 2" in line 4's detail)
    expect(report).not.toMatch(/^line 1\b/m)
  })

  it('stops listing bad lines after a limit, and says how many there were', () => {
    const text = Array.from({ length: MAX_REPORTED_LINES + 50 }, () => '{}').join('\n')
    const r = fromJSONL(text)
    if (E.isRight(r)) throw new Error('expected a failure')
    expect(r.left[r.left.length - 1]?.actual).toBe(`${MAX_REPORTED_LINES + 50} bad lines`)
  })

  it('parseJSONL throws a TypeError naming the line', () => {
    expect(() => parseJSONL('{"id":"1","role":"bot","parts":[]}')).toThrow(TypeError)
    expect(() => parseJSONL('{"id":"1","role":"bot","parts":[]}')).toThrow(/^Cannot decode JSONL: line 1: role/)
    expect(parseJSONL(good).map((m) => m.id)).toEqual(['1', '2'])
  })

  it('fromJSON never throws, even on text that is not JSON', () => {
    const r = fromJSON('[{')
    expect(E.isLeft(r)).toBe(true)
  })
})

// --- seed 002 exports and token totals ---

describe('exportMessages / exportStructuredMessages (seed ExportMessage)', () => {
  it('flattens the forExport view into the seed shape, omitting empty fields', () => {
    const out = exportMessages(everyKind)
    expect(out).toEqual([
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'Fix the test' },
      { role: 'assistant', content: 'Reading.', thinking: 'look first', tool_calls: [{ id: 'c1', name: 'read', arguments: {} }] },
      { role: 'tool', content: 'file body', tool_name: 'read', tool_call_id: 'c1' },
      { role: 'assistant', content: 'Done.' },
      { role: 'assistant', content: 'Checkpoint saved' },
      { role: 'user', content: 'Milestone 1' },
    ])
  })
  it('the structured export adds metadata messages, their metadata as JSON content', () => {
    const out = exportStructuredMessages(everyKind)
    expect(out.length).toBe(exportMessages(everyKind).length + 1)
    expect(out[out.length - 1]).toEqual({ role: 'user', content: '{"turn":1}' })
  })
  it('keeps created_at, raw arguments that are not JSON, and one entry per tool result', () => {
    const at = '2026-01-31T12:00:00.000Z'
    const out = exportMessages([
      msg('a', 'assistant', [call('c1', 'x', '{oops'), call('c2')], 'normal', { createdAt: at }),
      msg('t', 'tool', [result('c1', 'one'), result('c2', 'two')], 'normal', { createdAt: at }),
    ])
    expect(out).toEqual([
      { role: 'assistant', tool_calls: [{ id: 'c1', name: 'x', arguments: '{oops' }, { id: 'c2', name: 'read', arguments: {} }], created_at: at },
      { role: 'tool', content: 'one', tool_name: 'read', tool_call_id: 'c1', created_at: at },
      { role: 'tool', content: 'two', tool_name: 'read', tool_call_id: 'c2', created_at: at },
    ])
  })
  it('leaves out images, signatures and redacted reasoning', () => {
    const out = exportMessages([
      msg('a', 'assistant', [think('visible', 'sig'), { type: 'reasoning', text: 'opaque', redacted: true }, txt('hi'), {
        type: 'image',
        url: 'https://x.test/i.png',
      }]),
    ])
    expect(out).toEqual([{ role: 'assistant', content: 'hi', thinking: 'visible' }])
  })
})

describe('exportJSON / exportJSONL (lossless, structured view)', () => {
  it('read back with fromJSON / fromJSONL as the forExportStructured view', () => {
    expect(fromJSON(exportJSON(everyKind))).toEqual(E.right(forExportStructured(everyKind)))
    expect(fromJSONL(exportJSONL(everyKind))).toEqual(E.right(forExportStructured(everyKind)))
    expect(exportJSON(everyKind)).toMatch(/^\[\n {2}\{/)
    expect(exportJSON(everyKind).endsWith(']\n')).toBe(true)
  })
  it('round-trips any history view', () => {
    fc.assert(
      fc.property(fc.oneof(messagesArb, conversationArb), (h) => {
        expect(fromJSONL(exportJSONL(h))).toEqual(E.right(forExportStructured(h)))
        expect(fromJSON(exportJSON(h))).toEqual(E.right(forExportStructured(h)))
      }),
      { numRuns: 100 },
    )
  })
})

describe('totalTokens / tokensForEstimation', () => {
  const h = [
    msg('u', 'user', [txt('hi')], 'normal', { tokens: { total: 3 } }),
    msg('a', 'assistant', [txt('yo')], 'normal', { tokens: { total: 5, content: 5 } }),
    msg('d', 'assistant', [txt('Saved')], 'display', { tokens: { total: 2 } }),
    msg('s', 'user', [txt('Reminder')], 'synthetic', { tokens: { total: 7 } }),
    msg('n', 'user', [txt('no count')]),
  ]
  it('totalTokens sums tokens.total', () => {
    expect(totalTokens(h)).toBe(17)
    expect(totalTokens([])).toBe(0)
  })
  it('tokensForEstimation ignores display, bookmark and metadata messages', () => {
    expect(tokensForEstimation(h)).toBe(15)
  })
})
