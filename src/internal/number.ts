/**
 * Normalising numeric options (not exported from the package).
 *
 * @module
 */

/**
 * A count option as a non-negative whole number, the fp-ts way ("`n` is normalized to a non
 * negative integer") rather than an error: `fallback` when absent, 0 for NaN, zero and below, the
 * integer part otherwise; Infinity (and anything past `Number.MAX_SAFE_INTEGER`) becomes
 * `Number.MAX_SAFE_INTEGER`, so arithmetic on the result stays exact.
 */
export const nonNegativeInt = (n: number | undefined, fallback = 0): number =>
  n === undefined ? fallback : Number.isNaN(n) || n <= 0 ? 0 : Math.floor(Math.min(n, Number.MAX_SAFE_INTEGER))

/**
 * A whole-number option that has a default: `fallback` when absent or NaN (an unset option), the
 * integer part otherwise, at least `min` (default 0). Infinity stays Infinity: no limit.
 */
export const wholeOption = <F extends number | undefined>(n: number | undefined, o: { readonly fallback: F; readonly min?: number }): number | F =>
  n === undefined || Number.isNaN(n) ? o.fallback : Math.max(o.min ?? 0, Math.floor(n))

/**
 * A whole number with commas between thousands (`12,140`), as `toLocaleString('en')` writes it
 * without its first call's cost (loading the locale data, tens of milliseconds); other numbers
 * through `toLocaleString('en')`.
 */
export const grouped = (n: number): string => (Number.isSafeInteger(n) ? String(n).replace(/\B(?=(\d{3})+$)/g, ',') : n.toLocaleString('en'))
