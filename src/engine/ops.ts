/**
 * The engine's work on a history, as plain-data calls: the pure functions of tokens, pruning and
 * compaction, given an estimator chosen by name and token counts cached per message. Shared by
 * the service's stateless calls and its resident sessions.
 *
 * @module
 */
import type { Message, Messages } from '../message.ts'
import { type PruneOptions, type PruneReport, type PruneResult, pruneToolResultsWithReport } from '../messages/prune.ts'
import { countMessage, type Estimator } from '../tokens.ts'
import { type CompactionPlan, type PlanOptions, planCompaction } from '../compaction/plan.ts'
import type { HistoryChanges, MessageChange } from './types.ts'

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
export const prune = (options: EnginePruneOptions, estimate: Estimator): ((ms: Messages) => PruneResult) =>
  pruneToolResultsWithReport({ ...options, estimate, count: counter(estimate) })

/** Plans a compaction with the engine's estimator. */
export const plan = (options: EnginePlanOptions, estimate: Estimator): ((ms: Messages) => CompactionPlan) => planCompaction({ ...options, estimate })

/** A plan without its message arrays. */
export const planSummary = (p: CompactionPlan): SessionPlan => {
  const { system, head, preserved, ...rest } = p
  return { ...rest, messages: { system: system.length, head: head.length, preserved: preserved.length } }
}
