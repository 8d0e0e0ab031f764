/**
 * A plain text (ASCII, any case) searched in a prepared history: the parts whose lower-cased text
 * holds it, found by scanning only the blocks of text its filter lets through, each with its
 * matches counted in its lower-cased text when that tells them exactly (nearly always), or left to
 * the pattern otherwise.
 *
 * @module
 */
import type { HistoryIndex } from './history-index.ts'
import { mayStart } from './_trigram-blocks.ts'

/**
 * Where each part's lower-cased text lies: its segment, its `[start, end)` there, and whether it is
 * exact: whether an ASCII text's matches ignoring case are exactly the occurrences of it
 * lower-cased in the lower-cased text, at the same positions. They are unless the part holds one of
 * the two characters whose lower case is ASCII (U+0130, lower-cased to two characters; the Kelvin
 * sign U+212A, to `k`): any other non-ASCII character lower-cases to non-ASCII of the same length,
 * and a pattern ignoring case (without the `u` flag) matches an ASCII letter only with ASCII.
 */
type Layout = { readonly segment: Uint8Array; readonly start: Int32Array; readonly end: Int32Array; readonly exact: Uint8Array }

/** The characters that lower-case to ASCII though they are not (the only two, in every plane). */
const TO_ASCII = /[\u0130\u212a]/

const layouts = new WeakMap<HistoryIndex, Layout>()

const layoutOf = (index: HistoryIndex): Layout => {
  const known = layouts.get(index)
  if (known !== undefined) return known
  const n = index.parts.length
  const out: Layout = { segment: new Uint8Array(n), start: new Int32Array(n), end: new Int32Array(n), exact: new Uint8Array(n) }
  index.segments.forEach((seg, g) => {
    seg.parts.forEach((k, j) => {
      out.segment[k] = g
      out.start[k] = seg.starts[j] as number
      // each text is followed by a NUL
      out.end[k] = (seg.starts[j + 1] ?? seg.lower.length) - 1
      out.exact[k] = TO_ASCII.test((index.parts[k] as HistoryIndex['parts'][number]).text) ? 0 : 1
    })
  })
  layouts.set(index, out)
  return out
}

/** What a plain search finds in one part: its matches counted (and where the first is), or `undefined` counts when the pattern must count them. */
export type PlainFind = { readonly part: number; readonly matches?: number; readonly at?: number }

/**
 * The parts of `index` whose lower-cased text holds `needle` (a lower-cased text of ASCII only,
 * without NUL), ascending: in an exact part (see `Layout`) with its matches counted the way a
 * global pattern ignoring case counts them (each after the last, at most `most`) and where the
 * first is; in another, to be counted by the pattern (its lower-cased text holding the needle is
 * necessary, not sufficient).
 */
export const plainFinds = (needle: string, index: HistoryIndex, most: number): ReadonlyArray<PlainFind> => {
  const layout = layoutOf(index)
  const ranges = mayStart(index, needle) ?? index.segments.map((seg) => [[0, seg.lower.length] as const])
  const out: PlainFind[] = []
  const L = needle.length
  index.segments.forEach((seg, g) => {
    let k = 0
    // the part counted, its matches, where the first is (in its text), and where its text ends
    let part = -1
    let matches = 0
    let first = 0
    let end = 0
    const emit = (): void => {
      if (part >= 0) out.push(layout.exact[part] === 1 ? { part, matches, at: first } : { part })
      part = -1
    }
    let resume = 0
    for (const [from, to] of ranges[g] ?? []) {
      // the range's text, and the needle's length past it: an occurrence starting in it, whole
      const text = seg.lower.slice(from, to + L - 1)
      for (let i = text.indexOf(needle, Math.max(0, resume - from)); i >= 0; i = text.indexOf(needle, Math.max(0, resume - from))) {
        const at = from + i
        if (at >= end) {
          // a new part: the text holding position at, the last whose start is at most at (the positions only grow)
          emit()
          while (k + 1 < seg.starts.length && (seg.starts[k + 1] as number) <= at) k++
          part = seg.parts[k] as number
          matches = 0
          first = at - (layout.start[part] as number)
          end = layout.end[part] as number
        }
        matches++
        // the next match starts after this one; a part counted in full (or told to the pattern) is left
        resume = matches >= most || layout.exact[part] === 0 ? end : at + L
      }
    }
    emit()
  })
  return out.sort((a, b) => a.part - b.part)
}
