/**
 * The incremental pruner a session keeps: the same answers as a fresh prune, with the work of
 * its previous call taken over. A history that starts with the previous one's message objects (a
 * turn later) has that prefix's counts and rewriting taken over by position; what the previous
 * call rewrote beyond it is remembered by message, so a history that was edited or cut before its
 * end gets the same rewritten objects back without rewriting them again.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import {
  type PruneBudget,
  type PruneChange,
  type PruneOptions,
  type Pruner,
  type PruneResult,
  type PrunerResult,
  type PrunerResultWithReceipt,
  type Settings,
  settingsOf,
} from './prune-options.ts'
import { cachedPruner } from './_prune-cached.ts'
import { type Receipt, rewriteReceipt } from './receipt.ts'
import type { PrunerSeed, PrunerState } from './prune-state.ts'
import { type Change, countFrom, lastBoundaryIn, oldestFirst, type Outcome, protectedFrom, recording, startOf, walk } from './_prune-walk.ts'

// --- records ---

/** What a walk found, as `finish` reads it: the history, its total, and the rewritten messages in index order. */
type Rewritten = {
  readonly input: Messages
  readonly total: number
  readonly changes: ReadonlyArray<Change>
}

/**
 * What an incremental pruner's walk found besides: every message's count, the first protected
 * index, and the indices whose outcome depended on an earlier message (which it must not remember
 * by message alone).
 */
type Walk = Rewritten & {
  readonly counts: ReadonlyArray<number>
  readonly boundary: number
  readonly lookedUp: ReadonlyArray<number>
}

/**
 * Counts the rewritten messages from `changes[from]` on with the caller's `count` (when counts are
 * not derived), in one go after the walk rather than between its reads: a counter that caches by
 * message takes them all at once. A message that carried `tokens` gets the fresh `{ total }`.
 */
const countRewritten = (s: Settings, ms: Messages, changes: Change[], from: number): void => {
  if (s.derive) return
  for (let j = from; j < changes.length; j++) {
    const c = changes[j] as Change
    if (!Number.isNaN(c.tokens)) continue // counted already (remembered from an earlier call)
    c.tokens = s.count(c.message)
    if ((ms[c.index] as Message).tokens !== undefined) changes[j] = { ...c, message: { ...c.message, tokens: { total: c.tokens } } }
  }
}

/**
 * The walk's records applied: the rewritten history and its report, unless the rewriting frees nothing or
 * less than `minimumSavings` tokens (then the input itself, with a report of zeros pruned).
 */
const finish = (s: Settings, w: Rewritten): PruneResult => {
  let savings = 0
  let prunedResults = 0
  let prunedArgs = 0
  for (const c of w.changes) {
    savings += c.was - c.tokens
    prunedResults += c.results
    prunedArgs += c.args
  }
  const before = w.total
  if (w.changes.length === 0 || savings <= 0 || savings < s.minimumSavings) {
    return { messages: w.input, report: { prunedResults: 0, prunedArgs: 0, tokensBefore: before, tokensAfter: before } }
  }
  const out = w.input.slice()
  for (const c of w.changes) out[c.index] = c.message
  return { messages: out, report: { prunedResults, prunedArgs, tokensBefore: before, tokensAfter: before - savings } }
}

// --- the pruner ---

/** A message left as it is, remembered (only outcomes that depend on the message alone are). */
const KEPT: Outcome = { kept: true, lookedUp: false }

/** How many leading messages two histories share, by identity. */
const sharedPrefix = (a: Messages, b: Messages): number => {
  const limit = Math.min(a.length, b.length)
  let i = 0
  while (i < limit && a[i] === b[i]) i++
  return i
}

/** How many of the (index-ordered) `xs` are below `limit`. */
const below = <T>(xs: ReadonlyArray<T>, limit: number, index: (x: T) => number): number => {
  let k = xs.length
  while (k > 0 && index(xs[k - 1] as T) >= limit) k--
  return k
}

