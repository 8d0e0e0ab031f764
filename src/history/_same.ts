/**
 * Filtering and mapping a history that return the input itself when nothing changes (so that
 * identity stays a sound cache key).
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'

/** Keeps the messages `keep` accepts, returning `ms` itself when it keeps them all. */
export const filterSame = (ms: Messages, keep: (m: Message) => boolean): Messages => {
  let i = 0
  while (i < ms.length && keep(ms[i] as Message)) i++
  if (i === ms.length) return ms
  const out = ms.slice(0, i)
  for (i++; i < ms.length; i++) {
    const m = ms[i] as Message
    if (keep(m)) out.push(m)
  }
  return out
}

/** Maps every message, returning `ms` itself when `f` returns every message itself. */
export const mapSame = (ms: Messages, f: (m: Message) => Message): Messages => {
  let out: Message[] | undefined
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i] as Message
    const n = f(m)
    if (n !== m) {
      out ??= ms.slice()
      out[i] = n
    }
  }
  return out ?? ms
}
