/**
 * What one model's tokens cost: the price row (USD per million tokens, by kind of token, with the
 * long-context tier where the provider has one) and the dated table of rows, as codecs.
 *
 * @module
 */
import * as t from 'io-ts'

// --- codecs ---

const isRate = (u: unknown): u is number => typeof u === 'number' && Number.isFinite(u) && u >= 0

/** A price in USD per million tokens: a finite number, zero or more. */
const RateC: t.Type<number, number, unknown> = new t.Type<number, number, unknown>(
  'Rate',
  isRate,
  (u, c) => (isRate(u) ? t.success(u) : t.failure(u, c)),
  t.identity,
)

type RateC = typeof RateC
type Rates = { cacheRead: RateC; cacheWrite5m: RateC; cacheWrite1h: RateC; reasoning: RateC }

const ratesOf: Rates = {
  cacheRead: RateC,
  cacheWrite5m: RateC,
  cacheWrite1h: RateC,
  reasoning: RateC,
}

/**
 * The rates of a long-context tier: when a request's prompt (`input + cacheRead + cacheWrite`) is
 * over `above` tokens, every token of that request is priced at these rates (Anthropic's and
 * Google's rule).
 *
 * @example
 * import { LongContextC } from 'chatfold/cost'
 * import { isRight } from 'fp-ts/Either'
 * isRight(LongContextC.decode({ above: 200_000, input: 6, output: 22.5, cacheRead: 0.6 })) // true
 *
 * @since 0.1.0
 * @category codecs
 */
export const LongContextC: t.ReadonlyC<t.IntersectionC<[t.TypeC<{ above: RateC; input: RateC; output: RateC }>, t.PartialC<Rates>]>> = t.readonly(
  t.intersection([t.type({ above: RateC, input: RateC, output: RateC }), t.partial(ratesOf)]),
  'LongContext',
)

/**
 * A long-context tier (see {@link LongContextC}).
 *
 * @example
 * import type { LongContext } from 'chatfold/cost'
 * const tier: LongContext = { above: 200_000, input: 2.5, output: 15, cacheRead: 0.25 }
 *
 * @since 0.1.0
 * @category codecs
 */
export type LongContext = t.TypeOf<typeof LongContextC>

/**
 * One model's prices, in USD per million tokens: `input` (prompt tokens neither read from nor
 * written to a cache), `output` (reasoning included, unless `reasoning` prices it apart),
 * `cacheRead`, `cacheWrite5m` and `cacheWrite1h` (Anthropic's two cache lifetimes; a write of
 * unknown lifetime is priced as 5 minutes), and `longContext`. `aliases` are other names of the
 * same model (a dated snapshot, a provider's prefix is matched without them). A rate that is
 * absent is unknown, never zero: tokens of that kind make the reply unpriced.
 *
 * @example
 * import { PriceC } from 'chatfold/cost'
 * import { isRight } from 'fp-ts/Either'
 * isRight(PriceC.decode({ model: 'my-model', input: 1, output: 4, cacheRead: 0.1 })) // true
 * isRight(PriceC.decode({ model: 'my-model', input: -1, output: 4 })) // false
 *
 * @since 0.1.0
 * @category codecs
 */
export const PriceC: t.ReadonlyC<
  t.IntersectionC<
    [
      t.TypeC<{ model: t.StringC; input: RateC; output: RateC }>,
      t.PartialC<{ provider: t.StringC; aliases: t.ReadonlyArrayC<t.StringC>; longContext: typeof LongContextC } & Rates>,
    ]
  >
> = t.readonly(
  t.intersection([
    t.type({ model: t.string, input: RateC, output: RateC }),
    t.partial({ provider: t.string, aliases: t.readonlyArray(t.string), longContext: LongContextC, ...ratesOf }),
  ]),
  'Price',
)

/**
 * One model's prices (see {@link PriceC}).
 *
 * @example
 * import type { Price } from 'chatfold/cost'
 * const row: Price = { model: 'claude-haiku-4-5', provider: 'anthropic', input: 1, output: 5, cacheRead: 0.1, cacheWrite5m: 1.25, cacheWrite1h: 2 }
 *
 * @since 0.1.0
 * @category codecs
 */
export type Price = t.TypeOf<typeof PriceC>

/**
 * A price table: its rows, the day they were taken (`YYYY-MM-DD`) and where from (the pricing
 * pages' addresses). The first row that matches a model wins.
 *
 * @example
 * import { PriceTableC } from 'chatfold/cost'
 * import { isRight } from 'fp-ts/Either'
 * isRight(PriceTableC.decode({ taken: '2026-11-29', sources: ['https://example.com/pricing'], prices: [{ model: 'm', input: 1, output: 2 }] })) // true
 *
 * @since 0.1.0
 * @category codecs
 */
export const PriceTableC: t.ReadonlyC<t.TypeC<{ taken: t.StringC; sources: t.ReadonlyArrayC<t.StringC>; prices: t.ReadonlyArrayC<typeof PriceC> }>> = t
  .readonly(t.type({ taken: t.string, sources: t.readonlyArray(t.string), prices: t.readonlyArray(PriceC) }), 'PriceTable')

/**
 * A price table (see {@link PriceTableC}).
 *
 * @example
 * import type { PriceTable } from 'chatfold/cost'
 * const mine: PriceTable = { taken: '2026-11-29', sources: ['our contract'], prices: [{ model: 'in-house-7b', input: 0.1, output: 0.2 }] }
 *
 * @since 0.1.0
 * @category codecs
 */
export type PriceTable = t.TypeOf<typeof PriceTableC>