/**
 * An incremental pruner with fixed options, kept by a session: `prune(ms, budget?)` gives the
 * pruned history, its report, and which messages of the result are not the input's own
 * (`changes`, `carried`). A growing history only has its new messages counted, and rewritten
 * messages come back as the same objects from call to call (identity-keyed token caches keep
 * hitting). A `count` option must be pure: the same message always has the same count.
 *
 * Its default policy, `cached`, is the one for prompts sent to a provider with a prompt cache: its
 * state is the history it answered last, a next call appends the new messages to it, and it edits
 * older messages only in batches (every tool result outside the protected tail at once) that pay
 * for the cached prefix they break, or when the answer would pass the call's `budget.limit`. The
 * prompts between two batches share their prefix. `triggerTokens` holds batches back until the
 * history passes it.
 *
 * `policy: 'fresh'` answers every call exactly as `pruneToolResultsWithReport(options)(ms)` does
 * (the cache-oblivious prune: the protected tail's edge moves with every new message, and the
 * result that leaves it is rewritten, breaking the cached prefix there).
 *
 * Its state can be kept and taken up by a pruner made later (a route made per request):
 * `pruner.state()` gives it as a small JSON record (`PrunerState`, `undefined` for the `fresh`
 * policy, which needs none), and `createPruner(options, { resume })` makes a pruner that answers
 * from its first call as the one that gave it would, the messages it rewrote recognised by their
 * content. A state that no longer matches the history given is not taken (`onDiscard` is told why).
 *
 * Each answer gives its receipt when asked (`answer.receipt()`, see `PrunerResultWithReceipt`):
 * every tool output the answer holds cleared, against the history it was given.
 *
 * @example
 * import { createPruner } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * declare const history: import('chatfold').Messages
 * const pruner = createPruner({ protectTokens: 20_000 })
 * const first = pruner.prune(history, { limit: 150_000 })
 * const next = pruner.prune([...history, textMessage('user', 'next question')], { limit: 150_000 })
 * next.changes.length - next.carried // messages rewritten since the previous answer (none between batches)
 * next.receipt().cleared // each tool output this answer holds cleared: call id, tool, tokens before and after
 *
 * @since 0.1.0
 * @category edits
 */
export const createPruner = (
  options: PruneOptions,
  seed: PrunerSeed = {},
): { readonly prune: (ms: Messages, budget?: PruneBudget) => PrunerResultWithReceipt; readonly state: () => PrunerState | undefined } => {
  const s = settingsOf(options)
  if (s.policy === 'fresh') return { ...withReceipt(s, fromBoundary(pruner(s))), state: () => undefined }
  const inner = cachedPruner(s, seed)
  return { ...withReceipt(s, fromBoundary(inner)), state: inner.state }
}

/** A pruner whose answers give their receipt when asked (made once, from the answer's changes). */
const withReceipt = (s: Settings, p: Pruner): { readonly prune: (ms: Messages, budget?: PruneBudget) => PrunerResultWithReceipt } => ({
  prune: (ms, budget) => {
    const r = p.prune(ms, budget)
    let made: Receipt | undefined
    const receipt = (): Receipt => (made ??= rewriteReceipt(s.estimate)(ms, r.messages, r.changes.map((c) => c.index)))
    return { ...r, receipt }
  },
})

