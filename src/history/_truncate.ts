/**
 * Cutting a string to a length, with a marker that says how much went.
 *
 * @module
 */
import type { Message } from '../message/message.ts'
import { nonNegativeInt } from '../internal/number.ts'

/**
 * Cuts strings to at most `max` UTF-16 code units, ending with a marker that says how much went
 * when the marker fits; never splits a surrogate pair. Returns a string itself when it already
 * fits. The marker's fixed tail is built once per `max`.
 */
export const truncator = (max: number): (s: string) => string => {
  const tail = ` chars to ${max}]`
  return (s) => {
    if (s.length <= max) return s
    const marker = `\n[truncated ${s.length}${tail}`
    const fits = marker.length < max
    let keep = fits ? max - marker.length : max
    if (keep > 0 && isHighSurrogate(s.charCodeAt(keep - 1))) keep--
    return fits ? s.slice(0, keep) + marker : s.slice(0, keep)
  }
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff

/**
 * A message rewrite that cuts tool results, `f(m, max, cut)`, with the limit normalised and its
 * truncator built once, for the views and edits that take a result length.
 */
export const cuttingResults = (maxLen: number, f: (m: Message, max: number, cut: (s: string) => string) => Message): (m: Message) => Message => {
  const max = nonNegativeInt(maxLen)
  const cut = truncator(max)
  return (m) => f(m, max, cut)
}
