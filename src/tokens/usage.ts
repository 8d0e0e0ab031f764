/**
 * Provider-reported usage: tool-token backfill (seed 003) and the usage-corrected context size.
 *
 * @module
 */
import type { Message, Messages } from '../message.ts'
import type { Estimator } from '../messages/prune.ts'
import { smartHeuristic } from './heuristic.ts'
import { countMessage } from './count.ts'
import { totalOf } from '../messages/message-tokens.ts'

// --- provider usage ---

const resultLength = (m: Message): number => {
  let n = 0
  for (const p of m.parts) if (p.type === 'tool_result') n += p.content.length
  return n
}

/**
 * Spreads a provider-reported token delta over the tool results added since the last assistant
 * message (seed 003 `BackfillToolTokens`): a single tool message gets all of it, several share it
 * in proportion to their result content length (evenly when all are empty), in whole tokens that
 * sum to the delta. Each gets `tokens: { total: share }`. Walks back from the end and stops at
 * the first assistant message. Returns the input itself when the delta is not a positive number
 * or there is no such tool message; a fractional delta is rounded down.
 *
 * @example
 * import { backfillToolTokens, makeMessage, toolResult } from 'chatfold'
 * const result = makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: 'ok' })] })
 * backfillToolTokens(120)([result])[0]?.tokens // { total: 120 }
 *
 * @since 0.1.0
 * @category tokens
 */
export const backfillToolTokens =
  (delta: number) =>
  (ms: Messages): Messages => {
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
 * import { textMessage, usageCorrected } from 'chatfold'
 * const history = [textMessage('user', 'Hi', { id: 'u1' }), textMessage('assistant', 'Hello!', { id: 'a1' }), textMessage('user', 'More?')]
 * usageCorrected({ usage: { messageId: 'a1', tokens: 1_250 } })(history) // 1,250 plus the last message's estimate
 *
 * @since 0.1.0
 * @category tokens
 */
export const usageCorrected =
  (opts: UsageCorrectedOptions) =>
  (ms: Messages): number => {
    const count = opts.count ?? totalOf(countMessage(opts.estimate ?? smartHeuristic))
    const usage = opts.usage
    let at = -1
    if (usage !== undefined) for (let i = ms.length - 1; i >= 0 && at < 0; i--) if ((ms[i] as Message).id === usage.messageId) at = i
    const base = usage !== undefined && at >= 0 && Number.isFinite(usage.tokens) ? Math.max(0, usage.tokens) : 0
    let total = base
    for (let i = at + 1; i < ms.length; i++) {
      const m = ms[i] as Message
      if (m.kind !== 'display' && m.kind !== 'bookmark' && m.kind !== 'metadata') total += count(m)
    }
    return total
  }
