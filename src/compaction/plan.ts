/**
 * When to compact and where to cut: `shouldCompact` compares the context a provider will see with
 * the window, `planCompaction` splits a history into the head to summarise and the recent tail to
 * keep verbatim.
 *
 * @module
 */
import { type ContentPointer, refOf, withPointers } from '../history/pointer.ts'
import { utf8Hash } from '../internal/content-hash.ts'
import { toolResultText } from '../message/tool-result-content.ts'
import { isInternal } from '../message/accessors.ts'
import { type Message, type Messages } from '../message/message.ts'
import type { Part, ToolResultPart } from '../message/part-model.ts'
import { forPreservation, lastCompactionBoundary } from '../history/views.ts'
import type { Estimator } from '../tokens/message-tokens.ts'
import { countMessage } from '../tokens/count.ts'
import { totalOf } from '../tokens/message-tokens.ts'
import { smartHeuristic } from '../tokens/heuristic.ts'
import { contextTokens, type ReportedUsage } from '../tokens/usage.ts'
import { systemPrefix } from './system-prefix.ts'
import { tailBudget, type WindowBudget } from './window.ts'

export { SUMMARY_ALLOWANCE, type WindowBudget } from './window.ts'
import { nonNegativeInt } from '../internal/number.ts'
import type { ArtifactLedger } from '../history/artifact-ledger.ts'
import type { Receipt } from '../history/receipt.ts'
import { planReceipt } from './_plan-receipt.ts'

// --- shouldCompact ---

/**
 * Options of {@link shouldCompact}.
 *
 * @since 0.1.0
 * @category compaction
 */
export type ShouldCompactOptions = {
  /** The model's context window, in tokens. */
  readonly contextWindow: number
  /** Tokens to keep free: the answer, the next tool results, the summary itself. */
  readonly reserveTokens: number
  /** Estimates what the provider has not reported yet; `smartHeuristic` by default. */
  readonly estimate?: Estimator
  /**
   * Tokens of one message; default: the one definition with `estimate`, by a counter made for the
   * call. Give the total of a counter you keep (`const counter = countMessage(estimate)`, then
   * `(m) => counter(m).total`) to count a growing history again at the cost of its new messages
   * only. A count of your own must be pure (the same message always has the same count).
   */
  readonly count?: (m: Message) => number
  /**
   * The provider's last report (see `usageCorrected`); by default the last one the history records
   * (`lastReportedUsage`). A report counts the whole request, its tools included.
   */
  readonly usage?: ReportedUsage
  /**
   * Tokens the request carries outside the history, in the provider's tokens: its tool definitions
   * (the `tools` of `countModelRequest`, calibrated already), and its system prompt when that is not
   * a message of the history. Added to the estimate while no report anchors it (a report already
   * counts them).
   */
  readonly fixedTokens?: number
  /**
   * The ratio of the provider's tokenizer to the estimate (`DEFAULT_CALIBRATION[provider]`, or
   * `calibrationFromUsage(…)(history)`), applied to what is estimated: the messages after the
   * report, or all of them when none anchors. Default 1 (the estimate as it is).
   */
  readonly calibration?: number
}

/**
 * Whether a history no longer leaves `reserveTokens` free in the context window: the context a
 * provider will see (`contextTokens`: its last reported usage, given or recorded in the history,
 * plus the estimate of the messages after it times `calibration`; or else the calibrated estimate
 * of everything that reaches a model plus the request's `fixedTokens`, its tool definitions) is
 * above `contextWindow − reserveTokens`. A report anchors the count up, never down: when the
 * estimate of the whole history is above the window, the answer is true whatever was reported.
 *
 * @example
 * import { shouldCompact, textMessage } from 'chatfold'
 * shouldCompact({ contextWindow: 200_000, reserveTokens: 20_000 })([textMessage('user', 'hi')]) // false
 *
 * @since 0.1.0
 * @category compaction
 */
export const shouldCompact = (opts: ShouldCompactOptions) => (ms: Messages): boolean => {
  const limit = nonNegativeInt(opts.contextWindow, 0) - nonNegativeInt(opts.reserveTokens, 0)
  const count = opts.count ?? totalOf(countMessage(opts.estimate ?? smartHeuristic))
  const anchored = contextTokens({ ...opts, count })(ms)
  if (anchored.total > limit) return true
  if (anchored.anchor === undefined) return false
  // never under the fresh estimate: a report lower than it anchors nothing
  const ratio = opts.calibration !== undefined && Number.isFinite(opts.calibration) && opts.calibration > 0 ? opts.calibration : 1
  let fresh = 0
  for (const m of ms) if (!isInternal(m)) fresh += count(m)
  return Math.round(fresh * ratio) + nonNegativeInt(opts.fixedTokens, 0) > limit
}

// --- planCompaction ---

/**
 * Options of {@link planCompaction}.
 *
 * @since 0.1.0
 * @category compaction
 */
