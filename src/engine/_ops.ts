/**
 * The engine's work on a history, as plain-data calls: one handler per entry of `OPERATIONS`, on
 * data the service has already decoded and counted. A session handler never changes the session: it
 * answers the session's next state, which the service installs as a transaction. Private to the engine.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import type { PruneChange } from '../history/prune-options.ts'
import { prune, pruneChanges, prunerKey, type SessionPruner } from '../history/prune-changes.ts'
import { pruneToolResultsWithReceipt } from '../history/prune.ts'
import { rewriteReceipt } from '../history/receipt.ts'
import { definitionCount, type Estimator, type TokenBreakdown, totalOf } from '../tokens/message-tokens.ts'
import { type CompactionPlan, planCompaction, shouldCompact } from '../compaction/plan.ts'
import { renderTranscript } from '../compaction/transcript.ts'
import { contextTokens } from '../tokens/usage.ts'
import { underReadRatio } from '../tokens/usage-ratio.ts'
import { compact as compactWith, type CompactResult } from '../compaction/compact.ts'
import { extractiveSummarize } from '../compaction/extractive.ts'
import type { HistoryOperation, Operations, ResultOf, SessionOperation, WireOptions } from './operations.ts'
import { admit } from './_admit.ts'
import type { EngineCompactOptions, EngineProgress, RemoteSummarizer, SessionPlan, TokenEstimate } from './types.ts'

/** A plan without its message arrays. */
const planSummary = ({ system, head, preserved, ...rest }: CompactionPlan): SessionPlan => ({
  ...rest,
  messages: { system: system.length, head: head.length, preserved: preserved.length },
})

/** What a handler is given besides its options. */
export type Context = {
  readonly signal: AbortSignal
  /** The estimator of the call's encoding (the session's, on a session). */
  readonly estimate: Estimator
  /** That encoding's counter, which keeps its counts (the service's, shared by its calls and sessions). */
  readonly count: (m: Message) => TokenBreakdown
  readonly summarize: RemoteSummarizer | undefined
  readonly onProgress: ((p: EngineProgress) => void) | undefined
}

/** A session's state: replaced whole by a call that changes it, never mutated (a snapshot may hold on to it). */
export type Resident = {
  /** The resident history. */
  readonly messages: Messages
  /**
   * The history as appended since the open or the last compaction, unpruned: a kept pruner prunes it,
   * so that each turn rewrites only the messages that newly left the protected tail.
   */
  readonly appended: Messages
  /** Where the resident history differs from the appended one: the last prune's changes, in index order (none before any prune). */
  readonly pruned: ReadonlyArray<PruneChange>
  readonly tokens: number
  /**
   * Pruners by options, newest last (at most `PRUNERS_KEPT`). The map is replaced, never changed, so
   * an undone prune takes its pruner with it. A pruner remembers what it pruned (a cache shared by
   * the states that follow); `pruneChanges` trusts that only where its last answer is this `pruned`.
   */
  readonly pruners: ReadonlyMap<string, SessionPruner>
}

/** A session handler's context: the session's state, and the call's messages (an append's), decoded and counted. */
export type SessionContext = Context & { readonly state: Resident; readonly load: () => Promise<{ readonly messages: Messages; readonly tokens: number }> }

/** A session handler's answer: its result, and the session's next state when it changes it. */
export type Outcome<R> = { readonly result: R; readonly next?: Resident }

/**
 * A message's total tokens by the context's counter, marked as the one definition with its estimator
 * so that pruning derives a rewritten message's count instead of estimating its unchanged parts again.
 */
const totalsOf = (c: Pick<Context, 'estimate' | 'count'>): (m: Message) => number => definitionCount(c.estimate, totalOf(c.count))

/** Compacts; `summarize` is the caller's (its signal stays on the caller's side: only the prompt and history cross) or the embedded extractive one. */
const compact = (options: Omit<EngineCompactOptions, 'summarize' | 'timeout'>, c: Context): (ms: Messages) => Promise<CompactResult> => {
  const { summarize, onProgress } = c
  return compactWith({
    ...options,
    estimate: c.estimate,
    count: totalsOf(c),
    signal: c.signal,
    summarize: summarize === undefined
      ? extractiveSummarize
      : (transcript, { prompt, history }) => summarize(transcript, history === undefined ? { prompt } : { prompt, history }),
    ...(onProgress === undefined ? {} : { onProgress: (p) => onProgress({ phase: 'compact', stage: p.stage, done: p.done, total: p.total }) }),
  })
}

const PRUNERS_KEPT = 4
type History = Operations['history']
type Session = Operations['session']

