/**
 * Markdown inside an export: a message's own headings moved below the export's, so that a `# Title`
 * in a reply does not become a top-level heading of the document (private to the renderers).
 *
 * @module
 */

/** An opening or closing code fence of CommonMark: its run of backticks or tildes, and the rest (\x60 is the backtick). */
export const FENCE = /^ {0,3}(\x60{3,}|~{3,})(.*)$/
const ATX = /^( {0,3})(#{1,6})(?=[ \t]|$)/
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/
/** A line that starts a block other than a paragraph: a list item, a quote, HTML, a thematic break. */
const BLOCK_START = /^ {0,3}(?:[-*+](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|>|<|(?:[-*_][ \t]*){3,}$)/

/**
 * Markdown text with each heading `by` levels deeper (at most level 6): ATX headings (`# Title`)
 * get more `#`, setext headings (a paragraph underlined with `===` or `---`) become ATX headings of
 * the level they had plus `by`. Code fences are left as they are, and text with no heading comes
 * back as is.
 *
 * @example
 * import { demoteHeadings } from './_markdown.ts'
 * demoteHeadings(2)('# Cause\n\nText') // '### Cause\n\nText'
 */
export const demoteHeadings = (by: number) => (s: string): string => {
  if (by <= 0 || (!s.includes('#') && !s.includes('==') && !s.includes('--'))) return s
  const out: string[] = []
  let fence: { readonly ch: string; readonly len: number } | undefined
  let paragraph = 0 // how many of the last lines in `out` form an open paragraph
  const level = (n: number): string => '#'.repeat(Math.min(6, n + by))
  for (const line of s.split('\n')) {
    if (fence !== undefined) {
      const m = FENCE.exec(line)
      if (m !== null && (m[1] as string)[0] === fence.ch && (m[1] as string).length >= fence.len && (m[2] as string).trim() === '') fence = undefined
      out.push(line)
      continue
    }
    const f = FENCE.exec(line)
    if (f !== null && !((f[1] as string)[0] === '`' && (f[2] as string).includes('`'))) {
      fence = { ch: (f[1] as string)[0] as string, len: (f[1] as string).length }
      paragraph = 0
      out.push(line)
      continue
    }
    const atx = ATX.exec(line)
    if (atx !== null) {
      out.push(`${atx[1] as string}${level((atx[2] as string).length)}${line.slice(atx[0].length)}`)
      paragraph = 0
      continue
    }
    const setext = SETEXT.exec(line)
    if (setext !== null && paragraph > 0) {
      const title = out.splice(out.length - paragraph, paragraph).map((l) => l.trim()).join(' ')
      out.push(`${level((setext[1] as string)[0] === '=' ? 1 : 2)} ${title}`)
      paragraph = 0
      continue
    }
    // an indented line continues an open paragraph but starts none (it is code)
    if (line.trim() === '' || BLOCK_START.test(line)) paragraph = 0
    else if (/^(?: {4}|\t)/.test(line)) paragraph = paragraph > 0 ? paragraph + 1 : 0
    else paragraph++
    out.push(line)
  }
  return out.join('\n')
}
