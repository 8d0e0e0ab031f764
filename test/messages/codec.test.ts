import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/Either'
import { importJSON, importJSONL, parseJSONL, toJSON, toJSONL, MAX_REPORTED_LINES } from '../../src/messages/codec.ts'
import { formatDecodeFailure } from '../../src/failure.ts'
import { textMessage } from '../../src/message.ts'
import { messagesArb } from '../arbitraries.ts'

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
    expect(importJSONL('')).toEqual(E.right([]))
  })

  it('round-trips every history (lossless, bytes included)', () => {
    fc.assert(
      fc.property(messagesArb, (ms) => {
        expect(importJSONL(toJSONL(ms))).toEqual(E.right(ms))
        expect(importJSON(toJSON(ms, 2))).toEqual(E.right(ms))
      }),
      { numRuns: 100 },
    )
  })

  it('skips blank lines and accepts CRLF endings', () => {
    const crlf = `\r\n${good.replace(/\n/g, '\r\n')}\r\n\r\n`
    const r = importJSONL(crlf)
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
    const r = importJSONL(text)
    expect(E.isLeft(r)).toBe(true)
    if (E.isRight(r)) return
    const report = formatDecodeFailure(r.left)
    expect(report).toContain('line 2: role: expected "system" | "user" | "assistant" | "tool", got "bot"')
    expect(report).toMatch(/^line 4: expected a JSON message, got /m)
    expect(report).toContain('line 5: parts[0].type: expected "text" | "reasoning"')
    expect(report).toContain('got "txt"')
    expect(report).not.toContain('line 1')
  })

  it('stops listing bad lines after a limit, and says how many there were', () => {
    const text = Array.from({ length: MAX_REPORTED_LINES + 50 }, () => '{}').join('\n')
    const r = importJSONL(text)
    if (E.isRight(r)) throw new Error('expected a failure')
    expect(r.left[r.left.length - 1]?.actual).toBe(`${MAX_REPORTED_LINES + 50} bad lines`)
  })

  it('parseJSONL throws a TypeError naming the line', () => {
    expect(() => parseJSONL('{"id":"1","role":"bot","parts":[]}')).toThrow(TypeError)
    expect(() => parseJSONL('{"id":"1","role":"bot","parts":[]}')).toThrow(/^Cannot decode JSONL: line 1: role/)
    expect(parseJSONL(good).map((m) => m.id)).toEqual(['1', '2'])
  })

  it('importJSON never throws, even on text that is not JSON', () => {
    const r = importJSON('[{')
    expect(E.isLeft(r)).toBe(true)
  })
})
