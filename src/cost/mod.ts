/**
 * What a conversation cost: an offline, dated price table of current Anthropic, OpenAI and Gemini
 * models (input, output, cache reads, cache writes for 5 minutes and 1 hour, reasoning, long-context
 * tiers) that you can extend or override, and the cost of each reply, turn, model and day from the
 * usage a history records, or of one model call from the usage its answer reports (`callCostLineOf`:
 * the middleware's and the summarisers' calls). A model the table lacks is named, never priced as zero.
 *
 * @example
 * import { costLedger, PRICES, withPrices } from 'chatfold/cost'
 * import { makeMessage, text } from 'chatfold/message'
 * const reply = makeMessage({ role: 'assistant', parts: [text('Done.')], model: 'in-house-7b', metadata: { usage: { input: 2_000_000, output: 1_000_000 } } })
 * costLedger({ prices: withPrices([{ model: 'in-house-7b', input: 0.1, output: 0.2 }])(PRICES) })([reply]).total // 0.4
 *
 * @module
 */
export { type LongContext, LongContextC, type Price, PriceC, type PriceTable, PriceTableC } from './price.ts'
export { PRICES } from './prices.ts'
export { priceOf, withPrices } from './lookup.ts'
export { type Charge, chargeOf, type CostUsage, type MissingRateFailure } from './charge.ts'
export { type CostFailure, type CostLedger, costLedger, type CostLedgerOptions, type CostLine, type CostSum } from './ledger.ts'
export { type CallAnswer, type CallCostFailure, type CallCostLine, callCostLineOf, callCostOf } from './call-cost.ts'
