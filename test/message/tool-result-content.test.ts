import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { decodePart, encodePart } from '../../src/message/part-registry.ts'
import { file, image, providerPart, text, toolResult } from '../../src/message/part-make.ts'
import { toolResultBlockLabel, toolResultBlocks, toolResultHasMedia, toolResultText } from '../../src/message/tool-result-content.ts'
import { fromJSONL, toJSONL } from '../../src/history/codec.ts'
import { makeMessage } from '../../src/message/message.ts'

const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10])
const shot = toolResult({
  toolCallId: 'c1',
  name: 'screenshot',
  content: [
    text('The page'),
    image({ data: png, mediaType: 'image/png' }),
    file({ url: 'https://example.com/a.pdf', mediaType: 'application/pdf', filename: 'a.pdf' }),
  ],
})

describe('tool result content', () => {
  it('reads an old text result exactly as before, and writes it back the same', () => {
    const wire = { type: 'tool_result', data: { toolCallId: 'c1', content: '42', isError: false } }
    const p = decodePart(wire)
    expect(p).toEqual(E.right({ type: 'tool_result', toolCallId: 'c1', content: '42', isError: false }))
    expect(E.isRight(p) && encodePart(p.right)).toEqual(wire)
  })
  it('writes blocks flat, bytes as base64, and reads them back', () => {
    const wire = encodePart(shot)
    expect(wire.data['content']).toEqual([
      { type: 'text', text: 'The page' },
      { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
      { type: 'file', mediaType: 'application/pdf', url: 'https://example.com/a.pdf', filename: 'a.pdf' },
    ])
    expect(decodePart(JSON.parse(JSON.stringify(wire)))).toEqual(E.right(shot))
  })
  it('goes through JSONL unchanged', () => {
    const ms = [makeMessage({ id: 't1', role: 'tool', parts: [shot] })]
    expect(fromJSONL(toJSONL(ms))).toEqual(E.right(ms))
  })
  it('refuses a block that is not text, image, file or provider, naming where', () => {
    const r = decodePart({ type: 'tool_result', toolCallId: 'c1', content: [{ type: 'tool_call', id: 'x', name: 'y', arguments: '{}' }] })
    expect(E.isLeft(r)).toBe(true)
  })
  it('reads as blocks and as text, naming what is not text', () => {
    expect(toolResultBlocks(toolResult({ toolCallId: 'c1', content: '42' }))).toEqual([{ type: 'text', text: '42' }])
    expect(toolResultBlocks(toolResult({ toolCallId: 'c1', content: '' }))).toEqual([])
    expect(toolResultBlocks(shot)).toBe(shot.content)
    expect(toolResultText(shot)).toBe('The page\n[image image/png]\n[file a.pdf application/pdf https://example.com/a.pdf]')
    expect(toolResultBlockLabel(providerPart('anthropic', 'search_result', {}))).toBe('[anthropic search_result]')
    expect(toolResultHasMedia(shot)).toBe(true)
    expect(toolResultHasMedia(toolResult({ toolCallId: 'c1', content: [text('only text')] }))).toBe(false)
  })
})
