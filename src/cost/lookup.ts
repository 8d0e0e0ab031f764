/**
 * Finding a model's row in a price table, and a table extended or overridden with rows of one's own.
 *
 * @module
 */
import * as O from 'fp-ts/Option'
import type { Price, PriceTable } from './price.ts'

// --- lookup ---

/** A provider's or a gateway's prefix before the model's own name (`anthropic/`, `models/`). */
const PREFIX = /^(?:anthropic|openai|google|gemini|vertex_ai|models|openrouter\/[\w-]+)\//
/** A dated snapshot's suffix: `-20250929`, `-2025-08-07`, `@20251001`. */
const DATED = /(?:[-@]\d{8}|-\d{4}-\d{2}-\d{2})$/

const names = (p: Price): ReadonlyArray<string> => [p.model, ...(p.aliases ?? [])].map((n) => n.toLowerCase())

/**
 * The row that prices a model, by its name as a history records it: the first row whose `model`
 * or one of whose `aliases` is that name, else that name without a provider's prefix
 * (`anthropic/`, `models/`) and without a dated snapshot's suffix (`-20250929`, `-2025-08-07`).
 * Letter case is ignored. `none` when no row matches: a model is never priced by a guess.
 *
 * @example
 * import { PRICES, priceOf } from 'chatfold/cost'
 * import { isSome, isNone } from 'fp-ts/Option'
 * isSome(priceOf(PRICES)('claude-sonnet-4-5-20250929')) // true
 * isNone(priceOf(PRICES)('my-own-model')) // true
 *
 * @since 0.1.0
 * @category cost
 */
export const priceOf = (table: PriceTable) => (model: string): O.Option<Price> => {
  const given = model.trim().toLowerCase()
  const bare = given.replace(PREFIX, '')
  for (const name of [given, bare, bare.replace(DATED, '')]) {
    const row = table.prices.find((p) => names(p).includes(name))
    if (row !== undefined) return O.some(row)
  }
  return O.none
}

/**
 * The table with rows of your own: each replaces the row of the same model (by `model`, letter
 * case ignored) and is looked up before the others; a model the table lacks is added. The table's
 * date and sources are kept, with `'rows given by the caller'` added to the sources when any row
 * is given. Returns the table itself when no row is given.
 *
 * @example
 * import { PRICES, priceOf, withPrices } from 'chatfold/cost'
 * import { isSome } from 'fp-ts/Option'
 * const mine = withPrices([{ model: 'in-house-7b', input: 0.1, output: 0.2 }])(PRICES)
 * isSome(priceOf(mine)('in-house-7b')) // true
 *
 * @since 0.1.0
 * @category cost
 */
export const withPrices = (rows: ReadonlyArray<Price>) => (table: PriceTable): PriceTable => {
  if (rows.length === 0) return table
  const given = new Set(rows.map((r) => r.model.toLowerCase()))
  return {
    taken: table.taken,
    sources: [...table.sources, 'rows given by the caller'],
    prices: [...rows, ...table.prices.filter((p) => !given.has(p.model.toLowerCase()))],
  }
}
