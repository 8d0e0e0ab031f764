/**
 * A kept pruner's answers as changes against a resident history: what a session that keeps its
 * history on one side (the engine's) reports to the other after each prune, the messages that
 * changed with their positions and the change in tokens, when the last prune may have had other
 * options. Each turn looks only at the messages that newly left the protected tail.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import { countMessage } from '../tokens/count.ts'
import { definitionCount, type Estimator, totalOf } from '../tokens/message-tokens.ts'
import { createPruner } from './prune-incremental.ts'
import type { PruneChange, PruneOptions, PruneResult, PrunerResult } from './prune-options.ts'

/** A pruner's options as plain data: the estimator and the counter are given apart. */
export type PrunerOptions = Omit<PruneOptions, 'estimate' | 'count' | 'placeholder'>

/** The per-message total of a new counter (`countMessage(estimate)`), marked as the one definition: keep it, with its cache. */
export const counter = (estimate: Estimator): (m: Message) => number => definitionCount(estimate, totalOf(countMessage(estimate)))

/**
 * A pruner as a session keeps it (one per options): the incremental pruner, whose each answer also
 * gives the changes of its answer before, to which its `carried` refers. When every change of an
 * answer is the previous answer's own, the previous answer's array is given again as its changes
 * (the same records), so that a session holding it sees nothing new.
 */
export type SessionPruner = (ms: Messages) => PrunerResult & { readonly previous: ReadonlyArray<PruneChange> }

/**
 * A pruner with an estimator and a counter (by default a new one; a session gives its own). It remembers what it pruned: keep it for the next turn.
 */
export const prune = (options: PrunerOptions, estimate: Estimator, count: (m: Message) => number = counter(estimate)): SessionPruner => {
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
  readonly changes: ReadonlyArray<PruneChange>
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
export const pruneChanges = (pruner: SessionPruner, count: (m: Message) => number) => (session: PruneSession): PruneChanges => {
  const { appended } = session
  const { messages, report, changes: pruned, carried, previous } = pruner(appended)
  const before = session.pruned
  const from = before === previous ? carried : 0
  const changes: PruneChange[] = []
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
export const prunerKey = (options: PrunerOptions): string =>
  JSON.stringify(Object.keys(options).sort().map((k) => [k, (options as Record<string, unknown>)[k]]))
