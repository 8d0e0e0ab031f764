/**
 * The engine's work on a history, as plain-data calls: the pure functions of tokens, pruning and
 * compaction, given an estimator chosen by name and the counter that keeps its counts (the
 * service's, one per encoding). Shared by the service's stateless calls and its resident sessions.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import { createPruner } from '../history/prune-incremental.ts'
import { type PruneChange, type PruneOptions, type PrunerResult, type PruneReport, type PruneResult } from '../history/prune-options.ts'
import { pruneToolResultsWithReport } from '../history/prune.ts'
import { countMessage } from '../tokens/count.ts'
import { type Estimator } from '../tokens/message-tokens.ts'
import { definitionCount, totalOf } from '../tokens/message-tokens.ts'
import { type CompactionPlan, type PlanOptions, planCompaction, type ShouldCompactOptions } from '../compaction/plan.ts'
import type { ContextTokensOptions } from '../tokens/usage.ts'
import { compact as compactWith, type CompactOptions, type CompactionReport, type CompactResult, type Summarizer, type SummarizerContext, type Summary } from '../compaction/compact.ts'
import { extractiveSummarize } from '../compaction/extractive.ts'
import type { EngineProgress, HistoryChanges, MessageChange } from './types.ts'

// --- options ---

/**
 * Options of the engine's pruning: `pruneToolResults`'s, as plain data (the estimator and counter
 * are the engine's own; the counter keeps its counts).
 *
 * @since 0.1.0
 * @category engine
 */
export type EnginePruneOptions = Omit<PruneOptions, 'estimate' | 'count' | 'placeholder'>

/**
 * A resident session's prune: its report, the replaced messages with their positions, and the
 * session's tokens after it.
 *
 * @since 0.1.0
 * @category engine
 */
export type SessionPruneResult = HistoryChanges & { readonly report: PruneReport; readonly tokens: number }

/**
 * Options of the engine's compaction planning: `planCompaction`'s, as plain data (the estimator is
 * the engine's).
 *
 * @since 0.1.0
 * @category engine
 */
export type EnginePlanOptions = Omit<PlanOptions, 'estimate' | 'count'>

/**
 * Options of a session's `contextTokens`: `contextTokens`'s, as plain data (the session's counter
 * gives the messages' counts, cached). The report it anchors on is the last one the resident
 * history records unless `usage` gives another.
 *
 * @since 0.2.0
 * @category engine
 */
export type EngineContextOptions = Omit<ContextTokensOptions, 'estimate' | 'count'>

/**
 * Options of a session's `shouldCompact`: `shouldCompact`'s, as plain data (the session's counter
 * gives the messages' counts, cached).
 *
 * @since 0.2.0
 * @category engine
 */
export type EngineShouldCompactOptions = Omit<ShouldCompactOptions, 'estimate' | 'count'>

/**
 * A resident session's compaction plan, small: how many messages fall in each part instead of the
 * parts themselves, and the plan's cut, flags and tokens.
 *
 * @since 0.1.0
 * @category engine
 */
export type SessionPlan = Omit<CompactionPlan, 'system' | 'head' | 'preserved'> & {
  readonly messages: { readonly system: number; readonly head: number; readonly preserved: number }
}

/**
 * Options of the engine's compaction: `compact`'s, as plain data, with the summariser optional
 * (the embedded extractive one by default, run where the engine runs). A `summarize` you pass runs
 * on your side: in worker mode the engine calls it across the thread boundary (a Comlink proxy),
 * with your call's signal.
 *
 * @since 0.1.0
 * @category engine
 */
export type EngineCompactOptions = Omit<CompactOptions, 'summarize' | 'signal' | 'onProgress' | 'estimate' | 'count'> & {
  readonly summarize?: Summarizer
  /**
   * A compaction that has not finished after this many ms (default `COMPACT_TIMEOUT`, five minutes)
   * rejects with a `TimeoutError`, aborts the summariser's signal and leaves the session as it was;
   * `Infinity` waits for ever.
   */
  readonly timeout?: number
}