export type PlanOptions = WindowBudget & {
  /**
   * The budget of the recent tail kept verbatim, in the estimate's tokens; default 20,000. With a
   * `contextWindow`, the budget is at most what the window leaves (see `WindowBudget`).
   */
  readonly keepRecentTokens?: number
  /** Estimates messages (and, to fit the tail, tool results); `smartHeuristic` by default. */
  readonly estimate?: Estimator
  /**
   * Tokens of one message; default: the one definition with `estimate`, by a counter made for the
   * call. Give the total of a counter you keep (`const counter = countMessage(estimate)`, then
   * `(m) => counter(m).total`) to count a growing history again at the cost of its new messages
   * only. A count of your own must be pure (the same message always has the same count).
   */
  readonly count?: (m: Message) => number
  /**
   * Where the tail may start: `turn` (default) at a user message, inside the last turn only when
   * not even that turn fits; `message` at any message that separates no tool call from its result.
   */
  readonly boundary?: 'turn' | 'message'
}

/**
 * A compaction plan: the history split into the system prompt, the head to summarise and the
 * tail to keep.
 *
 * @since 0.1.0
 * @category compaction
 */
export type CompactionPlan = {
  /** The leading system message(s), kept first. */
  readonly system: Messages
  /** The messages to summarise: everything between the system prompt and the cut. */
  readonly head: Messages
  /**
   * The recent tail kept verbatim, with `forPreservation` semantics (normal messages only; a tool
   * call whose result it drops goes too). Results may be cut to fit (see `truncatedResults`).
   */
  readonly preserved: Messages
  /** The index of the input where the tail starts. */
  readonly cut: number
  /** Whether the cut is inside a turn (the tail starts with an assistant or tool message). */
  readonly splitTurn: boolean
  /** Tool call ids whose results were cut so that the newest call and its results fit the budget. */
  readonly truncatedResults: ReadonlyArray<string>
  /** Estimated tokens of each part (messages that reach a model). */
  readonly tokens: { readonly system: number; readonly head: number; readonly preserved: number }
  /**
   * What carrying the plan out takes from the history, itemised (a dry run: `compact`'s report
   * gives this receipt when it compacts): the head's message ids, the other messages archived, the
   * tool calls that leave, the results cut to fit the tail, the artifacts only the dropped part holds.
   * Empty when the head is.
   */
  readonly receipt: Receipt
  /**
   * The artifact ledger of every message that leaves the history (earlier summaries' ledgers
   * merged in), which `compact` keeps in the summary's `metadata.ledger`.
   */
  readonly ledger: ArtifactLedger
}

/**
 * For each cut index `c` (the tail is `ms[c..]`), whether it separates a tool call from its
 * result: a result at `j` answering a call at `i < j` makes every `c` in `(i, j]` unsafe.
 */
const unsafeCuts = (ms: Messages, from: number): Int32Array => {
  const depth = new Int32Array(ms.length + 2)
  const callAt = new Map<string, number>()
  for (let i = from; i < ms.length; i++) {
    for (const p of (ms[i] as Message).parts) {
      if (p.type === 'tool_call') callAt.set(p.id, i)
      else if (p.type === 'tool_result') {
        const j = callAt.get(p.toolCallId)
        if (j !== undefined && j < i) {
          depth[j + 1] = (depth[j + 1] ?? 0) + 1
          depth[i + 1] = (depth[i + 1] ?? 0) - 1
        }
      }
    }
  }
  for (let c = 1; c < depth.length; c++) depth[c] = (depth[c] ?? 0) + (depth[c - 1] ?? 0)
  return depth
}

/**
 * A tool result (of message `messageId`) cut to `keep` characters, with a marker saying how much
 * compaction removed and showing the reference of the pointer to the whole (read back from the
 * history before the compaction), and that pointer.
 */
const cutResult = (p: ToolResultPart, keep: number, messageId: string): { readonly part: ToolResultPart; readonly pointer: ContentPointer } => {
  const text = toolResultText(p)
  const pointer: ContentPointer = { messageId, toolCallId: p.toolCallId, part: 'result', hash: utf8Hash(text) }
  return { part: { ...p, content: cutText(text, keep, refOf(pointer)) }, pointer }
}

/** Text cut to `keep` characters (never inside a surrogate pair), with a marker saying how much was cut and the reference to the whole. */
const cutText = (content: string, keep: number, ref: string): string => {
  const p = { content }
  const marker = `\n[… ${p.content.length - keep} of ${p.content.length} characters cut by compaction, ref ${ref}]`
  let n = Math.max(0, keep)
  const c = p.content.charCodeAt(n - 1)
  if (n > 0 && c >= 0xd800 && c <= 0xdbff) n--
  return p.content.slice(0, n) + marker
}

/**
 * Shrinks the tool results of a tail that alone is over budget, in proportion to their size, so
 * that the tail fits (the call and its result stay; only result content is cut).
 */