/** The incremental pruner over a history that has no provider compaction boundary (or starts with it). */
const pruner = (s: Settings): Pruner => {
  /** What a call rewrote beyond the part the next call took over, by message (only outcomes that depend on the message alone). */
  const memo = new WeakMap<Message, Outcome>()
  let remembered = false
  let last: Walk | undefined
  /** Whether the previous answer gave its walk's changes (not none, for an input given back as it is). */
  let gave = false

  /** Remembers by message what `w` found from index `from` on (its changes from `changes[kept]` on). */
  const remember = (w: Walk, from: number, kept: number): void => {
    let j = kept
    let k = below(w.lookedUp, from, (i) => i)
    for (let i = from; i < w.boundary; i++) {
      const c = w.changes[j]
      const changed = c !== undefined && c.index === i
      if (changed) j++
      if (w.lookedUp[k] === i) {
        k++
        continue
      }
      memo.set(w.input[i] as Message, changed ? c : KEPT)
      remembered = true
    }
  }

  const recall = (m: Message): Outcome | undefined => (remembered ? memo.get(m) : undefined)

  const prune = (ms: Messages): PrunerResult => {
    const same = last === undefined ? 0 : sharedPrefix(last.input, ms)
    const counts = countFrom(s, ms, last === undefined ? [] : last.counts.slice(0, same), same)
    const { boundary, total } = protectedFrom(counts, s.protect)
    // the previous call's rewriting holds for the messages both call unprotected, in the shared prefix
    const reuse = last === undefined ? 0 : Math.min(same, last.boundary, boundary)
    const kept = last === undefined ? 0 : below(last.changes, reuse, (c) => c.index)
    const into = {
      changes: last === undefined ? [] : last.changes.slice(0, kept),
      lookedUp: last === undefined ? [] : last.lookedUp.slice(0, below(last.lookedUp, reuse, (i) => i)),
    }
    if (last !== undefined) remember(last, reuse, kept)
    // the messages from `reuse` to the tail, walked backwards like a fresh prune's, their records put in index order after
    const lookedUpKept = into.lookedUp.length
    walk(s, ms, recording(ms, counts, boundary, recall, into.changes, into.lookedUp), reuse, boundary)
    oldestFirst(into.changes, kept)
    oldestFirst(into.lookedUp, lookedUpKept)
    countRewritten(s, ms, into.changes, kept)
    const w: Walk = { input: ms, counts, total, boundary, ...into }
    last = w
    const { messages, report } = finish(s, w)
    // the messages of the result that are not the input's own: the walk's records, which carry
    // their index and message (and what the walk knows of them besides), given as they are; the
    // first `kept` are the previous answer's own
    const carried = gave ? kept : 0
    gave = messages !== ms
    return gave ? { messages, report, changes: w.changes, carried } : { messages, report, changes: [], carried: 0 }
  }

  return { prune }
}

/**
 * A pruner that prunes what a provider reads, as the pure prune does: from the history's last
 * provider compaction boundary on, what precedes it kept as it is and left out of the counts. The
 * part from the boundary on goes to `inner`, which then sees the same history grow from call to
 * call as long as the boundary stays; its changes come back at their index in the whole history
 * (the same record for the same change, so that `carried` holds).
 */
const fromBoundary = (inner: Pruner): Pruner => {
  let shifted = new WeakMap<PruneChange, PruneChange>()
  let lastStart = 0
  let lastInput: Messages | undefined
  const at = (start: number) => (c: PruneChange): PruneChange => {
    const known = shifted.get(c)
    if (known !== undefined) return known
    const moved = { ...c, index: c.index + start }
    shifted.set(c, moved)
    return moved
  }
  /**
   * `startOf(ms)`, reading only what changed since the previous call: a boundary among the
   * messages after the shared prefix is the last one; else the previous call's, when it lies in
   * that prefix (a history that only grows is looked at from its new messages on).
   */
  const startFor = (ms: Messages): number => {
    if (lastInput === undefined) return startOf(ms)
    const same = sharedPrefix(lastInput, ms)
    const added = lastBoundaryIn(ms, same)
    if (added >= 0) return added
    return lastStart < same ? lastStart : Math.max(lastBoundaryIn(ms, 1, same), 0)
  }
  const prune = (ms: Messages, budget?: PruneBudget): PrunerResult => {
    const start = startFor(ms)
    lastInput = ms
    if (start !== lastStart) shifted = new WeakMap()
    const moved = start !== lastStart
    lastStart = start
    if (start === 0) return inner.prune(ms, budget)
    const tail = ms.slice(start)
    const r = inner.prune(tail, budget)
    if (r.messages === tail) return { messages: ms, report: r.report, changes: [], carried: 0 }
    const messages = [...ms.slice(0, start), ...r.messages]
    return { messages, report: r.report, changes: r.changes.map(at(start)), carried: moved ? 0 : r.carried }
  }
  return { prune }
}
