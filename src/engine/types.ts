/**
 * The engine's vocabulary: modes, call options, progress, each operation's options and results, and
 * the error every failed call rejects with. Everything here is plain, structured-clonable data, so the
 * same values cross a worker boundary unchanged.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import type { EncodingName } from '../tokenizer/load.ts'
import type { PruneOptions, PruneReport } from '../history/prune-options.ts'
import type { Receipt } from '../history/receipt.ts'
import type { CompactionPlan, PlanOptions, ShouldCompactOptions } from '../compaction/plan.ts'
import type { ContextTokensOptions } from '../tokens/usage.ts'
import type { CompactionReport, CompactOptions, CompactResult, Summarizer, SummarizerContext, Summary } from '../compaction/compact.ts'
import type { CallCostLine } from '../cost/call-cost.ts'
import type { PriceTable } from '../cost/price.ts'

/**
 * Where the engine runs: `worker` (a Web Worker, or the host you pass), `inline` (this thread), or
 * `auto` (a worker where the runtime has one, inline elsewhere, e.g. workerd).
 *
 * @since 0.1.0
 * @category engine
 */
export type EngineMode = 'worker' | 'inline' | 'auto'

/**
 * Options every engine call takes: an `AbortSignal`. An aborted call rejects at once with the
 * signal's reason, and the engine stops its work at the next slice boundary; one that changes a
 * resident session rejects once the engine has taken the cancel, or resolves with its whole
 * effect if the engine had answered it before.
 *
 * @since 0.1.0
 * @category engine
 */
export type CallOptions = { readonly signal?: AbortSignal }

/**
 * Which estimator counts tokens, by name (functions cannot cross a thread boundary); the engine's
 * own encoding by default.
 *
 * @since 0.1.0
 * @category engine
 */
export type EncodingOptions = { readonly encoding?: EncodingName }

/**
 * Progress of a long call: `open` (messages loaded and counted), `estimate` (messages counted) or
 * `compact` (the compaction's stage, with `done` of `total` steps).
 *
 * @since 0.1.0
 * @category engine
 */
export type EngineProgress = {
  readonly phase: 'open' | 'estimate' | 'compact'
  readonly done: number
  readonly total: number
  /** For `compact`: the stage the compaction is in. */
  readonly stage?: string
}

/**
 * A progress callback: in worker mode called across the thread boundary (a Comlink proxy), at most
 * every 50 ms or so, and always once at the end.
 *
 * @since 0.1.0
 * @category engine
 */
export type ProgressOptions = { readonly onProgress?: (progress: EngineProgress) => void }

/**
 * Options of `openFile`: what to do with a JSONL file's torn last line, the end of a line that a
 * crash mid-append left (not JSON, no newline after it). `drop` (the default) opens the history
 * without it, as `loadHistory` does; `fail` rejects with a `TypeError` naming its line.
 *
 * @since 0.1.0
 * @category engine
 */
export type FileOptions = { readonly tornTail?: 'drop' | 'fail' }

/**
 * Token counts of a history: the total, its content, thinking and tools breakdown, and how many
 * messages were counted.
 *
 * @since 0.1.0
 * @category engine
 */
export type TokenEstimate = {
  readonly total: number
  readonly content: number
  readonly thinking: number
  readonly tools: number
  readonly messages: number
}

/**
 * The size of a resident session after a call: its messages and their tokens (cached in the engine).
 *
 * @since 0.1.0
 * @category engine
 */
export type SessionTokens = { readonly messages: number; readonly tokens: number }

/**
 * One replaced message of a resident history: its position and the new message.
 *
 * @since 0.1.0
 * @category engine
 */
export type MessageChange = { readonly index: number; readonly message: Message }

/**
 * What changed in a resident history: the replaced messages with their positions and the new length
 * (apply it to your copy with `applyChanges`).
 *
 * @since 0.1.0
 * @category engine
 */
export type HistoryChanges = { readonly changes: ReadonlyArray<MessageChange>; readonly length: number }

/**
 * Options of the engine's pruning: `pruneToolResults`'s, as plain data (the estimator and the
 * counter, which keeps its counts, are the engine's).
 *
 * @since 0.1.0
 * @category engine
 */
export type EnginePruneOptions = Omit<PruneOptions, 'estimate' | 'count' | 'placeholder'>

/**
 * A resident session's prune options: the pruner's, and `receipt: true` to have the answer itemise
 * what the prune holds cleared (it reads the whole history, where a turn's prune reads only what changed).
 *
 * @since 0.1.0
 * @category engine
 */
export type SessionPruneOptions = EnginePruneOptions & { readonly receipt?: boolean }

/**
 * A resident session's prune: its report, its receipt when asked for (of the prune of the history
 * as appended, as `createPruner`'s answer gives it), the replaced messages with their positions,
 * and the session's tokens after it.
 *
 * @since 0.1.0
 * @category engine
 */
export type SessionPruneResult = HistoryChanges & { readonly report: PruneReport; readonly receipt?: Receipt; readonly tokens: number }

/**
 * Options of the engine's compaction planning: `planCompaction`'s, as plain data (the estimator is
 * the engine's).
 *
 * @since 0.1.0
 * @category engine
 */
export type EnginePlanOptions = Omit<PlanOptions, 'estimate' | 'count'>

/**
 * Options of a session's `contextTokens`: `contextTokens`'s, as plain data (the session's cached
 * counts are the messages'), anchored on the last report the history records unless `usage` gives one.
 *
 * @since 0.1.0
 * @category engine
 */
export type EngineContextOptions = Omit<ContextTokensOptions, 'estimate' | 'count'>

