import { describe, expect, it } from 'vitest'
import { renderHtml, renderHtmlWith } from '../../src/history/render-html.ts'
import { makeMessage, textMessage } from '../../src/message/message.ts'
import { text, toolCall, toolResult } from '../../src/message/part-make.ts'
import { PNG_BASE64, recordedHistory } from '../support/recorded-history.ts'
import { all, type Node, tree } from '../support/html-tree.ts'

const byId = (n: Node, id: string): Node => {
  const found = all(n, (x) => x.attrs['id'] === id)
  expect({ id, found: found.length }).toEqual({ id, found: 1 })
  return found[0] as Node
}
const hasClass = (c: string) => (x: Node) => (x.attrs['class'] ?? '').split(' ').includes(c)

describe('renderHtml', () => {
  const page = renderHtmlWith({ title: 'Cart <fix>' })(recordedHistory())
  const doc = tree(page)

  it('is one page that loads nothing: inline style, no script, a policy that forbids the network, images as data: URLs', () => {
    expect(all(doc, (x) => x.tag === 'script' || x.tag === 'link' || x.tag === 'iframe')).toEqual([])
    expect(page).not.toMatch(/@import|url\(|https?:\/\/(?!www\.w3\.org)/)
    const csp = all(doc, (x) => x.tag === 'meta' && x.attrs['http-equiv'] === 'Content-Security-Policy')
    expect(csp[0]?.attrs['content']).toBe("default-src 'none'; img-src data:; style-src 'unsafe-inline'")
    const imgs = all(doc, (x) => x.tag === 'img')
    expect(imgs.map((i) => i.attrs['src'])).toEqual([`data:image/png;base64,${PNG_BASE64}`])
  })

  it('escapes what the history holds: a <script> in a message is text', () => {
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;')
    expect(byId(doc, 'm-u1').text).toContain('&lt;script&gt;')
    expect(all(doc, (x) => x.tag === 'title')[0]?.text).toBe('Cart &lt;fix&gt;')
  })

  it('folds each tool call with its arguments and result, and drops the tool messages it showed', () => {
    const read = byId(doc, 'call-toolu_read')
    expect(read.tag).toBe('details')
    expect(read.attrs['open']).toBeUndefined()
    expect(read.text).toContain('Math.round(l.price * l.qty')
    expect(read.text).toContain('&quot;file_path&quot;: &quot;src/cart.ts&quot;')
    expect(all(doc, (x) => x.attrs['id'] === 'm-t1')).toEqual([])
    const bash = byId(doc, 'call-toolu_bash')
    expect(all(bash, hasClass('error')).length).toBeGreaterThan(0)
  })

  it('nests a sub-conversation under the call that started it, with its own calls folded inside', () => {
    const task = byId(doc, 'call-toolu_task')
    const [sub] = all(task, hasClass('subagent'))
    expect(sub?.tag).toBe('details')
    expect(all(sub as Node, (x) => x.attrs['id'] !== undefined).map((x) => x.attrs['id'])).toEqual(['m-s1', 'm-s2', 'call-toolu_grep', 'm-s4'])
    expect(byId(sub as Node, 'call-toolu_grep').text).toContain('src/invoice.ts:14')
    // and nowhere else
    const main = all(doc, (x) => x.tag === 'main')[0] as Node
    expect(main.children.flatMap((c) => all(c, (x) => x.attrs['id'] === 'm-s2'))).toHaveLength(1)
  })

  it('shows turns, times and models; folds reasoning and injected messages; marks the compaction', () => {
    expect(all(doc, hasClass('turn')).map((t) => t.attrs['id'])).toEqual(['turn-1', 'turn-2'])
    const a1 = byId(doc, 'm-a1')
    expect(all(a1, hasClass('model'))[0]?.text).toBe('claude-sonnet-4-5')
    expect(all(a1, (x) => x.tag === 'time')[0]?.attrs['datetime']).toBe('2026-03-02T10:00:09.000Z')
    expect(all(a1, hasClass('thinking'))[0]?.tag).toBe('details')
    expect(all(a1, hasClass('usage'))[0]?.text).toBe('in 4 · out 96 · cache write 5,210')
    const rem = byId(doc, 'm-rem')
    expect([rem.tag, rem.attrs['class']]).toEqual(['details', 'injected'])
    const sum = byId(doc, 'm-sum')
    expect(sum.attrs['class']).toBe('compaction')
    expect(sum.text).toContain('11 earlier messages summarised')
  })

  it("shows a message's headings as bold lines, never as the page's: the title is the only heading", () => {
    expect(all(doc, (x) => /^h[1-6]$/.test(x.tag)).map((x) => x.text)).toEqual(['Cart &lt;fix&gt;'])
    expect(all(byId(doc, 'm-a3'), (x) => x.tag === 'strong').map((x) => [x.attrs['class'], x.text])).toEqual([
      ['h', 'Cause'],
      [undefined, 'per line'],
      ['h', 'Fix'],
    ])
  })

  it('shows code fences, inline code and bold of a message, escaped, and leaves tool output as it is', () => {
    const d = tree(
      renderHtml([
        textMessage('assistant', 'Run `npm test <x>` **now**\n```ts\nconst a = 1 < 2 // **no**\n```\nafter', { id: 'a' }),
        makeMessage({ id: 'b', role: 'assistant', parts: [toolCall({ id: 'c', name: 'cat', status: 'complete' })] }),
        makeMessage({ id: 't', role: 'tool', parts: [toolResult({ toolCallId: 'c', content: '# not a heading **nor bold**' })] }),
        textMessage('user', '```\nnever closed <b>', { id: 'u' }),
      ]),
    )
    const a = byId(d, 'm-a')
    expect(all(a, (x) => x.tag === 'code').map((x) => x.text)).toEqual(['npm test &lt;x&gt;'])
    expect(all(a, (x) => x.tag === 'strong').map((x) => x.text)).toEqual(['now'])
    expect(all(a, (x) => x.tag === 'pre').map((x) => [x.attrs['title'], x.text])).toEqual([['ts', 'const a = 1 &lt; 2 // **no**']])
    expect(all(byId(d, 'call-c'), (x) => x.tag === 'pre').map((x) => x.text)).toContain('# not a heading **nor bold**')
    expect(all(byId(d, 'm-u'), (x) => x.tag === 'pre').map((x) => x.text)).toEqual(['never closed &lt;b&gt;'])
  })

  it('shows a result without a call, a sub-conversation without its call, and a remote image as a link', () => {
    const ms = [
      makeMessage({ id: 'u', role: 'user', parts: [text('see'), { type: 'image', url: 'https://x.test/a.png"><script>' }] }),
      makeMessage({ id: 't', role: 'tool', parts: [toolResult({ toolCallId: 'gone', name: 'ls', content: 'README.md' })] }),
      makeMessage({ id: 's', role: 'assistant', kind: 'display', parts: [text('from elsewhere')], metadata: { subagent: { toolCallId: 'nowhere' } } }),
      makeMessage({ id: 'a', role: 'assistant', parts: [toolCall({ id: 'c1', name: 'ls', status: 'complete' })] }),
    ]
    const d = tree(renderHtml(ms))
    expect(all(d, (x) => x.tag === 'img')).toEqual([])
    expect(all(d, (x) => x.tag === 'a')[0]?.attrs['href']).toBe('https://x.test/a.png&quot;&gt;&lt;script&gt;')
    expect(byId(d, 'm-t').text).toContain('README.md')
    expect(all(d, hasClass('subagent'))[0]?.text).toContain('from elsewhere')
    expect(byId(d, 'call-c1').text).toContain('no result')
  })

  it('shows results a user message carries under their call, and starts no turn there', () => {
    const d = tree(
      renderHtml([
        textMessage('user', 'List', { id: 'u' }),
        makeMessage({ id: 'a', role: 'assistant', parts: [toolCall({ id: 'c1', name: 'ls', status: 'complete' })] }),
        makeMessage({ id: 'r', role: 'user', parts: [toolResult({ toolCallId: 'c1', content: 'README.md' })] }),
      ]),
    )
    expect(all(d, hasClass('turn'))).toHaveLength(1)
    expect(all(d, (x) => x.attrs['id'] === 'm-r')).toEqual([])
    expect(byId(d, 'call-c1').text).toContain('README.md')
  })

  it('renders an empty history as a page with no turn', () => {
    const d = tree(renderHtml([]))
    expect(all(d, hasClass('turn'))).toEqual([])
    expect(renderHtml([textMessage('user', 'hi')])).toContain('1 message · 1 turn')
  })
})

describe('renderHtml of a tool result with an image', () => {
  it('shows the image where it stands among the result text', () => {
    const h = [
      makeMessage({ id: 'a1', role: 'assistant', parts: [toolCall({ id: 'c1', name: 'screenshot', status: 'complete' })] }),
      makeMessage({
        id: 't1',
        role: 'tool',
        parts: [
          toolResult({
            toolCallId: 'c1',
            content: [text('The page'), { type: 'image', data: Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0)), mediaType: 'image/png' }],
          }),
        ],
      }),
    ]
    const doc = tree(renderHtml(h))
    const shot = all(doc, (x) => x.attrs['id'] === 'call-c1')[0]
    expect(shot?.text).toContain('The page')
    expect(all(doc, (x) => x.tag === 'img').map((i) => i.attrs['src'])).toEqual([`data:image/png;base64,${PNG_BASE64}`])
  })
})
