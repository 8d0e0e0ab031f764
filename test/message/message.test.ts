import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import {
  hasKind,
  hasRole,
  images,
  isEmpty,
  isInternal,
  reasoningParts,
  reasoningText,
  textContent,
  toolCalls,
  toolResults,
} from '../../src/message/accessors.ts'
import { decodeMessage, decodeMessages, encodeMessage, makeMessage, type Message, parseMessages, textMessage } from '../../src/message/message.ts'
import { addPart, getMeta, mapParts, MessageEq, setMeta, upsertToolCall } from '../../src/message/edit.ts'
import { finish, image, isText, reasoning as thinking, text, toolCall, toolResult } from '../../src/message/part-make.ts'
import { formatDecodeFailure } from '../../src/message/failure.ts'
import { deepFreeze } from '../support/arbitraries.ts'

describe('constructors (seed New, NewText)', () => {
  it('makeMessage generates distinct ids and defaults kind and parts', () => {
    const a = makeMessage({ role: 'user' })
    const b = makeMessage({ role: 'user' })
    expect(a.id).not.toBe(b.id)
    expect(a.id.length).toBeGreaterThan(8)
    expect(a).toMatchObject({ role: 'user', kind: 'normal', parts: [] })
    expect(makeMessage({ id: 'x', role: 'tool', kind: 'ephemeral' })).toMatchObject({ id: 'x', kind: 'ephemeral' })
  })

  it('textMessage makes one text part and keeps the sender', () => {
    const m = textMessage('assistant', 'Go is a programming language.', { sender: 'bot' })
    expect(m.parts).toEqual([{ type: 'text', text: 'Go is a programming language.' }])
    expect(m.sender).toBe('bot')
    expect(m.role).toBe('assistant')
  })
})

describe('accessors', () => {
  const m = makeMessage({
    role: 'assistant',
    parts: [
      thinking('plan', { signature: 's' }),
      text('Let me '),
      toolCall({ id: 'c1', name: 'search', arguments: '{"q":"golang"}' }),
      text('search.'),
      image({ url: 'u' }),
      finish('tool_use'),
    ],
  })

  it('textContent concatenates the text parts (seed TextContent)', () => {
    expect(textContent(m)).toBe('Let me search.')
    expect(textContent(makeMessage({ role: 'user' }))).toBe('')
  })

  it('toolCalls extracts the calls (seed ToolCalls)', () => {
    expect(toolCalls(m)).toEqual([{ type: 'tool_call', id: 'c1', name: 'search', arguments: '{"q":"golang"}', status: 'pending' }])
  })

  it('toolResults, images, reasoning, reasoningText', () => {
    const tool = makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: 'Go is…' })] })
    expect(toolResults(tool).map((r) => r.toolCallId)).toEqual(['c1'])
    expect(images(m)).toHaveLength(1)
    expect(reasoningParts(m)).toEqual([{ type: 'reasoning', text: 'plan', signature: 's' }])
    expect(reasoningText(m)).toBe('plan')
    expect(reasoningText(makeMessage({ role: 'assistant', parts: [thinking('opaque', { redacted: true })] }))).toBe('')
  })
})

describe('predicates', () => {
  it('role predicates', () => {
    const [s, u, a, t] = (['system', 'user', 'assistant', 'tool'] as const).map((r) => makeMessage({ role: r }))
    expect([s, u, a, t].map((m) => [hasRole('system')(m!), hasRole('user')(m!), hasRole('assistant')(m!), hasRole('tool')(m!)])).toEqual([
      [true, false, false, false],
      [false, true, false, false],
      [false, false, true, false],
      [false, false, false, true],
    ])
  })

  it('kind predicates, and internal = display | bookmark | metadata', () => {
    const kinds = ['normal', 'synthetic', 'ephemeral', 'display', 'bookmark', 'metadata'] as const
    const preds = kinds.map(hasKind)
    kinds.forEach((k, i) => preds.forEach((p, j) => expect(p(makeMessage({ role: 'user', kind: k }))).toBe(i === j)))
    expect(kinds.filter((k) => isInternal(makeMessage({ role: 'user', kind: k })))).toEqual(['display', 'bookmark', 'metadata'])
  })

  it('isEmpty: no content, thinking, calls, results or media', () => {
    expect(isEmpty(makeMessage({ role: 'assistant' }))).toBe(true)
    expect(isEmpty(makeMessage({ role: 'assistant', parts: [text(' \n'), finish('end_turn')] }))).toBe(true)
    expect(isEmpty(textMessage('assistant', 'x'))).toBe(false)
    expect(isEmpty(makeMessage({ role: 'assistant', parts: [thinking('t')] }))).toBe(false)
    expect(isEmpty(makeMessage({ role: 'assistant', parts: [toolCall({ id: '1', name: 'n' })] }))).toBe(false)
    expect(isEmpty(makeMessage({ role: 'user', parts: [image({ url: 'u' })] }))).toBe(false)
  })
})

