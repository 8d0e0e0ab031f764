/**
 * io-ts helpers shared by the codecs.
 *
 * @module
 */
import * as t from 'io-ts'

/**
 * Re-points the last context entry at `codec`, so that error paths and expectations describe the
 * codec that actually validates below a wrapper (wrappers made with `new t.Type` have no `_tag`).
 */
export const retarget = (c: t.Context, codec: t.Decoder<unknown, unknown>): t.Context => {
  const last = c[c.length - 1]
  return last === undefined ? c : [...c.slice(0, -1), { ...last, type: codec }]
}

/** A required field that may be absent on the wire, where it takes `fallback`. */
export const withDefault = <A, O>(codec: t.Type<A, O, unknown>, fallback: A): t.Type<A, O, unknown> =>
  new t.Type<A, O, unknown>(codec.name, codec.is, (u, c) => codec.validate(u === undefined ? fallback : u, retarget(c, codec)), codec.encode)
