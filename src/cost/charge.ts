/**
 * What one request cost: its reported usage priced by one row, by kind of token, in USD.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { UsageFigures } from '../tokens/recorded-usage.ts'
import type { Price } from './price.ts'

// --- charges ---

/**
 * One request's usage as the ledger prices it: the figures a history records (`input`, `output`,
 * `cacheRead`, `cacheWrite`, `reasoning`, as in `metadata.usage`) and, where the reader kept it,
 * `cacheWrite1h`: the part of `cacheWrite` written for one hour (the rest is priced as 5 minutes).
 *
 * @example
 * import type { CostUsage } from 'chatfold/cost'
 * const u: CostUsage = { input: 10, output: 200, cacheRead: 40_000, cacheWrite: 1_500, reasoning: 0, cacheWrite1h: 1_000 }
 *
 * @since 0.1.0
 * @category cost
 */
export type CostUsage = UsageFigures & { readonly cacheWrite1h?: number }

/**
 * What a request cost, in USD, by kind of token (`cacheWrite` holds both lifetimes, `output`
 * holds reasoning), their sum in `total`, and whether the long-context tier priced it.
 *
 * @example
 * import type { Charge } from 'chatfold/cost'
 * const c: Charge = { input: 0.00003, output: 0.003, cacheRead: 0.012, cacheWrite: 0.005625, total: 0.020655, longContext: false }
 *
 * @since 0.1.0
 * @category cost
 */
export type Charge = {
  readonly input: number
  readonly output: number
  readonly cacheRead: number
  readonly cacheWrite: number
  readonly total: number
  readonly longContext: boolean
}

/**
 * Why a request could not be priced: its row has no rate for a kind of token it used (`rate`, one
 * of `cacheRead`, `cacheWrite5m`, `cacheWrite1h`).
 *
 * @example
 * import type { MissingRateFailure } from 'chatfold/cost'
 * const f: MissingRateFailure = { kind: 'missing-rate', model: 'in-house-7b', rate: 'cacheRead' }
 *
 * @since 0.1.0
 * @category cost
 */
export type MissingRateFailure = { readonly kind: 'missing-rate'; readonly model: string; readonly rate: 'cacheRead' | 'cacheWrite5m' | 'cacheWrite1h' }

const MILLION = 1_000_000

/**
 * The cost of one request's usage under one price row. When the prompt (`input + cacheRead +
 * cacheWrite`) is over the row's `longContext.above`, every token of the request takes the tier's
 * rates (a rate the tier lacks takes the base one). Reasoning is priced at `reasoning` when the row
 * has it, else as output. `Left` when a kind of token the request used has no rate in the row
 * (tokens are never priced at zero by default); a `cacheWrite1h` share with no 1-hour rate is that
 * failure too.
 *
 * @example
 * import { chargeOf, PRICES, priceOf } from 'chatfold/cost'
 * import { pipe } from 'fp-ts/function'
 * import * as O from 'fp-ts/Option'
 * import * as E from 'fp-ts/Either'
 * const sonnet = pipe(priceOf(PRICES)('claude-sonnet-4-5'), O.getOrElseW(() => { throw new Error('not in the table') }))
 * const c = chargeOf(sonnet)({ input: 100_000, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
 * E.isRight(c) && c.right.total // 0.3
 * // over 200K prompt tokens, the whole request at the long-context rates ($6 input)
 * const long = chargeOf(sonnet)({ input: 1_000_000, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
 * E.isRight(long) && long.right.total // 6
 *
 * @since 0.1.0
 * @category cost
 */
export const chargeOf = (price: Price) => (u: CostUsage): E.Either<MissingRateFailure, Charge> => {
  const prompt = u.input + u.cacheRead + u.cacheWrite
  const tier = price.longContext !== undefined && prompt > price.longContext.above ? price.longContext : undefined
  const rate = <K extends 'input' | 'output' | 'cacheRead' | 'cacheWrite5m' | 'cacheWrite1h' | 'reasoning'>(k: K): number | undefined => tier?.[k] ?? price[k]
  const h1 = Math.min(u.cacheWrite, u.cacheWrite1h ?? 0)
  const m5 = u.cacheWrite - h1
  const need = (k: 'cacheRead' | 'cacheWrite5m' | 'cacheWrite1h', tokens: number): E.Either<MissingRateFailure, number> => {
    if (tokens === 0) return E.right(0)
    const r = rate(k)
    return r === undefined ? E.left({ kind: 'missing-rate', model: price.model, rate: k }) : E.right((tokens * r) / MILLION)
  }
  const read = need('cacheRead', u.cacheRead)
  if (E.isLeft(read)) return read
  const write5 = need('cacheWrite5m', m5)
  if (E.isLeft(write5)) return write5
  const write1 = need('cacheWrite1h', h1)
  if (E.isLeft(write1)) return write1
  const outputRate = rate('output') ?? price.output
  const reasoning = Math.min(u.reasoning, u.output)
  const reasoningRate = rate('reasoning') ?? outputRate
  const input = (u.input * (rate('input') ?? price.input)) / MILLION
  const output = ((u.output - reasoning) * outputRate + reasoning * reasoningRate) / MILLION
  const cacheWrite = write5.right + write1.right
  return E.right({ input, output, cacheRead: read.right, cacheWrite, total: input + output + read.right + cacheWrite, longContext: tier !== undefined })
}
