import { describe, expect, it } from 'vitest'
import * as t from 'io-ts'
import { toModelMessages } from '../../src/adapters/ai-sdk/model-messages.ts'
import { toAnthropic } from '../../src/adapters/anthropic/messages.ts'
import { toGemini } from '../../src/adapters/gemini/contents.ts'
import { toOpenAIChat } from '../../src/adapters/openai/chat.ts'
import { toOpenAIResponses } from '../../src/adapters/openai/responses.ts'
import { formatAdapterFailure } from '../../src/adapters/types.ts'
import { type Part } from '../../src/message/part-model.ts'
import { registerPart } from '../../src/message/part-registry.ts'
import { fromDataUrl, sniffImageType, toDataUrl } from '../../src/adapters/media.ts'
import { settleStatuses } from '../../src/adapters/decode.ts'
import { call, msg, result, right, text } from './support.ts'
import { deepFreeze } from '../support/arbitraries.ts'

describe('adapter preparation', () => {
  it('leaves out what forLLM leaves out, saying which messages', () => {
    const bookmark = msg('user', [text('--')], { kind: 'bookmark' })
    const meta = msg('user', [], { kind: 'metadata', metadata: { a: 1 } })
    const h = deepFreeze([msg('user', [text('q')]), bookmark, meta, msg('assistant', [text('a')], { kind: 'synthetic' })])
    const { request, report } = right(toOpenAIChat()(h))
    expect(request.messages).toEqual([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a' },
    ])
    expect(report.notes).toEqual([
      { kind: 'omitted_message', messageId: bookmark.id, reason: 'not_for_llm' },
      { kind: 'omitted_message', messageId: meta.id, reason: 'not_for_llm' },
    ])
  })

  it('reports an empty repair when asked to repair a valid history, and none otherwise', () => {
    const h = [msg('user', [text('q')])]
    expect(right(toOpenAIChat({ repair: 'repair' })(h)).report.repair).toEqual({ addedResults: [], droppedResults: [], droppedMessages: [], changed: false })
    expect(right(toOpenAIChat()(h)).report.repair).toBeUndefined()
  })

  it('reports a custom part no provider can carry, for every target', () => {
    const unregister = registerPart({ type: 'audio_clip', codec: t.readonly(t.type({ type: t.literal('audio_clip'), url: t.string })) })
    try {
      const clip = { type: 'audio_clip', url: 'https://example.com/a.ogg' } as unknown as Part
      const u = msg('user', [text('listen'), clip])
      for (const to of [toOpenAIChat, toOpenAIResponses, toAnthropic, toGemini, toModelMessages]) {
        const { request, report } = right((to as (o: object) => typeof toAnthropic extends (o: object) => infer F ? F : never)({})([u]))
        expect(JSON.stringify(request)).not.toContain('example.com/a.ogg')
        expect(report.notes).toEqual([expect.objectContaining({ kind: 'omitted_part', messageId: u.id, part: 'audio_clip' })])
      }
    } finally {
      unregister()
    }
  })

  it('formats errors for people', () => {
    expect(
      formatAdapterFailure({
        kind: 'invalid_tool_pairs',
        issues: [
          { kind: 'orphan_result', index: 2, messageId: 'm3', toolCallId: 'c9' },
          { kind: 'reasoning_only', index: 4, messageId: 'm5' },
        ],
      }),
    ).toBe(
      'Cannot convert: tool calls and results do not pair up: orphan result "c9" in message "m3"; message "m5" (number 5 of the history) is reasoning with no reply after it',
    )
    expect(formatAdapterFailure({ kind: 'invalid_tool_pairs', issues: [{ kind: 'reasoning_only', index: 1, messageId: 'm2' }] })).toBe(
      'Cannot convert: message "m2" (number 2 of the history) is reasoning with no reply after it',
    )
    expect(formatAdapterFailure({ kind: 'invalid_arguments', messageId: 'm1', toolCallId: 'c1', arguments: '{' })).toContain('"c1"')
  })
})

describe('media helpers', () => {
  it('writes and reads base64 data URLs', () => {
    const bytes = new Uint8Array([0, 255, 7])
    const url = toDataUrl('image/png', bytes)
    expect(url).toBe('data:image/png;base64,AP8H')
    expect(fromDataUrl(url)).toEqual({ mediaType: 'image/png', data: bytes })
    expect(fromDataUrl('data:text/plain;charset=utf-8;base64,aGk=')).toEqual({ mediaType: 'text/plain', data: new Uint8Array([104, 105]) })
    expect(fromDataUrl('https://example.com/a.png')).toBeUndefined()
    expect(fromDataUrl('data:image/png;base64,@@@')).toBeUndefined()
  })

  it('tells image types by their magic numbers', () => {
    expect(sniffImageType(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBe('image/png')
    expect(sniffImageType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg')
    expect(sniffImageType(new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61]))).toBe('image/gif')
    expect(sniffImageType(new Uint8Array([0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x45, 0x42, 0x50]))).toBe('image/webp')
    expect(sniffImageType(new Uint8Array([0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x41, 0x56, 0x45]))).toBeUndefined()
    expect(sniffImageType(new Uint8Array([]))).toBeUndefined()
  })
})

describe('settleStatuses', () => {
  it('makes answered calls complete (or error) and unanswered ones pending', () => {
    const h = settleStatuses([
      msg('assistant', [call('a', 'x', '{}', 'running'), call('b', 'y', '{}', 'complete'), call('c', 'z')]),
      msg('tool', [result('a', 'ok'), result('c', 'no', { isError: true })]),
    ])
    expect(h[0]?.parts.map((p) => (p.type === 'tool_call' ? p.status : p.type))).toEqual(['complete', 'pending', 'error'])
  })
})
