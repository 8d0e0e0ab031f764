import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { affectedEntities, type ChatInput, ChatInputC, ChatRoleC, formatInput, makeChatInput, validateInput } from '../../src/store/input.ts'
import { deepFreeze } from '../support/arbitraries.ts'

const base: ChatInput = deepFreeze({ modality_type: 'chat', timestamp: '2024-03-15T10:30:00Z', input_id: 'in-1', role: 'user', content: "What's the weather?" })

const paths = (u: unknown): ReadonlyArray<string> => {
  const r = validateInput(u)
  return E.isLeft(r) ? r.left.map((i) => i.path) : []
}

describe('validateInput', () => {
  it('accepts the simple text input of the seed', () => {
    expect(validateInput(base)).toEqual(E.right(base))
  })

  it('accepts every optional field and multimodal content', () => {
    const u = {
      ...base,
      message_id: 'm-1',
      conversation_id: 'support-42',
      metadata: { model: 'x', tokens: 12 },
      content: [
        { type: 'text', text: "What's in this image?" },
        { type: 'image', source: 'url', url: 'https://example.com/image.jpg' },
        { type: 'audio', source: 'base64', data: 'AAEC', media_type: 'audio/wav' },
        { type: 'video', source: 'url', url: 'https://example.com/v.mp4' },
      ],
    }
    expect(E.isRight(validateInput(u))).toBe(true)
  })

  it('reports every bad field by path at once', () => {
    const r = validateInput({
      modality_type: 'email',
      timestamp: 'yesterday',
      input_id: '',
      role: 'bot',
      content: 5,
      conversation_id: 7,
      metadata: { f: () => 1 },
    })
    expect(E.isLeft(r)).toBe(true)
    const ps = E.isLeft(r) ? r.left.map((i) => i.path) : []
    expect(ps).toEqual(expect.arrayContaining(['modality_type', 'timestamp', 'input_id', 'role', 'content', 'conversation_id', 'metadata.f']))
    const role = E.isLeft(r) ? r.left.find((i) => i.path === 'role') : undefined
    expect(role).toEqual({ path: 'role', expected: '"user" | "assistant"', actual: 'bot' })
  })

  it('names the exact bad field of a content block, not the whole union', () => {
    const r = validateInput({
      ...base,
      content: [{ type: 'text', text: 'ok' }, { type: 'txt', text: 'hi' }, { type: 'image', source: 'url' }, { type: 'image', source: 'ftp' }, 'x'],
    })
    expect(E.isLeft(r) ? r.left : []).toEqual([
      { path: 'content[1].type', expected: '"text" | "image" | "audio" | "video"', actual: 'txt' },
      { path: 'content[2].url', expected: 'string', actual: undefined },
      { path: 'content[3].source', expected: '"url" | "base64"', actual: 'ftp' },
      { path: 'content[4]', expected: 'a content block object', actual: 'x' },
    ])
  })

  it('rejects base64 that is not base64, and empty content', () => {
    expect(paths({ ...base, content: [{ type: 'image', source: 'base64', data: 'not base64!' }] })).toEqual(['content[0].data'])
    expect(paths({ ...base, content: '' })).toEqual(['content'])
    expect(paths({ ...base, content: [] })).toEqual(['content'])
  })

  it('reports unknown fields, so that a typo is not silently dropped', () => {
    expect(paths({ ...base, conversationId: 'x' })).toEqual(['conversationId'])
  })

  it('rejects ids that are too long or hold control characters', () => {
    expect(paths({ ...base, message_id: 'a'.repeat(257) })).toEqual(['message_id'])
    expect(paths({ ...base, conversation_id: 'a\nb' })).toEqual(['conversation_id'])
    expect(paths({ ...base, message_id: 'a'.repeat(256) })).toEqual([])
  })

  it('rejects what is not an object without throwing', () => {
    for (const u of [null, undefined, 1, 'x', [], [base]]) expect(paths(u)).toEqual([''])
  })
})

describe('codecs', () => {
  it('ChatRoleC knows user and assistant only', () => {
    expect(ChatRoleC.is('user')).toBe(true)
    expect(ChatRoleC.is('assistant')).toBe(true)
    expect(ChatRoleC.is('system')).toBe(false)
  })
  it('ChatInputC decodes what validateInput accepts', () => {
    expect(ChatInputC.is(base)).toBe(true)
  })
})

describe('makeChatInput', () => {
  it('fills modality, input id and timestamp', () => {
    const i = makeChatInput({ role: 'assistant', content: 'Hello' })
    expect(i.modality_type).toBe('chat')
    expect(i.input_id.length).toBeGreaterThan(0)
    expect(E.isRight(validateInput(i))).toBe(true)
  })
  it('keeps given ids and time', () => {
    const i = makeChatInput({ role: 'user', content: 'x', input_id: 'a', timestamp: '2024-01-01T00:00:00Z' })
    expect(i.input_id).toBe('a')
    expect(i.timestamp).toBe('2024-01-01T00:00:00Z')
  })
})

describe('helpers', () => {
  it('affectedEntities is the conversation, or "default_conversation"', () => {
    expect(affectedEntities(base)).toEqual(['default_conversation'])
    expect(affectedEntities({ ...base, conversation_id: 'c1' })).toEqual(['c1'])
  })

  it('summary matches the seed', () => {
    expect(formatInput(base)).toBe("User: 'What's the weather?'")
    expect(formatInput({ ...base, role: 'assistant', content: "It's sunny today" })).toBe("Assistant: 'It's sunny today'")
  })

  it('summary marks media and cuts long text on a character boundary', () => {
    expect(formatInput({ ...base, content: [{ type: 'text', text: 'Look:' }, { type: 'image', source: 'url', url: 'https://e/x.png' }] })).toBe(
      "User: 'Look: [image]'",
    )
    const long = formatInput({ ...base, content: '😀'.repeat(100) })
    expect(long).toBe(`User: '${'😀'.repeat(59)}…'`)
  })
})
