/**
 * The protocol between an engine and its service: one method for the operations on a history and
 * one for those on a session (both derived from `OPERATIONS`), the life of a session (staging its
 * messages, opening, closing), reading sliced answers, and confirming or undoing a session's change.
 * All return promises, so that a Comlink `wrap` of the service has the same shape.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import type { EncodingName } from '../tokenizer/load.ts'
import type {
  HistoryAnswer,
  HistoryOperation,
  HistoryRequest,
  Item,
  SessionAnswer,
  SessionOperation,
  SessionRef,
  SessionRequest,
  Slice,
} from './operations.ts'
import type { EngineProgress, RemoteSummarizer, SessionCompactResult, SessionPruneResult } from './types.ts'

// --- protocol ---

/**
 * The version of the service protocol; `ping` answers it, so that a client talking to a worker
 * built from another version fails clearly instead of misbehaving.
 *
 * @since 0.1.0
 * @category engine
 */
export const ENGINE_PROTOCOL = 6

/**
 * A progress callback as the service receives it: a plain function inline, a Comlink proxy
 * (whose calls return promises) in a worker.
 *
 * @since 0.1.0
 * @category engine
 */
export type ProgressCallback = (progress: EngineProgress) => unknown

/**
 * One slice of a session's history as the service answers it.
 *
 * @since 0.1.0
 * @category engine
 */
export type SnapshotSlice = Slice<Message>

/**
 * A session's prune as the service answers it: the changes sliced.
 *
 * @since 0.1.0
 * @category engine
 */
export type PruneSessionAnswer = Omit<SessionPruneResult, 'changes'> & { readonly changes: Slice<SessionPruneResult['changes'][number]> }

/**
 * A session's compaction as the service answers it: the rebuilt history sliced.
 *
 * @since 0.1.0
 * @category engine
 */
export type CompactSessionAnswer = Omit<SessionCompactResult, 'messages'> & { readonly messages: SnapshotSlice }

/**
 * Messages sent ahead of the call that takes them (an `open` or an `append` too large for one send),
 * in order: `at` is the position of the first of them in the whole batch. Staged messages are
 * checked and counted as they arrive, but nothing changes until the call that takes them commits.
 *
 * @since 0.1.0
 * @category engine
 */
export type StageRequest = {
  readonly callId: number
  readonly batch: number
  readonly at: number
  readonly encoding: EncodingName
  readonly messages: Messages
}

/**
 * Starts a resident session (replacing one of the same id when it commits) with the messages staged
 * under `staged`, then `messages`; or with the history saved in `file` (chatfold JSONL, or a JSON
 * array of messages), read, decoded and counted on the service's side.
 *
 * @since 0.1.0
 * @category engine
 */
export type OpenRequest = {
  readonly callId: number
  readonly id: string
  readonly encoding: EncodingName
  readonly messages?: Messages
  readonly staged?: number
  /** A Blob, or the bytes of one that the runtime cannot send to a worker (Node's file-backed Blobs). */
  readonly file?: Blob | ArrayBuffer
  /** What a `file` with a torn last line opens as (default `drop`). */
  readonly tornTail?: 'drop' | 'fail'
}

/**
 * Messages to count, decoded, in a counting worker: it answers their breakdowns packed four numbers
 * per message (`total`, `content`, `thinking`, `tools`), in order.
 *
 * @since 0.1.0
 * @category engine
 */
export type CountRequest = { readonly encoding: EncodingName; readonly messages: Messages }

/**
 * Connects counting workers to the service that holds the sessions: it counts staged slices on them
 * too, each once it has loaded `encoding`'s tables.
 *
 * @since 0.1.0
 * @category engine
 */
export type CountersRequest = { readonly ports: ReadonlyArray<MessagePort>; readonly encoding: EncodingName }

/**
 * Reads the slice of an answered list from `from`.
 *
 * @since 0.1.0
 * @category engine
 */
export type ReadRequest = { readonly callId: number; readonly list: number; readonly from: number; readonly maxBytes: number }

/**
 * The engine service's methods. All return promises, so a Comlink `wrap` of it has the same shape.
 *
 * A call that changes a session (`open`, and the session operations declared `writes`) is a
 * transaction: the session is changed when the answer is sent, and stays so once the client
 * `commit`s; a `cancel` of it (its caller gave up) undoes the change. Later calls on the session
 * wait for one or the other.
 *
 * @since 0.1.0
 * @category engine
 */
export interface EngineService {
  /** Answers the protocol version: the first round trip of a worker. */
  ping(): Promise<number>
  /** Aborts a running call, or undoes the change of an answered one not yet committed. */
  cancel(callId: number): Promise<void>
  /** Keeps the change an answered call made to its session. */
  commit(callId: number): Promise<void>
  /** An operation on a history. */
  history<K extends HistoryOperation>(request: HistoryRequest<K>, onProgress?: ProgressCallback, summarize?: RemoteSummarizer): Promise<HistoryAnswer<K>>
  /** An operation on a resident session, after the calls on it before. */
  session<K extends SessionOperation>(request: SessionRequest<K>, onProgress?: ProgressCallback, summarize?: RemoteSummarizer): Promise<SessionAnswer<K>>
  /** Stages messages for a later `open` or `append`. */
  stage(request: StageRequest): Promise<void>
  /** Starts a resident session; answers its handle. */
  open(request: OpenRequest, onProgress?: ProgressCallback): Promise<number>
  /** The next slice of a list answered earlier. */
  read(request: ReadRequest): Promise<Slice<Item>>
  /** Forgets a list that will not be read to its end, or a batch that will not be taken. */
  release(request: { readonly list?: number; readonly batch?: number }): Promise<void>
  /** Ends a session; answers whether it was open. */
  close(session: SessionRef): Promise<boolean>
  /** Counts messages (a counting worker's one job): their breakdowns, packed. */
  count(request: CountRequest): Promise<Float64Array>
  /** Answers calls on `port` too: how a counting worker is reached by the service that holds the sessions. */
  serve(port: MessagePort): Promise<void>
  /** Counts staged slices on these counting workers too. */
  useCounters(request: CountersRequest): Promise<void>
  /** Stops using a counting worker (by its position in `useCounters`' ports) that failed. */
  dropCounter(index: number): Promise<void>
}