/**
 * Options of a session's `shouldCompact`: `shouldCompact`'s, as plain data (the session's cached
 * counts are the messages').
 *
 * @since 0.1.0
 * @category engine
 */
export type EngineShouldCompactOptions = Omit<ShouldCompactOptions, 'estimate' | 'count'>

/**
 * A resident session's compaction plan, small: how many messages fall in each part (not the parts),
 * and the plan's cut, flags and tokens.
 *
 * @since 0.1.0
 * @category engine
 */
export type SessionPlan = Omit<CompactionPlan, 'system' | 'head' | 'preserved'> & {
  readonly messages: { readonly system: number; readonly head: number; readonly preserved: number }
}

/**
 * Options of the engine's compaction: `compact`'s, as plain data, the summariser optional (the
 * embedded extractive one, run where the engine runs, by default). A `summarize` you pass runs on
 * your side, called across the thread boundary in worker mode, with your call's signal.
 *
 * @since 0.1.0
 * @category engine
 */
export type EngineCompactOptions = Omit<CompactOptions, 'summarize' | 'signal' | 'onProgress' | 'estimate' | 'count'> & {
  readonly summarize?: Summarizer
  /** The price table of the model calls `summarize` makes (`PRICES` of `chatfold/cost` by default); it stays on your side. */
  readonly prices?: PriceTable
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
 * @since 0.1.0
 * @category engine
 */
export const COMPACT_TIMEOUT = 300_000

/**
 * A resident session's compaction: the rebuilt history (system prompt, summary, preserved tail),
 * how many messages went to the archive (your copy still has them), the report, and the tokens after it.
 *
 * @since 0.1.0
 * @category engine
 */
export type SessionCompactResult = {
  readonly messages: Messages
  readonly archived: number
  readonly report: CompactionReport
  readonly tokens: number
  /** What your summariser's model calls cost (see {@link EngineCompactResult}). */
  readonly calls?: ReadonlyArray<CallCostLine>
}

/**
 * The engine's compaction of a history: `compact`'s result, and `calls`, each model call your
 * `summarize` made (told to its `SummarizerContext.onAnswer`, as the summarisers of
 * `chatfold/summarize/…` tell them), priced by `prices` as the AI SDK middleware prices its calls:
 * the model and its charge in USD, or `usd: null` and why (a model the table lacks is named,
 * never priced as zero). Absent when no model was called (the embedded extractive summariser never calls one).
 *
 * @example
 * import type { EngineCompactResult } from 'chatfold/engine'
 * const spent = (r: EngineCompactResult): number | null =>
 *   r.calls === undefined ? 0 : r.calls.some((c) => c.usd === null) ? null : r.calls.reduce((a, c) => a + (c.usd ?? 0), 0)
 *
 * @since 0.1.0
 * @category engine
 */
export type EngineCompactResult = CompactResult & { readonly calls?: ReadonlyArray<CallCostLine> }

/**
 * A summariser as the service receives it, proxied from the caller: given the prompt and the
 * messages to summarise (the signal stays on the caller's side), it answers text or a provider's
 * compaction boundary, both plain data.
 *
 * @since 0.1.0
 * @category engine
 */
export type RemoteSummarizer = (transcript: string, context: Omit<SummarizerContext, 'signal'>) => Promise<Summary>

/**
 * Applies the changes a session reported to your copy of the history, so that both stay equal
 * without sending the whole history back. Returns the input itself when nothing changed.
 *
 * @example
 * import { applyChanges, createEngine } from 'chatfold/engine'
 * import { type Messages } from 'chatfold/message'
 * declare let history: Messages
 * const engine = createEngine({ encoding: 'o200k_base' })
 * const session = await engine.open('chat-1', history)
 * history = applyChanges(await session.prune({ protectTokens: 40_000 }))(history)
 *
 * @since 0.1.0
 * @category engine
 */
export const applyChanges = (diff: HistoryChanges) => (ms: Messages): Messages => {
  if (diff.changes.length === 0 && diff.length === ms.length) return ms
  const out: Array<Message | undefined> = ms.slice(0, diff.length)
  out.length = diff.length
  for (const c of diff.changes) if (c.index >= 0 && c.index < diff.length) out[c.index] = c.message
  return out.filter((m): m is Message => m !== undefined)
}

/**
 * Why an engine call failed:
 * - `unsupported`: no worker can run here (mode `worker` without a `Worker`);
 * - `load`: the worker failed to load, or did not answer in time;
 * - `crashed`: the worker died (an uncaught error, or it exited);
 * - `restarted`: the call was pending when `restart()` was called;
 * - `disposed`: the engine was disposed;
 * - `session`: the session is closed, was replaced by a later `open`, or was lost in a restart.
 *
 * @since 0.1.0
 * @category engine
 */
export type EngineErrorCode = 'unsupported' | 'load' | 'crashed' | 'restarted' | 'disposed' | 'session'

/**
 * The error an engine call rejects with when the engine cannot answer it, `code` saying why: when
 * the worker fails or dies, every pending and later call rejects with it, so none hangs.
 *
 * @example
 * import { createEngine, EngineError } from 'chatfold/engine'
 * try {
 *   await createEngine({ mode: 'worker' }).ready()
 * } catch (e) {
 *   if (e instanceof EngineError && e.code === 'unsupported') console.log('no worker here')
 * }
 *
 * @since 0.1.0
 * @category engine
 */
export class EngineError extends Error {
  readonly code: EngineErrorCode
  constructor(code: EngineErrorCode, message: string, options?: { readonly cause?: unknown }) {
    super(message, options)
    this.name = 'EngineError'
    this.code = code
  }
}