/**
 * How long an engine compaction may take by default (ms): five minutes, so that a summariser that
 * never settles cannot hold its session for good.
 *
 * @since 0.2.0
 * @category engine
 */
export const COMPACT_TIMEOUT = 300_000

/**
 * A resident session's compaction: the rebuilt history (system prompt, summary, preserved tail:
 * small), how many messages went to the archive (your copy still has them), the report, and the
 * session's tokens after it.
 *
 * @since 0.1.0
 * @category engine
 */
export type SessionCompactResult = {
  readonly messages: Messages
  readonly archived: number
  readonly report: CompactionReport
  readonly tokens: number
}

/**
 * A summariser as the service receives it: one proxied from the caller, given the prompt and the
 * messages to summarise (the call's signal stays on the caller's side, where the caller's
 * summariser gets it); it answers text or a provider's compaction boundary, both plain data.
 *
 * @since 0.1.0
 * @category engine
 */
export type RemoteSummarizer = (transcript: string, context: Omit<SummarizerContext, 'signal'>) => Promise<Summary>

// --- counting ---

/** The per-message total of a new counter (`countMessage(estimate)`), marked as the one definition: keep it, with its cache. */
export const counter = (estimate: Estimator): ((m: Message) => number) => definitionCount(estimate, totalOf(countMessage(estimate)))

// --- diffs ---

/**
 * What turned `before` into `after` (same positions: messages replaced by identity) and the change
 * in tokens; a history of another length is reported whole. One walk over the whole history: what
 * a session prune's changes must equal (it finds them from the pruners' changes instead).
 */
export const diffHistories = (
  before: Messages,
  after: Messages,
  count: (m: Message) => number,
): { readonly changes: ReadonlyArray<MessageChange>; readonly length: number; readonly delta: number } => {
  const changes: MessageChange[] = []
  let delta = 0
  if (before.length === after.length) {
    for (let i = 0; i < after.length; i++) {
      const a = before[i] as Message
      const b = after[i] as Message
      if (a !== b) {
        changes.push({ index: i, message: b })
        delta += count(b) - count(a)
      }
    }
  } else {
    for (let i = 0; i < after.length; i++) changes.push({ index: i, message: after[i] as Message })
    for (const m of after) delta += count(m)
    for (const m of before) delta -= count(m)
  }
  return { changes, length: after.length, delta }
}

// --- operations ---

/** A prune of a history given whole, with the engine's estimator and counter: the pure one (there is no call before to take over from). */
export const pruneOnce = (options: EnginePruneOptions, estimate: Estimator, count: (m: Message) => number): ((ms: Messages) => PruneResult) =>
  pruneToolResultsWithReport({ ...options, estimate, count })

/**
 * A pruner as a session keeps it (one per options): the incremental pruner, whose each answer also
 * gives the changes of its answer before, to which its `carried` refers. When every change of an
 * answer is the previous answer's own, the previous answer's array is given again as its changes
 * (the same records), so that a session holding it sees nothing new.
 */
export type Pruner = (ms: Messages) => PrunerResult & { readonly previous: ReadonlyArray<PruneChange> }

/**
 * A pruner with the engine's estimator and a counter (by default a new one; a session gives its
 * own). It remembers what it pruned: keep it for the next turn.
 */
export const prune = (options: EnginePruneOptions, estimate: Estimator, count: (m: Message) => number = counter(estimate)): Pruner => {
  const pruner = createPruner({ ...options, estimate, count })
  let previous: ReadonlyArray<PruneChange> = []
  return (ms) => {
    const { messages, report, changes, carried } = pruner.prune(ms)
    const same = carried === changes.length && carried === previous.length
    const answer = { messages, report, changes: same ? previous : changes, carried, previous }
    previous = answer.changes
    return answer
  }
}

/**
 * A session's history as a prune reads it: as appended, and where the resident history (the
 * appended one with the last prune's changes, as long as it) differs from it.
 */
