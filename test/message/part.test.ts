import { afterEach, describe, expect, it } from 'vitest'
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import {
  file,
  finish,
  image,
  isFile,
  isFinish,
  isFinished,
  isImage,
  isReasoning,
  isText,
  isToolCall,
  isToolResult,
  reasoning,
  text,
  toolCall,
  toolResult,
} from '../../src/message/part-make.ts'
import { type Part } from '../../src/message/part-model.ts'
import { decodePart, encodePart, isBuiltinPart, marshalParts, PartC, partTypes, registerPart, unmarshalParts } from '../../src/message/part-registry.ts'
import { formatDecodeFailure } from '../../src/message/failure.ts'

const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10])

describe('part constructors', () => {
  it('each part reports its kind string (seed PartKind)', () => {
    const parts: Part[] = [
      text('hi'),
      reasoning('hmm'),
      image({ url: 'https://example.com/a.png' }),
      file({ url: 'https://example.com/a.mp3', mediaType: 'audio/mpeg' }),
      toolCall({ id: 'c1', name: 'ls' }),
      toolResult({ toolCallId: 'c1', content: 'a b' }),
      finish('end_turn'),
    ]
    expect(parts.map((p) => p.type)).toEqual(['text', 'reasoning', 'image', 'file', 'tool_call', 'tool_result', 'finish'])
  })

  it('a tool call keeps its raw JSON arguments and starts pending', () => {
    const c = toolCall({ id: 'call_1', name: 'search', arguments: '{"q":"golang"}' })
    expect(c).toEqual({ type: 'tool_call', id: 'call_1', name: 'search', arguments: '{"q":"golang"}', status: 'pending' })
    expect(isFinished(c)).toBe(false)
    expect(isFinished({ ...c, status: 'complete' })).toBe(true)
    expect(isFinished({ ...c, status: 'error' })).toBe(true)
    expect(isFinished({ ...c, status: 'running' })).toBe(false)
    expect(toolCall({ id: 'x', name: 'y' }).arguments).toBe('{}')
  })

  it('a tool result defaults to not an error and omits an absent name', () => {
    expect(toolResult({ toolCallId: 'c1', content: 'ok' })).toEqual({ type: 'tool_result', toolCallId: 'c1', content: 'ok', isError: false })
    expect(toolResult({ toolCallId: 'c1', content: 'no', name: 'ls', isError: true }).isError).toBe(true)
  })

  it('reasoning keeps its signature and redacted flag', () => {
    expect(reasoning('x', { signature: 'sig', redacted: true })).toEqual({ type: 'reasoning', text: 'x', signature: 'sig', redacted: true })
  })

  it('refinements pick exactly their own type', () => {
    const guards = [isText, isReasoning, isImage, isFile, isToolCall, isToolResult, isFinish]
    const parts: Part[] = [
      text(''),
      reasoning(''),
      image({ data: png }),
      file({ data: png, mediaType: 'application/pdf' }),
      toolCall({ id: '1', name: 'n' }),
      toolResult({ toolCallId: '1', content: '' }),
      finish('x'),
    ]
    guards.forEach((g, i) => parts.forEach((p, j) => expect(g(p)).toBe(i === j)))
    expect(parts.every(isBuiltinPart)).toBe(true)
  })
})

