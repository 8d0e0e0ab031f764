/**
 * A message's text as HTML for `renderHtml` (private): escaped first, then the little Markdown a
 * reader most needs shown as such: fenced code blocks, inline code, bold, and headings (as bold
 * lines, never as the page's headings). Everything else stays the text it is; the page keeps its
 * line breaks. Only these fixed tags are added, around text already escaped.
 *
 * @module
 */

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/**
 * Text as HTML text or an attribute value: `& < > " '` escaped.
 *
 * @example
 * import { escapeHtml } from './_render-html-text.ts'
 * escapeHtml('<b>') // '&lt;b&gt;'
 */
export const escapeHtml = (s: string): string => s.replace(/[&<>\x22\x27]/g, (c) => ESCAPES[c] as string)

const FENCE = /^ {0,3}(\x60{3,}|~{3,})([^\x60]*)$/

/** Inline code, then bold outside it, on one escaped line. */
const inline = (line: string): string =>
  line
    .split(/(\x60[^\x60]+\x60)/)
    .map((seg, i) => (i % 2 === 1 ? `<code>${seg.slice(1, -1)}</code>` : seg.replace(/\*\*(?=\S)([^*]*?\S)\*\*/g, '<strong>$1</strong>')))
    .join('')

/** A code block, its info string (the language) as the block's title. */
const pre = (code: { readonly info: string; readonly lines: ReadonlyArray<string> }): string =>
  `<pre class="code"${code.info === '' ? '' : ` title="${escapeHtml(code.info)}"`}>${escapeHtml(code.lines.join('\n'))}</pre>`

/**
 * A message's text as HTML: fenced code in `<pre>`, `` `code` ``, `**bold**`, and `# headings` as
 * bold lines; every character of the text escaped.
 *
 * @example
 * import { textHtml } from './_render-html-text.ts'
 * textHtml('# Fix\nUse `round` <once>') // '<strong class="h">Fix</strong>\nUse <code>round</code> &lt;once&gt;'
 */
export const textHtml = (s: string): string => {
  // runs of lines (joined by line breaks, which the page keeps) and code blocks, which are blocks
  // of their own and need no line break around them
  const out: string[] = []
  let lines: string[] = []
  let code: { readonly fence: string; readonly info: string; readonly lines: string[] } | undefined
  const endLines = (): void => {
    if (lines.length > 0) out.push(lines.join('\n'))
    lines = []
  }
  for (const raw of s.split('\n')) {
    if (code !== undefined) {
      const close = FENCE.exec(raw)
      if (close !== null && (close[1] as string)[0] === code.fence[0] && (close[1] as string).length >= code.fence.length && raw.trim() === close[1]) {
        out.push(pre(code))
        code = undefined
      } else code.lines.push(raw)
      continue
    }
    const open = FENCE.exec(raw)
    if (open !== null) {
      endLines()
      code = { fence: open[1] as string, info: (open[2] as string).trim(), lines: [] }
      continue
    }
    const line = escapeHtml(raw)
    const h = /^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$/.exec(line)
    lines.push(h !== null ? `<strong class="h">${inline(h[1] as string)}</strong>` : inline(line))
  }
  endLines()
  // an unclosed fence runs to the end of the text, as in Markdown
  if (code !== undefined) out.push(pre(code))
  return out.join('')
}
