/**
 * Provider-reported usage: tool-token backfill and the usage-corrected context size.
 *
 * @module
 */
import { isInternal } from '../message/accessors.ts'
import { type Message, type Messages } from '../message/message.ts'
import type { Estimator } from './message-tokens.ts'
import { smartHeuristic } from './heuristic.ts'
import { countMessage } from './count.ts'
import { totalOf } from './message-tokens.ts'
import { nonNegativeInt } from '../internal/number.ts'

// --- provider usage ---

const resultLength = (m: Message): number => {
  let n = 0
  for (const p of m.parts) if (p.type === 'tool_result') n += p.content.length
  return n
}

/**
 * Spreads a provider-reported token delta over the tool results added since the last assistant
 * message: a single tool message gets all of it, several share it
 * in proportion to their result content length (evenly when all are empty), in whole tokens that
 * sum to the delta. Each gets `tokens: { total: share }`. Walks back from the end and stops at
 * the first assistant message. Returns the input itself when the delta is not a positive number
 * or there is no such tool message; a fractional delta is rounded down.
 *
 * @example
 * import { backfillToolTokens } from 'chatfold/tokens'
 * import { makeMessage, toolResult } from 'chatfold/message'
 * const result = makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: 'ok' })] })
 * backfillToolTokens(120)([result])[0]?.tokens // { total: 120 }
 *
 * @since 0.1.0
 * @category tokens
 */
export const backfillToolTokens = (delta: number) => (ms: Messages): Messages => {
  const total = Math.floor(delta)
  if (!(total > 0) || !Number.isFinite(total)) return ms
  const at: number[] = []
  for (let i = ms.length - 1; i >= 0; i--) {
    const m = ms[i] as Message
    if (m.role === 'assistant') break
    if (m.role === 'tool') at.push(i)
  }
  if (at.length === 0) return ms
  at.reverse()
  const lengths = at.map((i) => resultLength(ms[i] as Message))
  const sum = lengths.reduce((a, b) => a + b, 0)
  const weights = sum === 0 ? lengths.map(() => 1) : lengths
  const wsum = sum === 0 ? lengths.length : sum
  // Largest remainder: floors first, then one more token to the largest fractions.
  const exact = weights.map((w) => (total * w) / wsum)
  const shares = exact.map(Math.floor)
  let left = total - shares.reduce((a, b) => a + b, 0)
  const order = exact.map((x, j) => [x - Math.floor(x), j] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1])
  for (const [, j] of order) {
    if (left <= 0) break
    shares[j] = (shares[j] ?? 0) + 1
    left--
  }
  const out = ms.slice()
  at.forEach((i, j) => {
    out[i] = { ...(ms[i] as Message), tokens: { total: shares[j] ?? 0 } }
  })
  return out
}

/**
 * What a provider last reported: the context tokens of the request that produced the message
 * `messageId` (prompt plus that message's output, as in `usage.input + usage.output`).
 *
 * @since 0.1.0
 * @category tokens
 */
export type ReportedUsage = { readonly messageId: string; readonly tokens: number }

/**
 * Options of {@link usageCorrected}.
 *
 * @since 0.1.0
 * @category tokens
 */
export type UsageCorrectedOptions = {
  /** The provider's last report; without it (or when its message is gone) everything is estimated. */
  readonly usage?: ReportedUsage
  /** Estimates the messages after the report; `smartHeuristic` by default. */
  readonly estimate?: Estimator
  /**
   * Tokens of one message; default: the one definition with `estimate`, by a counter made for the
   * call. Give the total of a counter you keep (`const counter = countMessage(estimate)`, then
   * `(m) => counter(m).total`) to count a growing history again at the cost of its new messages
   * only. A count of your own must be pure (the same message always has the same count).
   */
  readonly count?: (m: Message) => number
}

/**
 * The context size a provider will see: its last reported usage plus the estimate of the
 * messages after the reported one, what agents do to stay accurate between requests. Only messages
 * that reach a model are estimated (internal kinds never do). When there is no report, or the
 * reported message is no longer in the history (a compaction replaced it), the whole history is
 * estimated.
 *
 * @example
 * import { textMessage } from 'chatfold/message'
 * import { usageCorrected } from 'chatfold/tokens'
 * const history = [textMessage('user', 'Hi', { id: 'u1' }), textMessage('assistant', 'Hello!', { id: 'a1' }), textMessage('user', 'More?')]
 * // the 1,250 reported, plus the estimate of the last message (6)
 * usageCorrected({ usage: { messageId: 'a1', tokens: 1_250 } })(history) // 1_256
 *
 * @since 0.1.0
 * @category tokens
 */
export const usageCorrected = (opts: UsageCorrectedOptions) => (ms: Messages): number => {
  const count = opts.count ?? totalOf(countMessage(opts.estimate ?? smartHeuristic))
  const usage = opts.usage
  let at = -1
  if (usage !== undefined) { for (let i = ms.length - 1; i >= 0 && at < 0; i--) if ((ms[i] as Message).id === usage.messageId) at = i }
  const base = usage !== undefined && at >= 0 && Number.isFinite(usage.tokens) ? Math.max(0, usage.tokens) : 0
  let total = base
  for (let i = at + 1; i < ms.length; i++) {
    const m = ms[i] as Message
    if (!isInternal(m)) total += count(m)
  }
  return total
}