const fitTail = (
  tail: Messages,
  budget: number,
  estimate: Estimator,
  count: (m: Message) => number,
): { readonly messages: Messages; readonly truncated: ReadonlyArray<string> } => {
  let resultTokens = 0
  let total = 0
  for (const m of tail) {
    total += count(m)
    for (const p of m.parts) if (p.type === 'tool_result') resultTokens += estimate(toolResultText(p))
  }
  if (total <= budget || resultTokens === 0) return { messages: tail, truncated: [] }
  const ratio = Math.max(0, Math.min(1, (resultTokens - (total - budget)) / resultTokens))
  const truncated: string[] = []
  const messages = tail.map((m) => {
    if (!m.parts.some((p) => p.type === 'tool_result')) return m
    const pointers: ContentPointer[] = []
    const parts = m.parts.map((p): Part => {
      if (p.type !== 'tool_result') return p
      const keep = Math.floor(p.content.length * ratio)
      if (keep >= p.content.length) return p
      truncated.push(p.toolCallId)
      const cut = cutResult(p, keep, m.id)
      pointers.push(cut.pointer)
      return cut.part
    })
    return pointers.length === 0 ? { ...m, parts } : { ...m, parts, metadata: withPointers(m.metadata, pointers) }
  })
  return { messages, truncated }
}

/**
 * Splits a history for compaction: the system prompt (kept first), the head to summarise, and the
 * recent tail worth at most `keepRecentTokens` kept verbatim (`forPreservation` semantics). The
 * cut never separates a tool call from its result, and starts a turn (a user message) unless not
 * even the last turn fits, in which case it falls inside that turn and `splitTurn` says so. When
 * the newest call and its results alone are over the budget, they are kept and their result
 * content is cut in proportion so that the tail fits (`truncatedResults` lists them), rather than
 * overshooting or keeping nothing. Given a `contextWindow` (see `WindowBudget`), the budget is also
 * capped so that the whole request after the compaction (system prompt, a summary of
 * `summaryTokens`, the tail, the request's `fixedTokens`) fits in `contextWindow − reserveTokens`.
 * After a provider's compaction boundary (`lastCompactionBoundary`)
 * the head starts at the boundary: what the boundary replaced is in none of the three parts, and
 * so goes to the archive when the history is rebuilt. Nothing is lost: the input keeps every original.
 *
 * @example
 * import { planCompaction } from 'chatfold'
 * declare const history: import('chatfold').Messages
 * const { head, preserved, splitTurn, receipt } = planCompaction({ keepRecentTokens: 20_000 })(history)
 * receipt.summarised // the ids of the messages a compaction would summarise, before anything runs
 *
 * @since 0.1.0
 * @category compaction
 */
export const planCompaction = (opts: PlanOptions) => (ms: Messages): CompactionPlan => {
  const estimate = opts.estimate ?? smartHeuristic
  const count = opts.count ?? totalOf(countMessage(estimate))
  const sys = systemPrefix(ms)
  const sum = (xs: Messages): number => xs.reduce((a, m) => (isInternal(m) ? a : a + count(m)), 0)
  const system = ms.slice(0, sys)
  const systemTokens = sum(system)
  const budget = tailBudget(nonNegativeInt(opts.keepRecentTokens, 20_000), opts, systemTokens)
  // A provider's compaction boundary is where the history starts for the provider: what precedes
  // it (but the system prompt) is neither summarised again nor kept, and is archived.
  const start = Math.max(sys, lastCompactionBoundary(ms)?.message ?? 0)
  const n = ms.length
  const unsafe = unsafeCuts(ms, sys)
  const anyBoundary = opts.boundary === 'message'

  // Walk back from the newest message while the kept messages fit.
  let tokens = 0
  let best = n // the earliest safe cut within budget
  let bestTurn = n // the earliest safe cut at a user message within budget
  for (let c = n - 1; c >= start; c--) {
    const m = ms[c] as Message
    const safe = (unsafe[c] ?? 0) === 0
    if (m.kind === 'normal') tokens += count(m)
    if (tokens > budget) break
    if (safe) {
      best = c
      if (m.role === 'user' && m.kind === 'normal') bestTurn = c
    }
  }
  let newest = n - 1 // the latest safe cut before the end: the smallest tail there is
  while (newest > start && (unsafe[newest] ?? 0) !== 0) newest--
  let cut = anyBoundary ? best : bestTurn < n ? bestTurn : best
  let preserved: Messages
  let truncated: ReadonlyArray<string> = []
  if (cut === n && newest >= start) {
    // Not even the newest unit fits: keep it, with its results cut to fit.
    cut = newest
    const fitted = fitTail(forPreservation(ms.slice(cut)), budget, estimate, count)
    preserved = fitted.messages
    truncated = fitted.truncated
  } else preserved = forPreservation(ms.slice(cut))
  const first = ms[cut]
  const head = ms.slice(start, cut)
  const { receipt, ledger } = planReceipt(estimate, { input: ms, sys, start, cut, preserved })
  return {
    system,
    head,
    preserved,
    cut,
    splitTurn: first !== undefined && !(first.role === 'user' && first.kind === 'normal'),
    truncatedResults: truncated,
    tokens: { system: systemTokens, head: sum(head), preserved: sum(preserved) },
    receipt,
    ledger,
  }
}
