/**
 * The engine's work on a history, as plain-data calls: the pure functions of tokens, pruning and
 * compaction, given an estimator chosen by name and token counts cached per message. Shared by
 * the service's stateless calls and its resident sessions.
 *
 * @module
 */
import type { Message, Messages } from '../message.ts'
import { createPruner, type PruneOptions, type PruneReport, type PruneResult } from '../messages/prune.ts'
import { countMessage, type Estimator } from '../tokens.ts'
import { type CompactionPlan, type PlanOptions, planCompaction } from '../compaction/plan.ts'
import { compact as compactWith, type CompactOptions, type CompactionReport, type CompactResult, type Summarizer } from '../compaction/compact.ts'
import { extractiveSummarize } from '../compaction/extractive.ts'
import type { EngineProgress, HistoryChanges, MessageChange } from './types.ts'

// --- options ---

/**
 * Options of the engine's pruning: `pruneToolResults`'s, as plain data (the estimator and counter
 * are the engine's own, cached).
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
export type EnginePlanOptions = Omit<PlanOptions, 'estimate'>

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
export type EngineCompactOptions = Omit<CompactOptions, 'summarize' | 'signal' | 'onProgress' | 'estimate'> & {
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
 * @example
 * import { COMPACT_TIMEOUT } from 'chatfold'
 * COMPACT_TIMEOUT // 300000
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
 * A summariser as the service receives it: one proxied from the caller, given the prompt only
 * (the call's signal stays on the caller's side, where the caller's summariser gets it).
 *
 * @since 0.1.0
 * @category engine
 */
export type RemoteSummarizer = (transcript: string, context: { readonly prompt: string }) => Promise<string>

// --- counting ---

/** The cached per-message total of an estimator. */
export const counter = (estimate: Estimator): ((m: Message) => number) => {
  const count = countMessage(estimate)
  return (m) => count(m).total
}

// --- diffs ---

/**
 * What turned `before` into `after` (same positions: messages replaced by identity) and the change
 * in tokens; a history of another length is reported whole.
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

/** A pruner with the engine's estimator and cached counter (it remembers what it pruned: keep it for the next turn). */
export const prune = (options: EnginePruneOptions, estimate: Estimator): Pruner => {
  const pruner = createPruner({ ...options, estimate, count: counter(estimate) })
  return (ms) => {
    const { messages, report } = pruner.prune(ms)
    return { messages, report }
  }
}

/** A pruner as a session keeps it (one per options, remembering what it pruned). */
export type Pruner = (ms: Messages) => PruneResult

/** A session's prune: the pruner's result, what it changed in the resident history, and the change in tokens. */
export type PruneChanges = PruneResult & { readonly changes: ReadonlyArray<MessageChange>; readonly length: number; readonly delta: number }

/**
 * Prunes a session: `pruner` runs on the history as appended, and answers what changed against the
 * resident history (the result of the session's last prune, which may have had other options), with
 * the token delta. The one place a session prune's changes come from.
 */
export const pruneChanges =
  (pruner: Pruner, count: (m: Message) => number) =>
  (appended: Messages, resident: Messages): PruneChanges => {
    const { messages, report } = pruner(appended)
    const { changes, length, delta } = diffHistories(resident, messages, count)
    return { messages, report, changes, length, delta }
  }

/** The key a session keeps a pruner under: its options, whatever order their keys came in. */
export const prunerKey = (options: EnginePruneOptions): string =>
  JSON.stringify(Object.keys(options).sort().map((k) => [k, (options as Record<string, unknown>)[k]]))

/** Plans a compaction with the engine's estimator. */
export const plan = (options: EnginePlanOptions, estimate: Estimator): ((ms: Messages) => CompactionPlan) => planCompaction({ ...options, estimate })

/** A plan without its message arrays. */
export const planSummary = (p: CompactionPlan): SessionPlan => {
  const { system, head, preserved, ...rest } = p
  return { ...rest, messages: { system: system.length, head: head.length, preserved: preserved.length } }
}

/**
 * Compacts with the engine's estimator; `summarize` is the caller's (its context's signal stays on
 * the caller's side, so only the prompt crosses) or the embedded extractive one.
 */
export const compact = (
  options: Omit<EngineCompactOptions, 'summarize' | 'timeout'>,
  estimate: Estimator,
  summarize: RemoteSummarizer | undefined,
  signal: AbortSignal,
  onProgress: ((p: EngineProgress) => void) | undefined,
): ((ms: Messages) => Promise<CompactResult>) =>
  compactWith({
    ...options,
    estimate,
    signal,
    summarize: summarize === undefined ? extractiveSummarize : (transcript, context) => summarize(transcript, { prompt: context.prompt }),
    ...(onProgress === undefined ? {} : { onProgress: (p) => onProgress({ phase: 'compact', stage: p.stage, done: p.done, total: p.total }) }),
  })