export type PruneSession = {
  /** The history as appended (since the open or the last compaction), before any pruning. */
  readonly appended: Messages
  /** The last prune's changes, against the history it was given: where the resident history differs from the appended one. */
  readonly pruned: ReadonlyArray<PruneChange>
}

/**
 * A session's prune: the pruner's result and its changes (against the appended history, the
 * session's next `pruned`), what it changed in the resident history, and the change in tokens.
 */
export type PruneChanges = PruneResult & {
  readonly pruned: ReadonlyArray<PruneChange>
  readonly changes: ReadonlyArray<MessageChange>
  readonly length: number
  readonly delta: number
}

/**
 * Prunes a session: `pruner` runs on the history as appended, and answers what changed against the
 * resident history (the result of the session's last prune, which may have had other options), with
 * the token delta. The one place a session prune's changes come from.
 *
 * The resident and the pruned history both differ from the appended one only where a prune changed
 * it, so they can differ from each other only there: at the positions of the last prune's changes
 * and of this one's, merged in index order. When the last prune was this pruner's previous answer,
 * the changes this answer carried over from it are the same records in both, and only the rest are
 * looked at: a turn later, the few messages that newly left the protected tail.
 */
export const pruneChanges =
  (pruner: Pruner, count: (m: Message) => number) =>
  (session: PruneSession): PruneChanges => {
    const { appended } = session
    const { messages, report, changes: pruned, carried, previous } = pruner(appended)
    const before = session.pruned
    const from = before === previous ? carried : 0
    const changes: MessageChange[] = []
    let delta = 0
    let j = from
    let k = from
    while (j < before.length || k < pruned.length) {
      const b = before[j]
      const p = pruned[k]
      const i = Math.min(b === undefined ? Infinity : b.index, p === undefined ? Infinity : p.index)
      let was = appended[i] as Message
      let now = was
      if (b !== undefined && b.index === i) {
        was = b.message
        j++
      }
      if (p !== undefined && p.index === i) {
        now = p.message
        k++
      }
      if (was !== now) {
        changes.push({ index: i, message: now })
        delta += count(now) - count(was)
      }
    }
    return { messages, report, pruned, changes, length: messages.length, delta }
  }

/** The key a session keeps a pruner under: its options, whatever order their keys came in. */
export const prunerKey = (options: EnginePruneOptions): string =>
  JSON.stringify(Object.keys(options).sort().map((k) => [k, (options as Record<string, unknown>)[k]]))

/** Plans a compaction with the engine's estimator and counter. */
export const plan = (options: EnginePlanOptions, estimate: Estimator, count: (m: Message) => number): ((ms: Messages) => CompactionPlan) =>
  planCompaction({ ...options, estimate, count })

/** A plan without its message arrays. */
export const planSummary = (p: CompactionPlan): SessionPlan => {
  const { system, head, preserved, ...rest } = p
  return { ...rest, messages: { system: system.length, head: head.length, preserved: preserved.length } }
}

/**
 * Compacts with the engine's estimator and counter; `summarize` is the caller's (its context's
 * signal stays on the caller's side, so only the prompt crosses) or the embedded extractive one.
 */
export const compact = (
  options: Omit<EngineCompactOptions, 'summarize' | 'timeout'>,
  estimate: Estimator,
  count: (m: Message) => number,
  summarize: RemoteSummarizer | undefined,
  signal: AbortSignal,
  onProgress: ((p: EngineProgress) => void) | undefined,
): ((ms: Messages) => Promise<CompactResult>) =>
  compactWith({
    ...options,
    estimate,
    count,
    signal,
    summarize:
      summarize === undefined
        ? extractiveSummarize
        : (transcript, context) => summarize(transcript, context.history === undefined ? { prompt: context.prompt } : { prompt: context.prompt, history: context.history }),
    ...(onProgress === undefined ? {} : { onProgress: (p) => onProgress({ phase: 'compact', stage: p.stage, done: p.done, total: p.total }) }),
  })
