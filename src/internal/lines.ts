/**
 * The lines of a JSONL text, as every reader of chatfold JSONL takes them: split at `\n`, a `\r`
 * before it dropped, a byte-order mark before the first line skipped, blank lines left out. The
 * text may come whole or in chunks (a stream), with the same lines either way.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { parseJsonText } from './json.ts'

/** One line that is not blank: its text and its 1-based number among all lines. */
export type JsonlLine = { readonly text: string; readonly n: number }

/** A splitter of JSONL text given in chunks: `push` answers the lines a chunk completes, `end` the last one. */
export const jsonlSplitter = () => {
  let rest = ''
  let n = 0
  let started = false
  const take = (line: string, out: JsonlLine[]): void => {
    n++
    const text = line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line
    if (text.trim() !== '') out.push({ text, n })
  }
  return {
    push: (chunk: string): JsonlLine[] => {
      let text = rest + chunk
      if (!started && text.length > 0) {
        started = true
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
      }
      const out: JsonlLine[] = []
      let start = 0
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
        take(text.slice(start, end), out)
        start = end + 1
      }
      rest = text.slice(start)
      return out
    },
    end: (): JsonlLine[] => {
      const out: JsonlLine[] = []
      take(rest, out)
      rest = ''
      return out
    },
  }
}

/** The lines of `text` that are not blank, in order, each with its 1-based number among all lines. */
export const jsonlLines = (text: string): JsonlLine[] => {
  const split = jsonlSplitter()
  return [...split.push(text), ...split.end()]
}

const NEWLINE = 0x0a
const fatal = new TextDecoder('utf-8', { fatal: true })

/** The 1-based line of `bytes` that holds the first byte sequence that is not UTF-8 (one past the last line when all are). */
export const invalidUtf8Line = (bytes: Uint8Array): number => {
  let line = 1
  for (let start = 0; start <= bytes.length; line++) {
    let end = bytes.indexOf(NEWLINE, start)
    if (end < 0) end = bytes.length
    try {
      fatal.decode(bytes.subarray(start, end))
    } catch {
      return line
    }
    start = end + 1
  }
  return line
}

/**
 * Whether `bytes`, what follows the last newline of a JSONL file, is a torn last line, as a crash
 * mid-append leaves one: not blank, and not JSON, or not even UTF-8 (cut inside a character).
 */
export const isTornTail = (bytes: Uint8Array): boolean => {
  let text: string
  try {
    text = fatal.decode(bytes)
  } catch {
    return true
  }
  if (text.trim() === '') return false
  return E.isLeft(parseJsonText(text))
}
