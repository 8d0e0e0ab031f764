import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { fromUIMessages } from '../../../src/adapters/ai-sdk/ui-messages-from.ts'
import { type Messages } from '../../../src/message/message.ts'

const read = (messages: unknown[]): Messages => {
  const r = fromUIMessages({ messages })
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}

describe('fromUIMessages on AI SDK v4 messages', () => {
  it('reads the parts and leaves the legacy content aside when a message has both', () => {
    const ms = read([{
      id: 'a',
      role: 'assistant',
      content: 'only the last text',
      parts: [{ type: 'text', text: 'first' }, { type: 'text', text: 'only the last text' }],
    }])
    expect(ms.flatMap((m) => m.parts)).toEqual([
      expect.objectContaining({ type: 'text', text: 'first' }),
      expect.objectContaining({ type: 'text', text: 'only the last text' }),
    ])
    expect(ms.flatMap((m) => m.parts)).toHaveLength(2)
  })

  it('reads the content of a message that has no parts, and names the field when it has neither', () => {
    expect(read([{ id: 'u', role: 'user', content: 'Hi' }])[0]?.parts).toEqual([{ type: 'text', text: 'Hi' }])
    const r = fromUIMessages({ messages: [{ id: 'u', role: 'user' }] })
    expect(E.isLeft(r) && r.left[0]).toMatchObject({ path: 'messages[0].parts' })
  })

  it('reads tool invocations (a call still waiting is pending), reasoning details and base64 files', () => {
    const ms = read([
      {
        id: 'a',
        role: 'assistant',
        parts: [
          { type: 'reasoning', reasoning: 'hidden', details: [{ type: 'redacted', data: 'opaque' }, { type: 'text', text: 'plan', signature: 's1' }] },
          { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 't1', toolName: 'ls', args: {}, result: 'a.txt' } },
          { type: 'tool-invocation', toolInvocation: { state: 'call', toolCallId: 't2', toolName: 'cat', args: { path: 'a.txt' } } },
        ],
      },
      { id: 'u', role: 'user', parts: [{ type: 'file', mimeType: 'text/plain', data: 'aGk=' }] },
    ])
    const parts = ms.flatMap((m) => m.parts)
    expect(parts.filter((p) => p.type === 'reasoning')).toEqual([
      { type: 'reasoning', text: 'opaque', redacted: true },
      { type: 'reasoning', text: 'plan', signature: 's1' },
    ])
    expect(parts.find((p) => p.type === 'tool_result')).toMatchObject({ toolCallId: 't1', content: 'a.txt', isError: false })
    expect(parts.find((p) => p.type === 'tool_call' && p.id === 't2')).toMatchObject({ name: 'cat', arguments: '{"path":"a.txt"}', status: 'pending' })
    expect(parts.find((p) => p.type === 'file')).toMatchObject({ mediaType: 'text/plain', data: new Uint8Array([104, 105]) })
  })

  it('names the bad field of a tool invocation', () => {
    const r = fromUIMessages({
      messages: [{ id: 'a', role: 'assistant', parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolName: 'ls' } }] }],
    })
    expect(E.isLeft(r) && r.left[0]?.path).toBe('messages[0].parts[0].toolInvocation.toolCallId')
  })
})