/** The calibration given (1 by default), raised to the ratio by which the history's usage reports outgrew the estimate (`underReadRatio`). */
const anchoredCalibration = (given: number | undefined, c: Pick<SessionContext, 'estimate' | 'count' | 'state'>): number => {
  const ratio = given !== undefined && Number.isFinite(given) && given > 0 ? given : 1
  return Math.max(ratio, underReadRatio(totalsOf(c))(c.state.messages))
}

/** The operations on a history, given it decoded and (for those that count) its counts. */
export const historyHandlers: {
  readonly [K in HistoryOperation]: (
    messages: Messages,
    options: WireOptions<History[K]>,
    context: Context & { readonly counts: TokenEstimate },
  ) => Promise<ResultOf<History[K]>>
} = {
  estimate: (_ms, _o, c) => Promise.resolve(c.counts),
  pruneToolResults: (ms, { encoding: _encoding, ...o }, c) =>
    Promise.resolve(pruneToolResultsWithReceipt({ ...o, estimate: c.estimate, count: totalsOf(c) })(ms)),
  renderTranscript: (ms, o) => Promise.resolve(renderTranscript(o)(ms)),
  planCompaction: (ms, { encoding: _encoding, ...o }, c) => Promise.resolve(planCompaction({ ...o, estimate: c.estimate, count: totalsOf(c) })(ms)),
  compact: (ms, { encoding: _encoding, ...o }, c) => compact(o, c)(ms),
}

/** The operations on a resident session. */
export const sessionHandlers: {
  readonly [K in SessionOperation]: (options: WireOptions<Session[K]>, context: SessionContext) => Promise<Outcome<ResultOf<Session[K]>>>
} = {
  append: async (_o, { state, load }) => {
    const added = await load()
    const messages = [...state.messages, ...added.messages]
    const appended = state.appended === state.messages ? messages : [...state.appended, ...added.messages]
    const tokens = state.tokens + added.tokens
    return { result: { messages: messages.length, tokens }, next: { ...state, messages, appended, tokens } }
  },
  tokens: (_o, { state }) => Promise.resolve({ result: { messages: state.messages.length, tokens: state.tokens } }),
  prune: ({ receipt: withReceipt, ...o }, c) => {
    const { state } = c
    const key = prunerKey(o)
    const kept = state.pruners.get(key)
    const pruner = kept ?? prune(o, c.estimate, totalsOf(c))
    const pruners = kept === undefined ? new Map([...[...state.pruners].slice(1 - PRUNERS_KEPT), [key, pruner] as const]) : state.pruners
    const { messages, report, pruned, changes, length, delta } = pruneChanges(pruner, totalsOf(c))(state)
    const tokens = state.tokens + delta
    // the receipt reads the whole history (a turn's prune otherwise reads only what changed): only when asked for
    const receipt = withReceipt === true ? { receipt: rewriteReceipt(c.estimate)(state.appended, messages, pruned.map((p) => p.index)) } : {}
    const result = { report, ...receipt, changes, length, tokens }
    if (changes.length === 0 && pruned === state.pruned && pruners === state.pruners) return Promise.resolve({ result })
    // with no change the resident history stays as it is; a new record of the same differences is kept all the same
    return Promise.resolve({ result, next: { ...state, messages: changes.length === 0 ? state.messages : messages, pruned, pruners, tokens } })
  },
  plan: (o, c) => Promise.resolve({ result: planSummary(planCompaction({ ...o, estimate: c.estimate, count: totalsOf(c) })(c.state.messages)) }),
  contextTokens: (o, c) => Promise.resolve({ result: contextTokens({ ...o, count: totalsOf(c) })(c.state.messages) }),
  shouldCompact: (o, c) => {
    if (typeof o.contextWindow !== 'number' || Number.isNaN(o.contextWindow)) {
      return Promise.reject(new TypeError(`shouldCompact: contextWindow must be a number of tokens, got ${String(o.contextWindow)}`))
    }
    return Promise.resolve({ result: shouldCompact({ ...o, count: totalsOf(c), calibration: anchoredCalibration(o.calibration, c) })(c.state.messages) })
  },
  compact: async (o, c) => {
    const { state } = c
    const { messages, archive, report } = await compact({ ...o, calibration: anchoredCalibration(o.calibration, c) }, c)(state.messages)
    if (messages === state.messages) return { result: { archived: archive.length, report, messages, tokens: state.tokens } }
    // counted in slices (an abort while counting leaves the session as it was)
    const tokens = (await admit(messages, { signal: c.signal, count: c.count })).counts.total
    return { result: { archived: archive.length, report, messages, tokens }, next: { messages, appended: messages, pruned: [], tokens, pruners: new Map() } }
  },
  snapshot: (_o, { state }) => Promise.resolve({ result: state.messages }),
  counts: (_o, { state, count }) => Promise.resolve({ result: state.messages.map((m) => count(m)) }),
}
