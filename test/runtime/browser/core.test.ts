/**
 * Smoke test of the core in a real browser: the data model, codecs with bytes and JSONL round trips
 * run unchanged in Chromium (Web-standard APIs only).
 */
import { describe, expect, it } from 'vitest'
import { fromJSONL, toJSONL } from '../../../src/history/codec.ts'
import { textContent } from '../../../src/message/accessors.ts'
import { makeMessage, textMessage } from '../../../src/message/message.ts'
import { image, text, toolCall } from '../../../src/message/part-make.ts'

describe('core in the browser', () => {
  it('runs in a browser, not in Node', () => {
    expect(typeof document).toBe('object')
    expect(typeof Worker).toBe('function')
  })

  it('round-trips a history through JSONL, image bytes included', () => {
    const history = [
      textMessage('user', 'Read the parser and fix the failing test'),
      makeMessage({
        role: 'assistant',
        parts: [text('Reading it.'), toolCall({ id: 'c1', name: 'read_file', arguments: '{"path":"src/parse.ts"}' })],
      }),
      makeMessage({ role: 'user', parts: [image({ data: new Uint8Array([137, 80, 78, 71, 0, 255]), mediaType: 'image/png' })] }),
    ]
    const back = fromJSONL(toJSONL(history))
    expect(back._tag).toBe('Right')
    if (back._tag !== 'Right') return
    expect(back.right).toEqual(history)
    expect(textContent(back.right[0]!)).toBe('Read the parser and fix the failing test')
  })
})
