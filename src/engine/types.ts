/**
 * The engine's vocabulary: modes, call options, progress, each operation's options and results, and the error a failed
 * call rejects with; all plain, structured-clonable data that crosses a worker boundary unchanged.
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
import type { TokenBreakdown } from '../tokens/message-tokens.ts'

/**
 * Where the engine runs: `worker` (a Web Worker, or your `host`), `inline` (this thread), or `auto` (a worker where
 * there is one, your `host` or a `Worker` global, and inline elsewhere, e.g. workerd).
 *
 * @since 0.1.0
 * @category engine
 */
export type EngineMode = 'worker' | 'inline' | 'auto'

/**
 * Every call's `AbortSignal`. Aborted, a call rejects at once with the signal's reason and the engine stops at the next
 * slice boundary; a call that changes a resident session rejects once the engine has taken the cancel, or resolves with
 * its whole effect if the engine had answered it before.
 *
 * @since 0.1.0
 * @category engine
 */
export type CallOptions = { readonly signal?: AbortSignal }

/**
 * The estimator that counts tokens, by name (a function cannot cross a thread); the engine's `encoding` by default.
 *
 * @since 0.1.0
 * @category engine
 */
export type EncodingOptions = { readonly encoding?: EncodingName }

/**
 * Progress of a long call, `done` of `total`: `open` (messages loaded and counted), `estimate` (messages counted) or
 * `compact` (steps, in its `stage`).
 *
 * @since 0.1.0
 * @category engine
 */
export type EngineProgress = { readonly phase: 'open' | 'estimate' | 'compact'; readonly done: number; readonly total: number; readonly stage?: string }

/**
 * A progress callback, in worker mode called across the thread (a Comlink proxy) at most every ~50 ms, and once at the end.
 *
 * @since 0.1.0
 * @category engine
 */
export type ProgressOptions = { readonly onProgress?: (progress: EngineProgress) => void }

/**
 * `openFile`'s handling of a torn last line (left by a crash mid-append: not JSON, no newline after it): `drop` (the
 * default) opens the history without it, as `loadHistory` does; `fail` rejects with a `TypeError` naming its line.
 *
 * @since 0.1.0
 * @category engine
 */
export type FileOptions = { readonly tornTail?: 'drop' | 'fail' }

/**
 * A history's token counts: the total, its content, thinking and tools breakdown, and how many messages were counted.
 *
 * @since 0.1.0
 * @category engine
 */
export type TokenEstimate = TokenBreakdown & { readonly messages: number }

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
 * What changed in a resident history: the replaced messages and the new length, for `applyChanges`.
 *
 * @since 0.1.0
 * @category engine
 */
export type HistoryChanges = { readonly changes: ReadonlyArray<MessageChange>; readonly length: number }

/**
 * `pruneToolResults`'s options as plain data (the estimator and the counter, which keeps its counts, are the engine's).
 *
 * @since 0.1.0
 * @category engine
 */
export type EnginePruneOptions = Omit<PruneOptions, 'estimate' | 'count' | 'placeholder'>

/**
 * A resident session's prune options; `receipt: true` has the answer itemise what the prune holds cleared (reading the
 * whole history, where a turn's prune reads only what changed).
 *
 * @since 0.1.0
 * @category engine
 */
export type SessionPruneOptions = EnginePruneOptions & { readonly receipt?: boolean }

/**
 * A resident session's prune: its report, the receipt when asked for (of the history as appended, as `createPruner`'s
 * answer gives it), the replaced messages, and the session's tokens after it.
 *
 * @since 0.1.0
 * @category engine
 */
export type SessionPruneResult = HistoryChanges & { readonly report: PruneReport; readonly receipt?: Receipt; readonly tokens: number }

/**
 * `planCompaction`'s options as plain data (the estimator is the engine's).
 *
 * @since 0.1.0
 * @category engine
 */
export type EnginePlanOptions = Omit<PlanOptions, 'estimate' | 'count'>

/**
 * `contextTokens`'s options as plain data (a session counts its messages from its cache), anchored on the last report
 * the history records unless `usage` gives one.
 *
 * @since 0.1.0
 * @category engine
 */
export type EngineContextOptions = Omit<ContextTokensOptions, 'estimate' | 'count'>

/**
 * `shouldCompact`'s options as plain data (a session counts its messages from its cache).
 *
 * @since 0.1.0
 * @category engine
 */
export type EngineShouldCompactOptions = Omit<ShouldCompactOptions, 'estimate' | 'count'>

/**
 * A resident session's compaction plan, small: each part's message count (not the parts), the cut, flags and tokens.
 *
 * @since 0.1.0
 * @category engine
 */
export type SessionPlan = Omit<CompactionPlan, 'system' | 'head' | 'preserved'> & {
  readonly messages: { readonly system: number; readonly head: number; readonly preserved: number }
}

/**
 * `compact`'s options as plain data, the summariser optional (by default the embedded extractive one, run where the
 * engine runs). A `summarize` you pass runs on your side (across the thread in worker mode) with your call's signal.
 *
 * @since 0.1.0
 * @category engine
 */
export type EngineCompactOptions = Omit<CompactOptions, 'summarize' | 'signal' | 'onProgress' | 'estimate' | 'count'> & {
  readonly summarize?: Summarizer
  /** The price table of the model calls `summarize` makes (`PRICES` of `chatfold/cost` by default); it stays on your side. */
  readonly prices?: PriceTable
  /**
   * Ms after which an unfinished compaction rejects with a `TimeoutError`, aborts the summariser's signal and leaves the
   * session as it was (default `COMPACT_TIMEOUT`); `Infinity` waits for ever.
   */
  readonly timeout?: number
}

/**
 * An engine compaction's default limit in ms (five minutes), so a summariser that never settles cannot hold its session.
 *
 * @since 0.1.0
 * @category engine
 */
export const COMPACT_TIMEOUT = 300_000

/**
 * A resident session's compaction: the rebuilt history (system prompt, summary, preserved tail), how many messages went
 * to the archive (your copy still has them), the report, and the tokens after it.
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
 * The engine's compaction of a history: `compact`'s result, and `calls`, each model call your `summarize` told its
 * `SummarizerContext.onAnswer` (as `chatfold/summarize/…`'s summarisers do), priced by `prices` as the AI SDK middleware
 * prices: the model and its USD charge, or `usd: null` and why (a model the table lacks is named, never priced as
 * zero). `calls` is absent when no model was called (the embedded extractive summariser calls none).
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
 * A summariser as the service receives it, proxied from the caller (who keeps the signal): given the prompt and the
 * messages to summarise, it answers text or a provider's compaction boundary, as plain data.
 *
 * @since 0.1.0
 * @category engine
 */
export type RemoteSummarizer = (transcript: string, context: Omit<SummarizerContext, 'signal'>) => Promise<Summary>

/**
 * Applies a session's reported changes to your copy of the history; returns the input itself when nothing changed.
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
 * What an engine call rejects with when the engine cannot answer it, `code` saying why; when the worker fails or dies,
 * every pending and later call rejects with it, so none hangs.
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
