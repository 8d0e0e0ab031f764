import { describe, expect, it } from 'vitest'
import { parsePartialJSON, partialArguments } from '../../src/builder/partial-json.ts'
import { toolCall } from '../../src/message/part-make.ts'

describe('parsePartialJSON', () => {
  it.each(
    [
      ['{"path":"src/ma', { path: 'src/ma' }],
      ['{"a":1,"b', { a: 1 }],
      ['{"a":1,"b"', { a: 1 }],
      ['{"a":1,"b":', { a: 1 }],
      ['{"a":1,"b": ', { a: 1 }],
      ['{"a":1,', { a: 1 }],
      ['{', {}],
      ['[', []],
      ['[1,2,', [1, 2]],
      ['[1,[2,[3', [1, [2, [3]]]],
      ['{"a":[1,2,{"b":tr', { a: [1, 2, { b: true }] }],
      ['{"a":fal', { a: false }],
      ['{"a":n', { a: null }],
      ['{"n":12', { n: 12 }],
      ['{"n":-1.', { n: -1 }],
      ['{"n":2e', { n: 2 }],
      ['{"n":2.5e-', { n: 2.5 }],
      ['[1, -', [1]],
      ['"abc', 'abc'],
      ['"a\\', 'a'],
      ['"a\\n', 'a\n'],
      ['"\\u00', ''],
      ['"\\u00e9', 'é'],
      ['"a\\\\', 'a\\'], // an escaped backslash at the end is complete
      ['"\\\\u00', '\\u00'], // a literal \u00, not an escape
      ['"ab\\u0', 'ab'],
      ['{"q":"say \\"hi', { q: 'say "hi' }],
      ['  {"a" : { "b" : [ "c" ', { a: { b: ['c'] } }],
      ['12', 12],
      ['true', true],
    ] as const,
  )('%s', (text, expected) => {
    expect(parsePartialJSON(text)).toEqual(expected)
  })

  it('parses complete JSON as JSON.parse does', () => {
    const s = JSON.stringify({ a: [1, 2.5, -3e-7, true, false, null, 'x\u0000y\n"z"'], b: { c: {} }, 'é': '日本' })
    expect(parsePartialJSON(s)).toEqual(JSON.parse(s))
  })

  it('keeps __proto__ as an ordinary key', () => {
    const v = parsePartialJSON('{"__proto__":{"polluted":1},"b')
    expect(Object.keys(v as object)).toEqual(['__proto__'])
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
  })

  it.each(['', '   ', '-', 'x', '{x', '{"a" 1', '[1 2]', '{"a":1}x', '01', '{"a":1,,', 'nul1', '[1,]x'])(
    'is undefined when there is nothing, or no continuation could make %j valid',
    (text) => {
      expect(parsePartialJSON(text)).toBeUndefined()
    },
  )

  it('does not throw on very deep nesting', () => {
    expect(() => parsePartialJSON('['.repeat(100_000))).not.toThrow()
  })
})

describe('partialArguments', () => {
  it("reads a call's arguments as far as they have streamed", () => {
    expect(partialArguments(toolCall({ id: 'c', name: 'read', arguments: '{"path":"READ' }))).toEqual({ path: 'READ' })
    expect(partialArguments(toolCall({ id: 'c', name: 'read', arguments: '' }))).toBeUndefined()
  })
})
