import { describe, expect, it } from 'vitest'
import { toolResultText } from '../../src/message/tool-result-content.ts'
import fc from 'fast-check'
import { render, renderMarkdown, renderMarkdownWith, renderTranscriptLines } from '../../src/history/render.ts'
import { conversationArb, deepFreeze, messagesArb } from '../support/arbitraries.ts'
import type { Message } from '../../src/message/message.ts'

/** Text full of fence characters, newlines and Markdown punctuation. */
const nastyArb = fc.string({ unit: fc.constantFrom('`', '`', '~', '\n', ' ', 'a', '#', '>', '-', '<!--', '-->'), maxLength: 60 })

const nastyHistoryArb = fc
  .array(fc.tuple(nastyArb, nastyArb, nastyArb), { maxLength: 5 })
  .map((rows) =>
    deepFreeze(
      rows.flatMap(([say, args, out], i): Message[] => [
        { id: `u${i}`, role: 'user', kind: 'normal', parts: [{ type: 'text', text: say }] },
        {
          id: `a${i}`,
          role: 'assistant',
          kind: 'normal',
          parts: [{ type: 'text', text: say }, { type: 'reasoning', text: out }, {
            type: 'tool_call',
            id: `c${i}`,
            name: 'bash',
            arguments: args,
            status: 'complete',
          }],
        },
        { id: `t${i}`, role: 'tool', kind: 'normal', parts: [{ type: 'tool_result', toolCallId: `c${i}`, content: out, isError: false }] },
        { id: `z${i}`, role: 'tool', kind: 'normal', parts: [{ type: 'tool_result', toolCallId: `orphan${i}`, content: args, isError: false }] },
      ]),
    )
  )

/**
 * CommonMark's HTML blocks 1 to 5 (`<pre>`…, comments, `<?`, `<!X`, CDATA): from a line that
 * starts one to the first line holding its end marker, nothing in them is a fence.
 */
const HTML_BLOCKS: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [/^ {0,3}<(?:pre|script|style|textarea)(?:\s|>|$)/i, /<\/(?:pre|script|style|textarea)>/i],
  [/^ {0,3}<!--/, /-->/],
  [/^ {0,3}<\?/, /\?>/],
  [/^ {0,3}<![A-Za-z]/, />/],
  [/^ {0,3}<!\[CDATA\[/, /\]\]>/],
]

/** The top-level code blocks of a Markdown document, and whether one was left open. */
const codeBlocks = (md: string): { readonly blocks: string[]; readonly open: boolean } => {
  const blocks: string[] = []
  let open: { ch: string; len: number; body: string[] } | undefined
  let html: RegExp | undefined // the end marker of the HTML block the line is in
  for (const line of md.split('\n')) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line)
    if (open === undefined) {
      if (html !== undefined) {
        if (html.test(line)) html = undefined
        continue
      }
      if (m !== null && !(m[1]?.[0] === '`' && (m[2] ?? '').includes('`'))) {
        open = { ch: m[1]?.[0] ?? '`', len: m[1]?.length ?? 3, body: [] }
        continue
      }
      const block = HTML_BLOCKS.find(([start]) => start.test(line))
      if (block !== undefined && !block[1].test(line.slice(line.indexOf('<') + 2))) html = block[1]
    } else if (m !== null && m[1]?.[0] === open.ch && (m[1]?.length ?? 0) >= open.len && (m[2] ?? '').trim() === '') {
      blocks.push(open.body.join('\n'))
      open = undefined
    } else open.body.push(line)
  }
  return { blocks, open: open !== undefined }
}

describe('rendering laws', () => {
  it('Markdown: every block closes, and every tool result is a code block of its own', () => {
    fc.assert(
      fc.property(fc.oneof(nastyHistoryArb, messagesArb, conversationArb), fc.constantFrom('omit' as const, 'include' as const), (h, reasoning) => {
        const { blocks, open } = codeBlocks(renderMarkdownWith({ reasoning })(h))
        expect(open).toBe(false)
        for (const m of h) {
          if (m.kind === 'metadata' || m.kind === 'bookmark') continue
          for (const p of m.parts) if (p.type === 'tool_result') expect(blocks).toContain(toolResultText(p).trim())
        }
      }),
      { numRuns: 200 },
    )
  })

  it('Markdown: each message heading stays outside code blocks', () => {
    fc.assert(
      fc.property(nastyHistoryArb, (h) => {
        const md = renderMarkdown(h)
        const { blocks } = codeBlocks(md)
        const headings = md.split('\n').filter((l) => l === '## User').length
        expect(headings - blocks.filter((b) => b.split('\n').includes('## User')).length).toBeGreaterThanOrEqual(h.filter((m) => m.role === 'user').length)
      }),
      { numRuns: 150 },
    )
  })

  it('plain text and transcripts never throw and leave out metadata', () => {
    fc.assert(
      fc.property(messagesArb, (h) => {
        expect(typeof render(h)).toBe('string')
        for (const m of h) if (m.kind === 'metadata') expect(renderTranscriptLines(m)).toBe('')
      }),
      { numRuns: 100 },
    )
  })
})
