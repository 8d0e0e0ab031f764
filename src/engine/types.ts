/**
 * The engine's vocabulary: modes, call options, progress, results of resident sessions, and the
 * error every failed call rejects with. Everything here is plain, structured-clonable data, so the
 * same values cross a worker boundary unchanged.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import type { EncodingName } from '../tokenizer/load.ts'

// --- modes ---

/**
 * Where the engine runs: `worker` (a Web Worker, or the host you pass), `inline` (this thread), or
 * `auto` (a worker where the runtime has one, inline anywhere else, e.g. workerd).
 *
 * @since 0.1.0
 * @category engine
 */
export type EngineMode = 'worker' | 'inline' | 'auto'

// --- options ---

/**
 * Options every engine call takes: an `AbortSignal`. An aborted call rejects at once with the
 * signal's reason, and the engine stops its work at the next slice boundary.
 *
 * @since 0.1.0
 * @category engine
 */
export type CallOptions = { readonly signal?: AbortSignal }

/**
 * Which estimator counts tokens, by name (functions cannot cross a thread boundary). The
 * engine's own encoding is the default.
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
 * A progress callback. In worker mode it is called across the thread boundary (a Comlink proxy),
 * at most every 50 ms or so, and always once at the end.
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
 * @since 0.2.0
 * @category engine
 */
export type FileOptions = { readonly tornTail?: 'drop' | 'fail' }

// --- results ---

/**
 * Token counts of a history: the total and its content, thinking and tools breakdown, and how
 * many messages were counted.
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
 * What changed in a resident history: the replaced messages with their positions and the new
 * length. Apply it to your own copy with `applyChanges`.
 *
 * @since 0.1.0
 * @category engine
 */
export type HistoryChanges = { readonly changes: ReadonlyArray<MessageChange>; readonly length: number }

// --- changes ---

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
export const applyChanges =
  (diff: HistoryChanges) =>
  (ms: Messages): Messages => {
    if (diff.changes.length === 0 && diff.length === ms.length) return ms
    const out: Array<Message | undefined> = ms.slice(0, diff.length)
    out.length = diff.length
    for (const c of diff.changes) if (c.index >= 0 && c.index < diff.length) out[c.index] = c.message
    return out.filter((m): m is Message => m !== undefined)
  }

// --- errors ---

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
 * The error an engine call rejects with when the engine cannot answer it; `code` says why. A call
 * never hangs: when the worker fails or dies, every pending and later call rejects with it.
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
