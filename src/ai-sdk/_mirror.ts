/**
 * A conversation's wire messages and their decoded history, kept between calls: a framework sends
 * the whole history again on every step, as new objects with the same content, so a call decodes
 * only the messages past the prefix it shares with the previous call, and the history keeps the
 * same message objects from call to call (what the pruner and token caches key on).
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../message/failure.ts'
import type { Message, Messages } from '../message/message.ts'

/** Wire messages and the history decoded from them, one message each. */
export type Mirror<W> = { readonly wire: ReadonlyArray<W>; readonly messages: Messages }

/**
 * Whether two decoded wire values are the same: strings, numbers and shared objects by `===` (a
 * framework copies strings by reference, so long texts compare in constant time), bytes by value,
 * URLs by `href`, arrays and plain objects by their members.
 */
export const sameValue = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    if (!(a instanceof Uint8Array && b instanceof Uint8Array) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
    return true
  }
  if (a instanceof URL || b instanceof URL) return a instanceof URL && b instanceof URL && a.href === b.href
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!(Array.isArray(a) && Array.isArray(b)) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false
    return true
  }
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined)
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined)
  if (ka.length !== kb.length) return false
  for (const k of ka) if (!sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false
  return true
}

/**
 * The mirror of `wire`: the previous mirror's messages for the prefix both share, the rest decoded
 * with `decode` (which must give one message a wire message).
 */
export const mirrorOf = <W>(
  previous: Mirror<W> | undefined,
  wire: ReadonlyArray<W>,
  decode: (ws: ReadonlyArray<W>) => E.Either<DecodeFailure, Messages>,
): E.Either<DecodeFailure, Mirror<W>> => {
  let same = 0
  if (previous !== undefined) {
    const limit = Math.min(previous.wire.length, wire.length)
    while (same < limit && sameValue(previous.wire[same], wire[same])) same++
  }
  if (previous !== undefined && same === wire.length && same === previous.wire.length) return E.right(previous)
  const rest = decode(wire.slice(same))
  if (E.isLeft(rest)) return rest
  const kept: ReadonlyArray<Message> = previous === undefined ? [] : previous.messages.slice(0, same)
  return E.right({ wire, messages: [...kept, ...rest.right] })
}
