/**
 * The protocol between an engine and its service: the service's methods (all returning promises,
 * so that a Comlink `wrap` of it has the same shape) and the wire forms of the answers that come
 * back in slices.
 *
 * @module
 */
import type { Messages } from '../message.ts'
import type { PruneResult } from '../messages/prune.ts'
import type { CompactionPlan } from '../compaction/plan.ts'
import type { TranscriptOptions } from '../compaction/transcript.ts'
import type { CompactResult } from '../compaction/compact.ts'
import type {
  EngineCompactOptions,
  EnginePlanOptions,
  EnginePruneOptions,
  RemoteSummarizer,
  SessionCompactResult,
  SessionPlan,
  SessionPruneResult,
} from './ops.ts'
import type { EncodingOptions, EngineProgress, SessionTokens, TokenEstimate } from './types.ts'

// --- protocol ---

/**
 * The version of the service protocol; `ping` answers it, so that a client talking to a worker
 * built from another version fails clearly instead of misbehaving.
 *
 * @example
 * import { createEngineService, ENGINE_PROTOCOL } from 'chatfold'
 * await createEngineService().ping() === ENGINE_PROTOCOL // true
 *
 * @since 0.1.0
 * @category engine
 */
export const ENGINE_PROTOCOL = 1

/**
 * A progress callback as the service receives it: a plain function inline, a Comlink proxy
 * (whose calls return promises) in a worker.
 *
 * @since 0.1.0
 * @category engine
 */
export type ProgressCallback = (progress: EngineProgress) => unknown

/**
 * One slice of a list of messages the service sends back (a session's history, a prune's changed
 * messages, a compaction's rebuilt history): its messages, the list's id, and where the next slice
 * starts (absent on the last one). The rest is fetched with `snapshotSession`, so that no single
 * message blocks the receiving thread longer than a send is allowed to.
 *
 * @since 0.1.0
 * @category engine
 */
export type SnapshotSlice = { readonly snapshot: number; readonly messages: Messages; readonly next?: number }

/**
 * A session's prune as the service answers it: the changed positions, and the changed messages
 * in the same order, sliced.
 *
 * @since 0.1.0
 * @category engine
 */
export type PruneSessionAnswer = Omit<SessionPruneResult, 'changes'> & { readonly indices: ReadonlyArray<number>; readonly changed: SnapshotSlice }

/**
 * A session's compaction as the service answers it: the rebuilt history sliced.
 *
 * @since 0.1.0
 * @category engine
 */
export type CompactSessionAnswer = Omit<SessionCompactResult, 'messages'> & { readonly messages: SnapshotSlice }

/**
 * The engine service's methods. All return promises, so a Comlink `wrap` of it has the same shape.
 *
 * @since 0.1.0
 * @category engine
 */
export interface EngineService {
  /** Answers the protocol version: the first round trip of a worker. */
  ping(): Promise<number>
  /** Aborts a running call. */
  cancel(callId: number): Promise<void>
  /** Counts a history's tokens (slice by slice, reporting progress). */
  estimate(callId: number, messages: Messages, options: EncodingOptions, onProgress?: ProgressCallback): Promise<TokenEstimate>
  /** Prunes old tool results (and large call arguments) of a history. */
  pruneToolResults(callId: number, messages: Messages, options: EnginePruneOptions & EncodingOptions): Promise<PruneResult>
  /** The head of a history as a transcript for a summariser. */
  buildTranscript(callId: number, messages: Messages, options: TranscriptOptions): Promise<string>
  /** Plans a compaction of a history. */
  planCompaction(callId: number, messages: Messages, options: EnginePlanOptions & EncodingOptions): Promise<CompactionPlan>
  /** Compacts a history: plan, transcript, summary (the caller's `summarize`, or the extractive one), rebuild. */
  compact(
    callId: number,
    messages: Messages,
    options: Omit<EngineCompactOptions, 'summarize'> & EncodingOptions,
    summarize?: RemoteSummarizer,
    onProgress?: ProgressCallback,
  ): Promise<CompactResult>
  /** Starts a resident session (replacing one of the same id); answers its handle. */
  openSession(callId: number, id: string, options: EncodingOptions): Promise<number>
  /** Appends messages to a session and counts them. */
  appendSession(callId: number, id: string, handle: number, messages: Messages, onProgress?: ProgressCallback): Promise<SessionTokens>
  /** A session's size and tokens. */
  sessionTokens(callId: number, id: string, handle: number): Promise<SessionTokens>
  /** Prunes a session's history in place; answers the changed messages (sliced to `maxBytes`). */
  pruneSession(callId: number, id: string, handle: number, options: EnginePruneOptions, maxBytes: number): Promise<PruneSessionAnswer>
  /** Plans a compaction of a session's history; answers counts, not messages. */
  planSession(callId: number, id: string, handle: number, options: EnginePlanOptions): Promise<SessionPlan>
  /** Compacts a session's history in place; answers the rebuilt history, which is small. */
  compactSession(
    callId: number,
    id: string,
    handle: number,
    options: Omit<EngineCompactOptions, 'summarize'>,
    maxBytes: number,
    summarize?: RemoteSummarizer,
    onProgress?: ProgressCallback,
  ): Promise<CompactSessionAnswer>
  /**
   * One slice of a session's history (a snapshot taken at the first slice, when `snapshot` is
   * undefined), or of a list answered earlier (by its `snapshot` id).
   */
  snapshotSession(callId: number, id: string, handle: number, snapshot: number | undefined, from: number, maxBytes: number): Promise<SnapshotSlice>
  /** Forgets a list that will not be read to its end. */
  releaseSnapshot(id: string, handle: number, snapshot: number): Promise<void>
  /** Ends a session; answers whether it was open. */
  closeSession(id: string, handle: number): Promise<boolean>
}
