/**
 * The engine's public API: `Engine`, its resident `EngineSession`, and the options of
 * `createEngine`. Methods take and return plain data; every call takes an `AbortSignal`.
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
  /** Default `auto`: a worker where there is one (a `host`, or a `Worker` global), inline elsewhere. */
  readonly mode?: EngineMode
  /** The estimator calls use unless they name another; default `o200k_base`. */
  readonly encoding?: EncodingName
  /** Starts a worker (called once for the engine's worker, and once per counting worker); default a module Web Worker (`webWorkerHost()`). */
  readonly host?: () => EngineHost
  /**
   * Histories cross to and from a worker in slices of about this many bytes. By default the size is
   * learned from how long each send blocks this thread, aimed at 2 ms (an eighth of a frame). The
   * last slices of a history are smaller either way, so that the workers counting them finish together.
   */
  readonly sliceBytes?: number
  /** A worker that has not answered its first call after this many ms has failed to load; default 30,000. */
  readonly startTimeout?: number
  /**
   * How many workers count a large history (worker mode): the engine's worker, which keeps the
   * sessions, and `workers - 1` counting workers, started from `host` with the first call that
   * counts with a tokenizer (not `heuristic`); each holds its own copy of the tokenizer's tables.
   * Counts are the same whatever the number. Default: one per core but one, which stays with
   * the page's (or server's) own thread, at most 4: `navigator.hardwareConcurrency - 1`
   * (`createNodeEngine`: `os.availableParallelism() - 1`), and 1 where the runtime does not tell.
   * `1` counts in the engine's worker alone; on 2 cores, `2` opens in about 0.7 of the time.
   */
  readonly workers?: number
}

/**
 * A resident session: a history kept on the engine's side, so that each turn sends only its new
 * messages across the thread boundary, and token counts stay cached there. Calls on one session run
 * in order, and each is a transaction: a call that rejects (aborted, failed, timed out) has left the
 * session exactly as it was. Its methods are those of `OPERATIONS.session`. Results are small (counts, reports, changed messages with their positions); `snapshot`
 * returns the whole history when wanted.
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
 * The engine: token estimation, tool-result pruning, compaction planning, transcripts and
 * compaction, off the main thread in a worker or inline, with one API. Methods take and return plain
 * data; every call takes an `AbortSignal`. Its methods on a history are those of `OPERATIONS.history`;
 * what crosses into the engine is decoded, and bad messages reject with a `TypeError` naming each bad
 * field by path.
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
   * Loads a saved history into a resident session straight from a `Blob`: a `File` from a file
   * input, `await response.blob()`, a Blob kept in IndexedDB, Node's `fs.openAsBlob(path)` (whose
   * bytes are sent, as such a Blob cannot cross to a worker). It holds chatfold JSONL (one message a
   * line, as `toJSONL` and `saveHistory` write it) or a JSON array of messages (as `toJSON` writes
   * it). Only the Blob's handle crosses to the worker, which reads, decodes and counts the text
   * (on the counting workers too), so this thread does no work in proportion to the history; get
   * the messages back with `snapshot` when this side needs them. Progress counts messages; its
   * `total` is estimated from the bytes read until the end. Bad lines reject with a `TypeError` naming
   * each by line (`line 3: role: expected …`), a value that is no Blob with a `TypeError` saying what
   * it is. A torn last line (a crash mid-append) is dropped as `loadHistory` drops it, or reported
   * with `tornTail: 'fail'`.
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
