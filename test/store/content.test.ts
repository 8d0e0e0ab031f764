import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { decodeChatContent, fromChatContent, toChatContent } from '../../src/store/content.ts'
import { formatDecodeFailure } from '../../src/message/failure.ts'
import { file, image, text, toolCall } from '../../src/message/part-make.ts'

describe('chat content (seed 001)', () => {
  it('a string is one text part, and back', () => {
    expect(fromChatContent('Hello, how can I help?')).toEqual([text('Hello, how can I help?')])
    expect(toChatContent([text('Hello')])).toBe('Hello')
  })

  it('typed blocks normalise into parts, and back', () => {
    const blocks = [
      { type: 'text', text: "What's in this image?" },
      { type: 'image', source: 'url', url: 'https://example.com/image.jpg' },
      { type: 'image', source: 'base64', data: 'AQID', media_type: 'image/png' },
      { type: 'audio', source: 'base64', data: 'AAEC' },
      { type: 'video', source: 'url', url: 'https://example.com/v.mp4', media_type: 'video/mp4' },
    ] as const
    const decoded = decodeChatContent(blocks)
    if (E.isLeft(decoded)) throw new Error(formatDecodeFailure(decoded.left))
    const parts = fromChatContent(decoded.right)
    expect(parts).toEqual([
      text("What's in this image?"),
      image({ url: 'https://example.com/image.jpg' }),
      image({ data: new Uint8Array([1, 2, 3]), mediaType: 'image/png' }),
      file({ data: new Uint8Array([0, 1, 2]), mediaType: 'audio/*' }),
      file({ url: 'https://example.com/v.mp4', mediaType: 'video/mp4' }),
    ])
    expect(toChatContent(parts)).toEqual(blocks)
  })

  it('leaves out parts chat content cannot carry', () => {
    expect(toChatContent([text('a'), toolCall({ id: '1', name: 'x' }), file({ url: 'u', mediaType: 'application/pdf' })])).toEqual([{
      type: 'text',
      text: 'a',
    }])
  })

  it('reports bad blocks by path', () => {
    const r = decodeChatContent([{ type: 'text', text: 'ok' }, { type: 'image', source: 'base64', data: '!!' }])
    expect(E.isLeft(r)).toBe(true)
    if (E.isLeft(r)) expect(r.left.some((i) => i.path.startsWith('[1]'))).toBe(true)
    expect(E.isLeft(decodeChatContent(42))).toBe(true)
    expect(E.isLeft(decodeChatContent([{ type: 'hologram' }]))).toBe(true)
  })
})
