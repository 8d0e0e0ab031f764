/**
 * Token counts without the tokenizer's tables: the {@link Estimator} contract, two synchronous
 * heuristics, per-message counts with the `{ total, content, thinking, tools }` breakdown (cached by
 * message identity in the counter you keep), and the provider's reported usage as the anchor of a
 * history's size. Exact counts with gpt-tokenizer's encodings are in `chatfold/tokenizer`; this
 * module loads no rank table, so it fits bundles with tight size limits.
 *
 * An estimator never throws and never stalls: {@link guardEstimator} makes any counter safe on
 * pathological text by cutting long runs.
 *
 * @example
 * import { countMessages, smartHeuristic } from 'chatfold/tokens'
 * import { textMessage } from 'chatfold/message'
 * countMessages(smartHeuristic)([textMessage('user', 'Hello, world!')]) > 0 // true
 *
 * @module
 */
export { type Estimator, IMAGE_TOKENS, MESSAGE_OVERHEAD, type TokenBreakdown } from './message-tokens.ts'
export { heuristic, smartHeuristic } from './heuristic.ts'
export { guardEstimator } from './guard.ts'
export { countMessage, countMessages, withTokens } from './count.ts'
export {
  backfillToolTokens,
  type ContextTokens,
  contextTokens,
  type ContextTokensOptions,
  lastReportedUsage,
  type ReportedUsage,
  usageCorrected,
  type UsageCorrectedOptions,
} from './usage.ts'
export {
  type LastRequestUsage,
  type MessageUsage,
  type ModelUsage,
  type RecordedUsage,
  recordedUsage,
  type RecordedUsageOptions,
  type UsageEstimates,
  type UsageFigures,
} from './recorded-usage.ts'