describe('metadata (seed SetMeta, GetMeta)', () => {
  it('setMeta on a message without metadata creates it, and returns a new message', () => {
    const m = deepFreeze(textMessage('assistant', 'Hello!'))
    const m2 = setMeta('model', 'claude-sonnet-4-5')(m)
    expect(m2.metadata).toEqual({ model: 'claude-sonnet-4-5' })
    expect(m.metadata).toBeUndefined()
    expect(getMeta('model')(m2)).toEqual(O.some('claude-sonnet-4-5'))
    expect(getMeta('tokens')(setMeta('tokens', 12)(m2))).toEqual(O.some(12))
  })

  it('a missing key is none, inherited keys included', () => {
    const m = setMeta('a', 1)(textMessage('user', 'x'))
    expect(getMeta('b')(m)).toEqual(O.none)
    expect(getMeta('toString')(m)).toEqual(O.none)
    expect(getMeta('a')(textMessage('user', 'x'))).toEqual(O.none)
  })

  it('a __proto__ key is an own data property and pollutes nothing', () => {
    const m = setMeta('__proto__', { polluted: true })(textMessage('user', 'x'))
    expect(Object.keys(m.metadata ?? {})).toEqual(['__proto__'])
    expect(getMeta('__proto__')(m)).toEqual(O.some({ polluted: true }))
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
    expect(Object.getPrototypeOf(m.metadata)).toBe(Object.prototype)
  })
})

describe('parts editing (seed 004 AddPart, AddToolCall)', () => {
  const at = '2026-01-01T00:00:00.000Z'
  it('addPart appends and moves updatedAt, leaving the input alone', () => {
    const m = deepFreeze(textMessage('assistant', 'a', { updatedAt: '2025-01-01T00:00:00.000Z' }))
    const m2 = addPart(text('b'), at)(m)
    expect(textContent(m2)).toBe('ab')
    expect(m2.updatedAt).toBe(at)
    expect(m.parts).toHaveLength(1)
  })

  it('upsertToolCall replaces the call with the same id in place, else appends', () => {
    const m = deepFreeze(makeMessage({ role: 'assistant', parts: [text('x'), toolCall({ id: 'c1', name: 'ls', arguments: '{"pa' })] }))
    const m2 = upsertToolCall(toolCall({ id: 'c1', name: 'ls', arguments: '{"path":"."}', status: 'complete' }), at)(m)
    expect(m2.parts).toHaveLength(2)
    expect(toolCalls(m2)[0]?.arguments).toBe('{"path":"."}')
    expect(m2.updatedAt).toBe(at)
    const m3 = upsertToolCall(toolCall({ id: 'c2', name: 'cat' }), at)(m2)
    expect(toolCalls(m3).map((c) => c.id)).toEqual(['c1', 'c2'])
  })

  it('mapParts returns the message itself when the parts do not change', () => {
    const m = textMessage('user', 'x')
    expect(mapParts((ps) => ps)(m)).toBe(m)
    expect(mapParts((ps) => ps.filter(isText).concat([text('y')]))(m).parts).toHaveLength(2)
  })
})

