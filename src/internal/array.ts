/**
 * Small array helpers for untrusted, possibly large data.
 *
 * @module
 */

/**
 * Appends every element of `items` to `out` one by one: `out.push(...items)` passes each element as an
 * argument and overflows the stack near 125,000 of them.
 */
export const pushAll = <A>(out: A[], items: Iterable<A>): A[] => {
  for (const x of items) out.push(x)
  return out
}
