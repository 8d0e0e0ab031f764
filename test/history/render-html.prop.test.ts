import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message } from '../../src/message/message.ts'
import { renderHtmlWith } from '../../src/history/render-html.ts'
import { all, tree } from '../support/html-tree.ts'

/** Every tag the page may have. */
const TAGS = new Set([
  'html',
  'head',
  'meta',
  'title',
  'style',
  'body',
  'header',
  'h1',
  'p',
  'main',
  'section',
  'div',
  'article',
  'span',
  'time',
  'details',
  'summary',
  'pre',
  'code',
  'strong',
  'img',
  'a',
])
const NASTY = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "'; background:url(http://x)",
  '</details></main><script>',
  '&amp;',
  '<!--',
  ']]>',
  'javascript:alert(1)',
  '\u2028',
  '# Title',
]
const str = fc.oneof(fc.string(), fc.constantFrom(...NASTY), fc.string({ unit: fc.constantFrom('<', '>', '&', '"', "'", 'a', '\n', '/') }))

const history = fc.array(
  fc.record({
    id: str,
    role: fc.constantFrom('system', 'user', 'assistant', 'tool'),
    kind: fc.constantFrom('normal', 'synthetic', 'ephemeral', 'display', 'bookmark', 'metadata'),
    text: str,
    call: fc.option(fc.record({ id: str, name: str, arguments: str })),
    result: fc.option(fc.record({ toolCallId: str, name: str, content: str, isError: fc.boolean() })),
    model: fc.option(str),
    origin: fc.option(str),
    sub: fc.option(fc.record({ toolCallId: str, agentId: str })),
    image: fc.option(fc.record({ url: str, mediaType: str })),
  }),
  { maxLength: 8 },
)

type Drawn = typeof history extends fc.Arbitrary<infer A> ? A : never

const toMessages = (xs: Drawn): Message[] =>
  xs.map((x): Message => ({
    id: x.id,
    role: x.role,
    kind: x.kind,
    parts: [
      { type: 'text', text: x.text },
      ...(x.call === null ? [] : [{ type: 'tool_call' as const, ...x.call, status: 'complete' as const }]),
      ...(x.result === null ? [] : [{ type: 'tool_result' as const, ...x.result }]),
      ...(x.image === null ? [] : [{ type: 'image' as const, ...x.image }]),
    ],
    ...(x.model === null ? {} : { model: x.model }),
    ...(x.origin === null && x.sub === null
      ? {}
      : { metadata: { ...(x.origin === null ? {} : { origin: x.origin }), ...(x.sub === null ? {} : { subagent: x.sub }) } }),
  }))

describe('renderHtml on any history', () => {
  it('writes a well-formed page of its own tags only, whatever the history holds', () => {
    fc.assert(
      fc.property(history, str, (xs, title) => {
        const page = renderHtmlWith({ title })(toMessages(xs))
        const doc = tree(page)
        const tags = new Set(all(doc, () => true).map((n) => n.tag))
        tags.delete('#root')
        expect([...tags].filter((t) => !TAGS.has(t))).toEqual([])
        // no attribute the page does not write (an event handler would be one)
        const ATTRS = ['lang', 'charset', 'name', 'content', 'http-equiv', 'class', 'id', 'datetime', 'title', 'alt', 'src', 'href', 'rel', 'open']
        expect(all(doc, () => true).flatMap((n) => Object.keys(n.attrs)).filter((a) => !ATTRS.includes(a))).toEqual([])
        for (const img of all(doc, (n) => n.tag === 'img')) expect(img.attrs['src']).toMatch(/^data:image\//)
        expect(all(doc, (n) => n.tag === 'style')).toHaveLength(1)
        // nothing is lost: every word of a text (whose Markdown marks may become tags), and every
        // result as it is, of each message that is not metadata, shows
        const main = all(doc, (n) => n.tag === 'main')[0]
        const shown = `${main?.text ?? ''} ${all(main ?? doc, (n) => n.attrs['title'] !== undefined).map((n) => n.attrs['title']).join(' ')}`
        const esc = (s: string) => s.trim().replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')
        for (const x of xs) {
          if (x.kind === 'metadata') continue
          for (const word of x.text.match(/[\p{L}\p{N}]+/gu) ?? []) expect(shown).toContain(word)
          if (x.result !== null && x.kind !== 'bookmark') expect(shown).toContain(esc(x.result.content)) // a bookmark is its label
        }
      }),
      { numRuns: 200 },
    )
  })
})