describe('message codec', () => {
  const full: Message = {
    id: 'm1',
    role: 'assistant',
    kind: 'normal',
    sender: 'bot',
    conversationId: 'c',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:01Z',
    tokens: { total: 10, content: 4, thinking: 3, tools: 3 },
    model: 'm',
    provider: 'p',
    error: 'e',
    metadata: { a: [1, { b: null }] },
    parts: [text('hi'), image({ data: new Uint8Array([1, 2, 3]), mediaType: 'image/png' })],
  }

  it('round-trips every field, with images as base64 on the wire', () => {
    const wire = encodeMessage(full)
    expect(wire.parts[1]).toEqual({ type: 'image', data: { data: 'AQID', mediaType: 'image/png' } })
    expect(decodeMessage(JSON.parse(JSON.stringify(wire)))).toEqual(E.right(full))
  })

  it('a missing kind is normal', () => {
    expect(decodeMessage({ id: '1', role: 'user', parts: [] })).toEqual(E.right({ id: '1', role: 'user', parts: [], kind: 'normal' }))
  })

  it('lists every bad field by path', () => {
    const r = decodeMessages([
      { id: '1', role: 'user', parts: [] },
      { id: 2, role: 'bot', parts: [{ type: 'text', data: { text: 'ok' } }, { type: 'txt', data: {} }], createdAt: 'yesterday', tokens: { total: -1 } },
    ])
    if (E.isRight(r)) throw new Error('expected failure')
    const s = formatDecodeFailure(r.left)
    expect(s).toContain('[1].id: expected string, got 2')
    expect(s).toContain('[1].role: expected "system" | "user" | "assistant" | "tool", got "bot"')
    expect(s).toContain('[1].parts[1].type: expected "text" | "reasoning" | "image" | "file" | "tool_call" | "tool_result" | "finish" | "provider", got "txt"')
    expect(s).toContain('[1].createdAt: expected an ISO-8601 timestamp, got "yesterday"')
    expect(s).toContain('[1].tokens.total: expected a non-negative number, got -1')
    expect(s).not.toContain('[0]')
  })

  it('parseMessages throws TypeError for bad shapes and SyntaxError for bad JSON', () => {
    expect(() => parseMessages('[{"id":"1","role":"bot","parts":[]}]')).toThrow(TypeError)
    expect(() => parseMessages('[{"id":"1","role":"bot","parts":[]}]')).toThrow('Cannot decode messages: messages[0].role: expected "system"')
    expect(() => parseMessages('[{')).toThrow(SyntaxError)
    expect(() => parseMessages('[{')).toThrow(/^Cannot parse messages: /)
    expect(parseMessages('[{"id":"1","role":"user","parts":[{"type":"text","data":{"text":"hi"}}]}]')[0]?.parts).toEqual([text('hi')])
  })

  it('MessageEq compares structurally, bytes by value', () => {
    expect(MessageEq.equals(full, JSON.parse(JSON.stringify(full)) as Message)).toBe(false) // bytes became an object
    const r = decodeMessage(encodeMessage(full))
    expect(E.isRight(r) && MessageEq.equals(full, r.right)).toBe(true)
    expect(MessageEq.equals(full, { ...full, id: 'm2' })).toBe(false)
  })
})

describe('hostile input is data, never code', () => {
  it('__proto__ in JSON metadata stays an own key and pollutes no prototype', () => {
    const r = parseMessages('[{"id":"1","role":"user","parts":[],"metadata":{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}}]')
    const meta = r[0]?.metadata ?? {}
    expect(Object.prototype.hasOwnProperty.call(meta, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>)['admin']).toBeUndefined()
    expect(Object.getPrototypeOf(meta)).toBe(Object.prototype)
  })

  it('deeply nested metadata fails cleanly with its path, without throwing', () => {
    let deep: unknown = 1
    for (let i = 0; i < 10_000; i++) deep = { a: deep }
    const r = decodeMessage({ id: '1', role: 'user', parts: [], metadata: { deep } })
    if (E.isRight(r)) throw new Error('expected failure')
    expect(r.left[0]?.path).toMatch(/^metadata\.deep(\.a)+$/)
    expect(r.left[0]?.expected).toMatch(/nested at most 64 levels/)
  })

  it('deeply nested JSON text fails as a SyntaxError or TypeError, never a crash', () => {
    const json = `[{"id":"1","role":"user","parts":[],"metadata":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}]`
    expect(() => parseMessages(json)).toThrow(/^Cannot (parse|decode) messages/)
  })

  it('cycles, functions, NaN and class instances in metadata are rejected by path', () => {
    const cyc: Record<string, unknown> = {}
    cyc['self'] = cyc
    const cases: Array<[unknown, RegExp]> = [
      [{ cyc }, /metadata\.cyc\.self: expected JSON without cycles/],
      [{ f: () => 1 }, /metadata\.f: expected a JSON value/],
      [{ n: Number.NaN }, /metadata\.n: expected a finite number/],
      [{ d: new Date(0) }, /metadata\.d: expected a plain object/],
    ]
    for (const [metadata, re] of cases) {
      const r = decodeMessage({ id: '1', role: 'user', parts: [], metadata })
      expect(E.isLeft(r) && formatDecodeFailure(r.left)).toMatch(re)
    }
  })

  it('a huge history decodes, and a huge bad one reports without throwing', () => {
    const ms = Array.from({ length: 20_000 }, (_, i) => ({ id: String(i), role: 'user', parts: [{ type: 'text', data: { text: 'x'.repeat(50) } }] }))
    expect(E.isRight(decodeMessages(ms))).toBe(true)
    const bad = ms.map((m) => ({ ...m, role: 'bot' }))
    const r = decodeMessages(bad)
    expect(E.isLeft(r) && r.left.length).toBe(20_000)
  })

  it('non-objects at every level are Lefts', () => {
    for (const u of [null, 1, 'x', {}, [null], [1], [[]], [{ id: '1', role: 'user', parts: null }], [{ id: '1', role: 'user', parts: [null] }]]) {
      expect(E.isLeft(decodeMessages(u))).toBe(true)
    }
  })
})
