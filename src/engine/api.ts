/**
 * The engine's public API: `Engine`, its resident `EngineSession`, and the options of
 * `createEngine`. Methods take and return plain data; every call takes an `AbortSignal`.
 *
 * @module
 */
import type { Messages } from '../message.ts'
import type { EncodingName } from '../tokens.ts'
import type { PruneResult } from '../messages/prune.ts'
import type { CompactionPlan } from '../compaction/plan.ts'
import type { TranscriptOptions } from '../compaction/transcript.ts'
import type { CompactResult } from '../compaction/compact.ts'
import type { EngineHost } from './host.ts'
import type { EngineCompactOptions, EnginePlanOptions, EnginePruneOptions, SessionCompactResult, SessionPlan, SessionPruneResult } from './ops.ts'
import type { CallOptions, EncodingOptions, EngineMode, ProgressOptions, SessionTokens, TokenEstimate } from './types.ts'

// --- the API ---

/**
 * Options of `createEngine`.
 *
 * @since 0.1.0
 * @category engine
 */
export type EngineOptions = {
  /** Default `auto`: a worker where there is one (a `host`, or a `Worker` global), inline elsewhere. */
  readonly mode?: EngineMode
  /** The estimator calls use unless they name another; default `o200k_base`. */
  readonly encoding?: EncodingName
  /** Starts the worker; default a module Web Worker (`webWorkerHost()`). */
  readonly host?: () => EngineHost
  /**
   * Histories cross to and from a worker in slices of about this many bytes. By default the size is
   * learned from how long each send blocks this thread, aimed at 2 ms (an eighth of a frame).
   */
  readonly sliceBytes?: number
  /** A worker that has not answered its first call after this many ms has failed to load; default 30,000. */
  readonly startTimeout?: number
}

/**
 * A resident session: a history kept on the engine's side, so that each turn sends only its new
 * messages across the thread boundary, and token counts stay cached there. Calls on one session run
 * in order. Results are small (counts, reports, changed messages with their positions); `snapshot`
 * returns the whole history when wanted.
 *
 * @since 0.1.0
 * @category engine
 */
export interface EngineSession {
  readonly id: string
  /** Appends messages (the new turn); answers the session's size and tokens. */
  append(messages: Messages, options?: CallOptions): Promise<SessionTokens>
  /** The session's size and tokens (cached: no re-count). */
  tokens(options?: CallOptions): Promise<SessionTokens>
  /**
   * Prunes old tool results of the resident history (backward from the newest, past the protected
   * tail), with the cached counts; answers the report and the replaced messages with their positions.
   */
  prune(options?: EnginePruneOptions & CallOptions): Promise<SessionPruneResult>
  /** Plans a compaction of the resident history: how many messages would be summarised and kept, and their tokens. */
  plan(options?: EnginePlanOptions & CallOptions): Promise<SessionPlan>
  /**
   * Compacts the resident history (plan, transcript, summary, rebuild) and keeps the result
   * resident; answers the rebuilt history, which is small. The summary is written by your
   * `summarize` (called on your side, with this call's signal) or by the embedded extractive one.
   */
  compact(options?: EngineCompactOptions & CallOptions & ProgressOptions): Promise<SessionCompactResult>
  /** The whole resident history, fetched in slices. */
  snapshot(options?: CallOptions): Promise<Messages>
  /** Ends the session on the engine's side; later calls reject. */
  close(options?: CallOptions): Promise<void>
}

/**
 * The engine: token estimation, tool-result pruning, compaction planning, transcripts and
 * compaction, off the main thread in a worker or inline, with one API. Methods take and return plain
 * data; every call takes an `AbortSignal`.
 *
 * @since 0.1.0
 * @category engine
 */
export interface Engine {
  /** Where the work runs: `worker` or `inline` (`auto` resolved). */
  readonly mode: 'worker' | 'inline'
  /** The default encoding. */
  readonly encoding: EncodingName
  /** Resolves once the engine answers (the worker has loaded); rejects with an `EngineError` if it cannot. */
  ready(options?: CallOptions): Promise<void>
  /** Counts a history's tokens, with its breakdown. */
  estimate(messages: Messages, options?: CallOptions & EncodingOptions & ProgressOptions): Promise<TokenEstimate>
  /** Prunes old tool results of a history (the whole history crosses the boundary both ways: prefer a session). */
  pruneToolResults(messages: Messages, options?: EnginePruneOptions & EncodingOptions & CallOptions): Promise<PruneResult>
  /** The head of a history as a transcript for a summariser (`buildTranscript`). */
  buildTranscript(messages: Messages, options?: TranscriptOptions & CallOptions): Promise<string>
  /** Plans a compaction of a history (`planCompaction` with the engine's estimator). */
  planCompaction(messages: Messages, options?: EnginePlanOptions & EncodingOptions & CallOptions): Promise<CompactionPlan>
  /** Compacts a history (`compact` with the engine's estimator; the summariser as in `EngineSession.compact`). */
  compact(messages: Messages, options?: EngineCompactOptions & EncodingOptions & CallOptions & ProgressOptions): Promise<CompactResult>
  /** Loads a history into a resident session, in slices; progress is reported per slice. */
  open(id: string, messages: Messages, options?: CallOptions & EncodingOptions & ProgressOptions): Promise<EngineSession>
  /** Ends the worker and starts a new one (resident sessions are lost); pending calls reject with `restarted`. */
  restart(): Promise<void>
  /** Ends the worker; pending and later calls reject with `disposed`. */
  dispose(): void
}
