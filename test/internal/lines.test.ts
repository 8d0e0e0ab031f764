/**
 * The JSONL line reader every reader of chatfold JSONL shares: the same lines, numbered the same,
 * whether the text comes whole or cut anywhere into chunks (a stream, a file read a piece at a time).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonlLines, jsonlSplitter } from '../../src/internal/lines.ts'

/** The lines of `text` given to a splitter in the chunks that `cuts` (sorted positions) make. */
const inChunks = (text: string, cuts: ReadonlyArray<number>) => {
  const split = jsonlSplitter()
  const out = []
  let from = 0
  for (const at of [...cuts, text.length]) {
    out.push(...split.push(text.slice(from, at)))
    from = at
  }
  return [...out, ...split.end()]
}

describe('JSONL lines', () => {
  it('skips a byte-order mark first, drops \\r before \\n, leaves blank lines out and numbers the rest among all lines', () => {
    expect(jsonlLines('\uFEFF{"a":1}\r\n\r\n  \n{"b":2}\n')).toEqual([
      { text: '{"a":1}', n: 1 },
      { text: '{"b":2}', n: 4 },
    ])
    expect(jsonlLines('')).toEqual([])
    expect(jsonlLines('x')).toEqual([{ text: 'x', n: 1 }])
    // a byte-order mark after the start is text like any other
    expect(jsonlLines('a\n\uFEFFb')).toEqual([{ text: 'a', n: 1 }, { text: '\uFEFFb', n: 2 }])
  })

  it('gives the same lines whatever chunks the text comes in', () => {
    const text = fc.array(fc.constantFrom('{"a":1}', 'é', '😀', '\r', '\n', '\r\n', ' ', '\uFEFF', 'x'), { maxLength: 60 }).map((xs) => xs.join(''))
    fc.assert(
      fc.property(
        text.chain((t) => fc.tuple(fc.constant(t), fc.uniqueArray(fc.integer({ min: 0, max: t.length }), { maxLength: 8 }))),
        ([t, cuts]) => {
          expect(inChunks(t, [...cuts].sort((a, b) => a - b))).toEqual(jsonlLines(t))
        },
      ),
      { numRuns: 500 },
    )
  })
})
