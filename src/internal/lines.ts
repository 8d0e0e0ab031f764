/**
 * The lines of a JSONL text, as every reader of chatfold JSONL takes them: split at `\n`, a `\r`
 * before it dropped, a byte-order mark before the first line skipped, blank lines left out.
 *
 * @module
 */

/** One line that is not blank: its text, its 1-based number, and where the text after it starts. */
export type JsonlLine = { readonly text: string; readonly n: number; readonly next: number }

/** The lines of `text` that are not blank, in order, each with its 1-based number among all lines. */
export function* jsonlLines(text: string): Generator<JsonlLine> {
  let n = 0
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0
  while (start <= text.length) {
    let end = text.indexOf('\n', start)
    if (end < 0) end = text.length
    n++
    const line = text.charCodeAt(end - 1) === 13 && end > start ? text.slice(start, end - 1) : text.slice(start, end)
    start = end + 1
    if (line.trim() !== '') yield { text: line, n, next: start }
  }
}
