/**
 * What a checked doc example calls for each result it shows (see scripts/doctest-shown.ts): the
 * result must equal the value shown by deep strict equality, or the example fails, naming the line.
 * fp-ts's `none`, `some`, `left` and `right` are here so that a shown Option or Either is built the
 * way the library builds it.
 */
import { inspect, isDeepStrictEqual } from 'node:util'
export { left, right } from 'fp-ts/Either'
export { none, some } from 'fp-ts/Option'

/** Throws, naming the example's line, unless `actual` deep-strictly equals the `shown` value. */
export const shows = (actual: unknown, shown: unknown, at: string): void => {
  if (isDeepStrictEqual(actual, shown)) return
  const show = (v: unknown): string => inspect(v, { depth: 8, breakLength: Infinity, compact: true })
  throw new Error(`${at}: the example shows ${show(shown)}, but the result is ${show(actual)}`)
}
