import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { fromCopilotChatSession, isCopilotChatSession } from '../../src/sessions/copilot.ts'

const path = (ext: string): string => new URL(`../fixtures/copilot/3f1c2b0a-9d8e-4f7a-b6c5-1e2d3c4b5a69.${ext}`, import.meta.url).pathname
// deno-lint-ignore no-explicit-any -- the fixture is read as plain JSON, apart from the reader
type Rec = Record<string, any>

describe('a GitHub Copilot chat session', () => {
  const doc = JSON.parse(readFileSync(path('json'), 'utf8')) as Rec
  const r = fromCopilotChatSession(readFileSync(path('json'), 'utf8'))
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  const parts = r.right.messages.flatMap((m) => m.parts)

  it('keeps every request, round, thinking, tool call and result', () => {
    for (const q of doc['requests'] as Rec[]) {
      expect(parts).toContainEqual({ type: 'text', text: q['message']['text'] })
      const meta = q['result']['metadata']
      for (const round of meta['toolCallRounds']) {
        if (round['response'] !== '') expect(parts).toContainEqual({ type: 'text', text: round['response'] })
        if (round['thinking'] !== undefined) expect(parts).toContainEqual({ type: 'reasoning', text: round['thinking']['text'] })
        for (const c of round['toolCalls']) {
          expect(parts).toContainEqual({ type: 'tool_call', id: c['id'], name: c['name'], arguments: c['arguments'], status: 'complete' })
          expect(parts).toContainEqual({
            type: 'tool_result',
            toolCallId: c['id'],
            name: c['name'],
            content: meta['toolCallResults'][c['id']]['content'].map((x: Rec) => x['value']).join('\n'),
            isError: false,
          })
        }
      }
      const last = r.right.messages.filter((m) => m.role === 'assistant' && m.id.startsWith(q['requestId'])).pop()
      expect(last?.metadata?.['usage']).toEqual({ input: meta['promptTokens'], output: meta['outputTokens'] })
      expect(last?.model).toBe(meta['resolvedModel'])
    }
    expect(r.right.notes).toEqual(['response items shown in the chat, not sent as text, kept in metadata.response: 1 toolInvocationSerialized'])
  })

  it('reads the .jsonl journal of the same session as the same history', () => {
    const j = fromCopilotChatSession(readFileSync(path('jsonl'), 'utf8'))
    expect(j).toEqual(r)
  })

  it('answers a call the session holds no result for, and says so', () => {
    const q = {
      requestId: 'q',
      timestamp: 1,
      message: { text: 'go' },
      result: { metadata: { toolCallRounds: [{ response: '', toolCalls: [{ id: 'c1', name: 'run_in_terminal', arguments: '{}' }] }] } },
    }
    const s = fromCopilotChatSession(JSON.stringify({ version: 3, sessionId: 's', requests: [q] }))
    expect(E.isRight(s) && s.right.notes).toEqual(['1 tool call with no result in the session answered by a tool message saying so'])
  })

  it('names what it cannot read', () => {
    expect(fromCopilotChatSession('{"version":3,"sessionId":"s"}')).toEqual(E.left([{ path: 'requests', expected: 'array', actual: undefined }]))
  })
})

describe('the file "Chat: Export Chat…" saves', () => {
  const file = new URL('../fixtures/copilot/chat-export.json', import.meta.url).pathname
  const doc = JSON.parse(readFileSync(file, 'utf8')) as Rec
  const r = fromCopilotChatSession(readFileSync(file, 'utf8'))
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))

  it('is detected without a sessionId or version', () => {
    expect(doc['sessionId']).toBeUndefined()
    expect(isCopilotChatSession(doc)).toBe(true)
  })

  it('keeps every message and every markdown value of the reply, in order; the other response items are named', () => {
    const texts = r.right.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' ? [`${m.role}: ${p.text}`] : [])))
    const expected = (doc['requests'] as Rec[]).flatMap((q) => [
      `user: ${q['message']['text']}`,
      ...(q['response'] as Rec[]).flatMap((x) => (x['kind'] === undefined ? [`assistant: ${x['value']}`] : [])),
    ])
    expect(texts).toEqual(expected)
    expect(r.right.notes.join('\n')).toContain('1 inlineReference, 1 textEditGroup')
  })

  it('reads an older export whose message is a string, and a journal of one line', () => {
    const older = fromCopilotChatSession(
      JSON.stringify({ initialLocation: 'panel', responderUsername: 'GitHub Copilot', requests: [{ message: 'Hi', response: [{ value: 'Hello!' }] }] }),
    )
    expect(E.isRight(older) && older.right.messages.map((m) => m.parts)).toEqual([[{ type: 'text', text: 'Hi' }], [{ type: 'text', text: 'Hello!' }]])
    const oneLine = fromCopilotChatSession(
      JSON.stringify({
        kind: 0,
        v: { version: 3, sessionId: 's1', requests: [{ requestId: 'r1', message: { text: 'Hi' }, response: [{ value: 'Hello!' }] }] },
      }),
    )
    expect(E.isRight(oneLine) && oneLine.right.messages.length).toBe(2)
  })
})
