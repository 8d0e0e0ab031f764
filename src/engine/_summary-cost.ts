/**
 * What an engine compaction's summariser spent: each model call it tells
 * (`SummarizerContext.onAnswer`) priced as the AI SDK middleware prices its calls
 * (`callCostLineOf`), on the caller's side, where the summariser runs, and given back with the
 * compaction's result.
 *
 * @module
 */
import type { Summarizer } from '../compaction/compact.ts'
import { type CallCostLine, callCostLineOf } from '../cost/call-cost.ts'
import type { PriceTable } from '../cost/price.ts'

/**
 * Runs a compaction (`run`) with the caller's summariser (`o.summarize`) told to price each model
 * call it makes by `o.prices` (`PRICES` by default), and answers its result with those calls
 * (`calls`, in the order made); the result as it is when the summariser called no model (the
 * embedded extractive one never does). The price table stays on this side.
 */
export const withSummaryCost = async <O extends { readonly summarize?: Summarizer; readonly prices?: PriceTable }, R extends object>(
  o: O,
  run: (o: Omit<O, 'prices'>) => Promise<R>,
): Promise<R & { readonly calls?: ReadonlyArray<CallCostLine> }> => {
  const { prices, ...rest } = o
  const f = o.summarize
  if (f === undefined) return run(rest)
  const priced = callCostLineOf(prices === undefined ? {} : { prices })
  const calls: CallCostLine[] = []
  const summarize: Summarizer = (transcript, context) =>
    f(transcript, {
      ...context,
      onAnswer: (a) => {
        calls.push(priced(a))
        context.onAnswer?.(a)
      },
    })
  const result = await run({ ...rest, summarize })
  return calls.length === 0 ? result : { ...result, calls }
}