/**
 * The last usage a history records: the newest assistant message whose `metadata.usage` holds the
 * provider's report (`{ input, output, cacheRead?, cacheWrite? }`, as the session readers and the
 * adapters keep it), as the context tokens of that request: prompt (input plus cache reads and
 * writes) plus output. Replies that no model sees again (`display` kind, such as a sub-agent's
 * run) and reports of no prompt (zeros, as a client writes them for a request that failed) are
 * passed over. `undefined` when no message records one. `shouldCompact` and `contextTokens` anchor
 * on it when they are not given a usage of their own.
 *
 * @example
 * import { lastReportedUsage } from 'chatfold/tokens'
 * import { makeMessage, text } from 'chatfold/message'
 * lastReportedUsage([makeMessage({ id: 'a1', role: 'assistant', parts: [text('Done.')], metadata: { usage: { input: 12_000, cacheRead: 30_000, output: 400 } } })])
 * // { messageId: 'a1', tokens: 42_400 }
 *
 * @since 0.1.0
 * @category tokens
 */
export const lastReportedUsage = (ms: Messages): ReportedUsage | undefined => {
  for (let i = ms.length - 1; i >= 0; i--) {
    const m = ms[i] as Message
    // a reply no model sees again (a sub-agent's, kept for display) reported another context
    if (m.role !== 'assistant' || isInternal(m)) continue
    const usage = m.metadata?.['usage']
    if (typeof usage !== 'object' || usage === null || Array.isArray(usage)) continue
    const u = usage as Readonly<Record<string, unknown>>
    if (typeof u['input'] !== 'number') continue
    const n = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? x : 0)
    const prompt = n(u['input']) + n(u['cacheRead']) + n(u['cacheWrite'])
    // a report of no prompt is no count of one (a client writes zeros for a request that failed)
    if (prompt === 0) continue
    return { messageId: m.id, tokens: prompt + n(u['output']) }
  }
  return undefined
}

/**
 * Options of {@link contextTokens}.
 *
 * @since 0.1.0
 * @category tokens
 */
export type ContextTokensOptions = UsageCorrectedOptions & {
  /**
   * Tokens the request carries outside the history, in the provider's tokens (the `tools` of
   * `countModelRequest`, which are calibrated already; and the system prompt when it is not a
   * message of the history). Counted only while no report anchors the count: a report counts them.
   */
  readonly fixedTokens?: number
  /**
   * The ratio of the provider's tokenizer to the estimate (`DEFAULT_CALIBRATION[provider]`, or
   * `calibrationFromUsage(…)(history)`), applied to the estimated messages: those after the report,
   * or all of them when none anchors. Default 1 (no correction).
   */
  readonly calibration?: number
}

/**
 * The context a provider will see, and where its figure comes from: the report that anchors it
 * (`anchor`, the reported message's id, and `reported`, its tokens), the estimate of the messages
 * that reach a model after it (all of them when no report anchors) times the calibration
 * (`estimated`), the fixed tokens added when no report anchors (`fixed`), and their sum (`total`).
 *
 * @example
 * import type { ContextTokens } from 'chatfold/tokens'
 * const c: ContextTokens = { total: 42_650, reported: 42_400, estimated: 250, fixed: 0, anchor: 'a1' }
 *
 * @since 0.1.0
 * @category tokens
 */
export type ContextTokens = {
  readonly total: number
  readonly reported: number
  readonly estimated: number
  readonly fixed: number
  readonly anchor?: string
}

/**
 * The usage-anchored context size with its parts: `usageCorrected` with the provider's last report
 * (`usage`, by default the last one the history records: `lastReportedUsage`), a `calibration` of
 * the estimate between reports, and the request's `fixedTokens` when nothing anchors. After a
 * report, the only estimated part is what was added since: the figure's error is that estimate's.
 * What `shouldCompact`, the engine's sessions and `chatfold stats` answer.
 *
 * @example
 * import { contextTokens, makeMessage, text, textMessage } from 'chatfold'
 * const history = [
 *   textMessage('user', 'Hi'),
 *   makeMessage({ id: 'a1', role: 'assistant', parts: [text('Hello!')], metadata: { usage: { input: 12_000, output: 40 } } }),
 *   textMessage('user', 'Go on.'),
 * ]
 * // the 12,040 reported, plus 1.25 × the estimate of the last message
 * contextTokens({ calibration: 1.25 })(history) // { total: 12_049, reported: 12_040, estimated: 9, fixed: 0, anchor: 'a1' }
 *
 * @since 0.1.0
 * @category tokens
 */
export const contextTokens = (opts: ContextTokensOptions) => (ms: Messages): ContextTokens => {
  const count = opts.count ?? totalOf(countMessage(opts.estimate ?? smartHeuristic))
  const usage = opts.usage ?? lastReportedUsage(ms)
  let at = -1
  if (usage !== undefined) { for (let i = ms.length - 1; i >= 0 && at < 0; i--) if ((ms[i] as Message).id === usage.messageId) at = i }
  const anchored = usage !== undefined && at >= 0
  const reported = anchored && Number.isFinite(usage.tokens) ? Math.max(0, usage.tokens) : 0
  let sum = 0
  for (let i = at + 1; i < ms.length; i++) {
    const m = ms[i] as Message
    if (!isInternal(m)) sum += count(m)
  }
  const ratio = opts.calibration !== undefined && Number.isFinite(opts.calibration) && opts.calibration > 0 ? opts.calibration : 1
  const estimated = Math.round(sum * ratio)
  const fixed = anchored ? 0 : nonNegativeInt(opts.fixedTokens, 0)
  return { total: reported + estimated + fixed, reported, estimated, fixed, ...(anchored ? { anchor: usage.messageId } : {}) }
}
