import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { renderMarkdownWith } from '../../src/history/render.ts'
import { msg, think, txt } from './fixtures.ts'

/** Lines that make Markdown headings, fences, lists, quotes and rules, and plain text (HTML blocks apart: the checker below does not read them). */
const line = fc.constantFrom(
  '# Title',
  '## Sub',
  '###### Deep',
  'Text',
  'more text',
  '===',
  '---',
  '- item',
  '> quote',
  '```',
  '~~~',
  '    # code',
  '',
  '#tag',
  '1. one',
)
const text = fc.array(line, { maxLength: 12 }).map((ls) => ls.join('\n'))

/** Headings of a Markdown document outside code blocks, as CommonMark reads ATX headings (levels). */
const headingLevels = (md: string): number[] => {
  const out: number[] = []
  let fence: string | undefined
  for (const l of md.split('\n')) {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(l)
    if (fence !== undefined) {
      if (f !== null && (f[1] as string)[0] === fence[0] && (f[1] as string).length >= fence.length && l.trim() === f[1]) fence = undefined
      continue
    }
    if (f !== null) {
      fence = f[1]
      continue
    }
    const h = /^ {0,3}(#{1,6})(?:[ \t]|$)/.exec(l)
    if (h !== null) out.push((h[1] as string).length)
  }
  return out
}

describe('renderMarkdown keeps every heading of a message below its own sections', () => {
  it('the only level-1 and level-2 headings are the message sections', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text), { minLength: 1, maxLength: 4 }), (pairs) => {
        const ms = pairs.map(([t, r], i) => msg(`m${i}`, i % 2 === 0 ? 'user' : 'assistant', [think(r), txt(t === '' ? 'x' : t)]))
        const md = renderMarkdownWith({ reasoning: 'include' })(ms)
        expect(headingLevels(md).filter((n) => n <= 2)).toEqual(ms.map(() => 2))
      }),
      { numRuns: 300 },
    )
  })
})
