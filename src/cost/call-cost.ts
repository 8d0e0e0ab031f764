/**
 * What one model call cost: the usage its answer reports, in the AI SDK's shape (`generateText`'s
 * result, a step of it, `streamText`'s `onFinish` event, or what a summariser tells
 * `SummarizerContext.onAnswer`), priced by its model's row in a price table.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { type Charge, chargeOf, type CostUsage, type MissingRateFailure } from './charge.ts'
import { priceOf } from './lookup.ts'
import type { PriceTable } from './price.ts'
import { PRICES } from './prices.ts'

/**
 * The parts of a model's answer {@link callCostOf} reads, in the AI SDK's shape (a summariser of
 * `chatfold/summarize/…` tells every provider's answer so): the model that answered
 * (`response.modelId`) and the usage (`LanguageModelUsage`: `inputTokens`, `inputTokenDetails`,
 * `outputTokens`, `outputTokenDetails`).
 *
 * @example
 * import type { CallAnswer } from 'chatfold/cost'
 * const a: CallAnswer = { response: { modelId: 'gpt-5' }, usage: { inputTokens: 1_200, outputTokens: 80, inputTokenDetails: { cacheReadTokens: 1_024 } } }
 *
 * @since 0.1.0
 * @category cost
 */
export type CallAnswer = {
  readonly response?: { readonly modelId?: string | undefined } | undefined
  readonly usage?:
    | {
      readonly inputTokens?: number | undefined
      readonly outputTokens?: number | undefined
      readonly inputTokenDetails?: {
        readonly noCacheTokens?: number | undefined
        readonly cacheReadTokens?: number | undefined
        readonly cacheWriteTokens?: number | undefined
      } | undefined
      readonly outputTokenDetails?: { readonly reasoningTokens?: number | undefined } | undefined
    }
    | undefined
}

/**
 * Why a call could not be priced: its answer reports no usage (`no-usage`), names no model
 * (`no-model`), names a model the table lacks (`unpriced`), or used a kind of token its row has no
 * rate for (`missing-rate`).
 *
 * @example
 * import type { CallCostFailure } from 'chatfold/cost'
 * const f: CallCostFailure = { kind: 'unpriced', model: 'in-house-7b' }
 *
 * @since 0.1.0
 * @category cost
 */
export type CallCostFailure =
  | { readonly kind: 'no-usage' }
  | { readonly kind: 'no-model' }
  | { readonly kind: 'unpriced'; readonly model: string }
  | MissingRateFailure

const n = (x: number | undefined): number => (x !== undefined && Number.isFinite(x) && x > 0 ? x : 0)

/**
 * The cost of one model call, in USD by kind of token (see `chargeOf` of `chatfold/cost`): its
 * answer's usage, with the prompt split as the provider reported it (tokens not cached, read from
 * the cache, written to it; the AI SDK counts the cached ones inside `inputTokens`), priced by the
 * row of `response.modelId` in `prices` (`PRICES` by default). A call whose cost cannot be known
 * is a `Left` that says why, never a zero.
 *
 * @example
 * import { callCostOf } from 'chatfold/cost'
 * import * as E from 'fp-ts/Either'
 * const cost = callCostOf({})({ response: { modelId: 'gpt-5' }, usage: { inputTokens: 1_000_000, outputTokens: 0, inputTokenDetails: { cacheReadTokens: 800_000 } } })
 * // 200,000 at $1.25 and 800,000 read from the cache at $0.125, per million
 * E.isRight(cost) && cost.right.total // 0.35
 * E.isLeft(callCostOf({})({ response: { modelId: 'in-house-7b' }, usage: { inputTokens: 10, outputTokens: 2 } })) // true
 *
 * @since 0.1.0
 * @category cost
 */
export const callCostOf = (opts: { readonly prices?: PriceTable }) => (answer: CallAnswer): E.Either<CallCostFailure, Charge> => {
  const u = answer.usage
  if (u === undefined || (u.inputTokens === undefined && u.outputTokens === undefined)) return E.left({ kind: 'no-usage' })
  const model = answer.response?.modelId
  if (model === undefined || model === '') return E.left({ kind: 'no-model' })
  const row = priceOf(opts.prices ?? PRICES)(model)
  if (O.isNone(row)) return E.left({ kind: 'unpriced', model })
  const cacheRead = n(u.inputTokenDetails?.cacheReadTokens)
  const cacheWrite = n(u.inputTokenDetails?.cacheWriteTokens)
  const noCache = u.inputTokenDetails?.noCacheTokens
  const usage: CostUsage = {
    input: noCache !== undefined ? n(noCache) : Math.max(0, n(u.inputTokens) - cacheRead - cacheWrite),
    output: n(u.outputTokens),
    cacheRead,
    cacheWrite,
    reasoning: n(u.outputTokenDetails?.reasoningTokens),
  }
  return chargeOf(row.value)(usage)
}

/**
 * One call's cost as `contextMiddleware`'s record, `contextPrepareStep`, the sessions and the
 * engine's compaction report it
 * (plain JSON): the model and its charge in USD (`usd`, the charge's total), or, when the call could
 * not be priced, `usd: null` and why (`unpriced`: never counted as zero). `model` is `null` when the
 * answer names none.
 *
 * @example
 * import type { CallCostLine } from 'chatfold/cost'
 * const priced: CallCostLine = { model: 'gpt-5', usd: 0.35, charge: { input: 0.25, output: 0, cacheRead: 0.1, cacheWrite: 0, total: 0.35, longContext: false } }
 * const unpriced: CallCostLine = { model: 'in-house-7b', usd: null, unpriced: { kind: 'unpriced', model: 'in-house-7b' } }
 *
 * @since 0.1.0
 * @category cost
 */
export type CallCostLine =
  | { readonly model: string; readonly usd: number; readonly charge: Charge }
  | { readonly model: string | null; readonly usd: null; readonly unpriced: CallCostFailure }

/**
 * {@link callCostOf} as a cost line: the model and the charge, or the model (if named) and why the
 * call has no price.
 *
 * @example
 * import { callCostLineOf } from 'chatfold/cost'
 * callCostLineOf({})({ response: { modelId: 'gpt-5' }, usage: { inputTokens: 1_000_000, outputTokens: 0 } }).usd // 1.25
 * callCostLineOf({})({ response: { modelId: 'in-house-7b' }, usage: { inputTokens: 10, outputTokens: 2 } }).usd // null
 *
 * @since 0.1.0
 * @category cost
 */
export const callCostLineOf = (opts: { readonly prices?: PriceTable }) => (answer: CallAnswer): CallCostLine => {
  const c = callCostOf(opts)(answer)
  const model = answer.response?.modelId
  const named = model === undefined || model === '' ? null : model
  if (E.isLeft(c)) return { model: named, usd: null, unpriced: c.left }
  return { model: named ?? '', usd: c.right.total, charge: c.right }
}
