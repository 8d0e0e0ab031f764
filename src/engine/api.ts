/**
 * The engine's public API: `Engine`, its resident `EngineSession`, and the options of `createEngine`.
 *
 * @module
 */
import type { Messages } from '../message/message.ts'
import type { EncodingName } from '../tokenizer/load.ts'
import type { EngineHost } from './host.ts'
import type { HistoryMethods, SessionMethods } from './operations.ts'
import type { CallOptions, EncodingOptions, EngineMode, FileOptions, ProgressOptions } from './types.ts'

/**
 * Options of `createEngine`.
 *
 * @since 0.1.0
 * @category engine
 */
export type EngineOptions = {
  /** Where the engine runs; default `auto`. */
  readonly mode?: EngineMode
  /** The estimator calls use unless they name another; default `o200k_base`. */
  readonly encoding?: EncodingName
  /** Starts a worker (called once for the engine's worker, and once per counting worker); default a module Web Worker (`webWorkerHost()`). */
  readonly host?: () => EngineHost
  /**
   * Histories cross to and from a worker in slices of about this many bytes, by default learned so that a send blocks
   * this thread about 2 ms (an eighth of a frame); a history's last slices are smaller, so its counting workers finish together.
   */
  readonly sliceBytes?: number
  /** A worker that has not answered its first call after this many ms has failed to load; default 30,000. */
  readonly startTimeout?: number
  /**
   * How many workers count a large history (worker mode): the engine's worker, which keeps the sessions, and
   * `workers - 1` counting workers started from `host` by the first call that counts with a tokenizer (not
   * `heuristic`), each with its own copy of the tokenizer's tables; counts do not depend on the number. Default
   * `defaultWorkers()`: one per core but one (left to this thread), at most 4, and 1 where the runtime does not tell
   * (`createNodeEngine`: `os.availableParallelism() - 1`). `1` counts in the engine's worker alone; on 2 cores, `2`
   * opens in about 0.7 of the time.
   */
  readonly workers?: number
}

/**
 * A resident session: a history kept, with its token counts, on the engine's side, so each turn sends only its new
 * messages. Calls on one session run in order, each a transaction: one that rejects (aborted, failed, timed out) leaves
 * the session as it was. Its methods are `OPERATIONS.session`'s; results are small (counts, reports, changed messages
 * with their positions), and `snapshot` returns the whole history.
 *
 * @example
 * import { createEngine, textMessage } from 'chatfold'
 * const engine = createEngine({ mode: 'inline', encoding: 'heuristic' })
 * const session = await engine.open('chat-1', [textMessage('user', 'Hello, world!')])
 * await session.append([textMessage('assistant', 'Hi!')])
 * await session.tokens() // { messages: 2, tokens: 13 }
 * await session.counts() // [{ total: 8, content: 4, thinking: 0, tools: 0 }, { total: 5, content: 1, thinking: 0, tools: 0 }]
 * engine.dispose()
 *
 * @since 0.1.0
 * @category engine
 */
export interface EngineSession extends SessionMethods {
  readonly id: string
  /** Ends the session on the engine's side; later calls reject. */
  close(options?: CallOptions): Promise<void>
}

/**
 * The engine: token estimation, tool-result pruning, compaction planning, transcripts and compaction, in a worker or
 * inline. Its history methods are `OPERATIONS.history`'s; all take and return plain data, every call takes an
 * `AbortSignal`, and bad messages reject with a `TypeError` naming each bad field by path.
 *
 * @since 0.1.0
 * @category engine
 */
export interface Engine extends HistoryMethods {
  /** Where the work runs: `worker` or `inline` (`auto` resolved). */
  readonly mode: 'worker' | 'inline'
  /** The default encoding. */
  readonly encoding: EncodingName
  /** Resolves once the engine answers (the worker has loaded); rejects with an `EngineError` if it cannot. */
  ready(options?: CallOptions): Promise<void>
  /** Loads a history into a resident session, in slices; progress is reported per slice. */
  open(id: string, messages: Messages, options?: CallOptions & EncodingOptions & ProgressOptions): Promise<EngineSession>
  /**
   * Loads a saved history into a resident session straight from a `Blob` (or Node's `fs.openAsBlob(path)`, whose bytes
   * are sent, as such a Blob cannot cross to a worker) of chatfold JSONL (as `toJSONL` and `saveHistory` write it) or a
   * JSON array of messages (as `toJSON` writes it). Only the Blob's handle crosses: the worker reads, decodes and counts
   * the text (on the counting workers too), so this thread does no work in proportion to the history (`snapshot` returns
   * the messages). Progress counts messages, its `total` estimated from the bytes read until the end. Bad lines reject
   * with a `TypeError` naming each by line (`line 3: role: expected …`), a non-Blob with one saying what it is; a torn
   * last line is dropped, or rejects with `tornTail: 'fail'` (see `FileOptions`).
   *
   * @example
   * import { createEngine, textMessage, toJSONL } from 'chatfold'
   * // a File from <input type="file">, `await response.blob()`, or a Blob kept in IndexedDB
   * const file = new Blob([toJSONL([textMessage('user', 'Hello, world!')])])
   * const engine = createEngine({ mode: 'inline', encoding: 'heuristic' })
   * const session = await engine.openFile('saved', file, { onProgress: (p) => console.log(p.done, p.total) })
   * await session.tokens() // { messages: 1, tokens: 8 }
   * engine.dispose()
   */
  openFile(id: string, file: Blob, options?: CallOptions & EncodingOptions & ProgressOptions & FileOptions): Promise<EngineSession>
  /** Ends the worker and starts a new one (resident sessions are lost); pending calls reject with `restarted`. */
  restart(): Promise<void>
  /** Ends the worker; pending and later calls reject with `disposed`. */
  dispose(): void
}