describe('part codec', () => {
  it('encodes to the tagged wire form with base64 bytes', () => {
    expect(encodePart(text('hi'))).toEqual({ type: 'text', data: { text: 'hi' } })
    expect(encodePart(image({ data: png, mediaType: 'image/png' }))).toEqual({ type: 'image', data: { data: 'iVBORw0KGgo=', mediaType: 'image/png' } })
  })

  it('decodes the tagged and the flat form alike', () => {
    expect(decodePart({ type: 'text', data: { text: 'hi' } })).toEqual(E.right(text('hi')))
    expect(decodePart({ type: 'text', text: 'hi' })).toEqual(E.right(text('hi')))
    expect(decodePart({ type: 'image', data: { data: 'iVBORw0KGgo=' } })).toEqual(E.right({ type: 'image', data: png }))
  })

  it('fills wire defaults: a call without status is complete, a result without isError is not an error', () => {
    expect(decodePart({ type: 'tool_call', data: { id: '1', name: 'ls', arguments: '{}' } })).toEqual(
      E.right({ type: 'tool_call', id: '1', name: 'ls', arguments: '{}', status: 'complete' }),
    )
    expect(decodePart({ type: 'tool_result', data: { toolCallId: '1', content: 'x' } })).toEqual(
      E.right({ type: 'tool_result', toolCallId: '1', content: 'x', isError: false }),
    )
  })

  it('drops unknown fields instead of carrying them along', () => {
    expect(decodePart({ type: 'text', data: { text: 'hi', evil: 1 } })).toEqual(E.right(text('hi')))
  })

  it('names an unknown type and lists the accepted ones', () => {
    const r = decodePart({ type: 'txt', data: { text: 'hi' } })
    if (E.isRight(r)) throw new Error('expected failure')
    expect(formatDecodeFailure(r.left)).toBe(
      'type: expected "text" | "reasoning" | "image" | "file" | "tool_call" | "tool_result" | "finish" | "provider", got "txt"',
    )
  })

  it('reports bad fields inside the tagged data by path', () => {
    const r = decodePart({ type: 'tool_call', data: { id: 1, name: 'ls', arguments: '{}', status: 'done' } })
    if (E.isRight(r)) throw new Error('expected failure')
    const s = formatDecodeFailure(r.left)
    expect(s).toContain('data.id: expected string, got 1')
    expect(s).toContain('data.status: expected "pending" | "running" | "complete" | "error", got "done"')
  })

  it('rejects an image with neither url nor data, and bad base64', () => {
    expect(E.isLeft(decodePart({ type: 'image', data: {} }))).toBe(true)
    expect(E.isLeft(decodePart({ type: 'image', data: { data: 'not base64!' } }))).toBe(true)
    expect(E.isLeft(decodePart({ type: 'image', data: { data: 'AAA' } }))).toBe(true)
  })

  it('never throws on hostile values', () => {
    for (const u of [null, undefined, 1, 'x', [], { type: null }, { type: {} }, { type: 'text', data: null }, Object.create(null)]) {
      expect(E.isLeft(decodePart(u))).toBe(true)
    }
  })

  it('marshalParts/unmarshalParts round-trip (seed 004)', () => {
    const parts: Part[] = [
      text('a'),
      reasoning('b', { signature: 's' }),
      image({ data: png, mediaType: 'image/png' }),
      toolCall({ id: '1', name: 'n', arguments: '{"a":1}', status: 'complete' }),
      finish('tool_use'),
    ]
    const json = marshalParts(parts)
    expect(JSON.parse(json)[0]).toEqual({ type: 'text', data: { text: 'a' } })
    expect(unmarshalParts(json)).toEqual(E.right(parts))
  })

  it('unmarshalParts reports bad JSON as a Left', () => {
    expect(E.isLeft(unmarshalParts('[{'))).toBe(true)
  })

  it('chatfold/message exports the type-tagged wire format: every part type round-trips through it', async () => {
    const entry = await import('../../src/message/mod.ts')
    const parts: Part[] = [
      text('a'),
      reasoning('b', { signature: 's' }),
      image({ data: png, mediaType: 'image/png' }),
      file({ url: 'https://example.com/a.pdf', mediaType: 'application/pdf' }),
      toolCall({ id: '1', name: 'n', arguments: '{"a":1}', status: 'complete' }),
      toolResult({ toolCallId: '1', content: 'ok' }),
      finish('tool_use'),
    ]
    const json = entry.marshalParts(parts)
    // each part as {"type": …, "data": {…}}, bytes as base64
    expect(JSON.parse(json)).toEqual(parts.map((p) => ({ type: p.type, data: expect.any(Object) })))
    expect(JSON.parse(json)[2]).toEqual({ type: 'image', data: { data: 'iVBORw0KGgo=', mediaType: 'image/png' } })
    expect(entry.unmarshalParts(json)).toEqual(E.right(parts))
    const bad = entry.unmarshalParts('[{"type":"text","data":{"text":1}}]')
    expect(E.isLeft(bad) && formatDecodeFailure(bad.left)).toMatch(/^\[0\]\.data\.text: expected string/)
  })
})

describe('custom parts (seed 000 Audio)', () => {
  type Audio = { readonly type: 'audio'; readonly url: string; readonly durationMs: number }
  const AudioC = t.readonly(t.exact(t.type({ type: t.literal('audio'), url: t.string, durationMs: t.number })))
  let unregister: (() => void) | undefined
  afterEach(() => unregister?.())

  it('an unregistered type is a decode error that names it', () => {
    const r = decodePart({ type: 'audio', data: { url: 'a.mp3', durationMs: 1 } })
    if (E.isRight(r)) throw new Error('expected failure')
    expect(r.left[0]?.path).toBe('type')
    expect(r.left[0]?.actual).toBe('audio')
  })

  it('once registered it decodes, encodes and round-trips like a built-in part', () => {
    unregister = registerPart({ type: 'audio', codec: AudioC })
    expect(partTypes()).toContain('audio')
    const audio: Audio = { type: 'audio', url: 'https://example.com/a.mp3', durationMs: 1500 }
    const wire = PartC.encode(audio as unknown as Part)
    expect(wire).toEqual({ type: 'audio', data: { url: 'https://example.com/a.mp3', durationMs: 1500 } })
    expect(decodePart(wire)).toEqual(E.right(audio))
    expect(unmarshalParts(marshalParts([text('x'), audio as unknown as Part]))).toEqual(E.right([text('x'), audio]))
    expect(isBuiltinPart(audio as unknown as Part)).toBe(false)
    expect(E.isLeft(decodePart({ type: 'audio', data: { url: 1 } }))).toBe(true)
    unregister()
    unregister = undefined
    expect(E.isLeft(decodePart(wire))).toBe(true)
  })

  it('refuses to replace a built-in type or register one twice', () => {
    expect(() => registerPart({ type: 'text', codec: AudioC as never })).toThrow(TypeError)
    unregister = registerPart({ type: 'audio', codec: AudioC })
    expect(() => registerPart({ type: 'audio', codec: AudioC })).toThrow(/registered already/)
  })
})
