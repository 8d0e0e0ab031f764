/**
 * A summariser whose model calls are priced as they are made: what a compaction cost.
 *
 * @module
 */
import { type CallCostLine, callCostLineOf } from '../cost/call-cost.ts'
import type { PriceTable } from '../cost/price.ts'
import type { Summarizer } from './compact.ts'

/**
 * Wraps `summarize` so that each model call it tells (`SummarizerContext.onAnswer`, as the
 * summarisers of `chatfold/summarize/…` tell them) is priced by `prices` (`PRICES` of
 * `chatfold/cost` by default) and added to `calls`, in the order made: the model and its charge in
 * USD, or `usd: null` and why (a model the table lacks is named, never priced as zero). The caller's
 * own `onAnswer` is still told. `calls` stays empty for a summariser that calls no model
 * (`extractiveSummarize`).
 *
 * @example
 * import { compact, pricedSummarizer } from 'chatfold/compaction'
 * import type { Summarizer } from 'chatfold/compaction'
 * import type { Messages } from 'chatfold/message'
 * declare const mySummarizer: Summarizer
 * declare const history: Messages
 * const { summarize, calls } = pricedSummarizer(mySummarizer)
 * const { report } = await compact({ summarize })(history)
 * const usd = calls.reduce((sum, c) => sum + (c.usd ?? 0), 0)
 *
 * @since 0.1.0
 * @category compaction
 */
export const pricedSummarizer = (
  summarize: Summarizer,
  prices?: PriceTable,
): { readonly summarize: Summarizer; readonly calls: ReadonlyArray<CallCostLine> } => {
  const priced = callCostLineOf(prices === undefined ? {} : { prices })
  const calls: CallCostLine[] = []
  return {
    calls,
    summarize: (transcript, context) =>
      summarize(transcript, {
        ...context,
        onAnswer: (a) => {
          calls.push(priced(a))
          context.onAnswer?.(a)
        },
      }),
  }
}
