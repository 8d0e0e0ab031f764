/**
 * Every engine operation, declared in one place, and the service protocol derived from it: the public API (`Engine`, `EngineSession`) and
 * the service's type (what a worker exposes and the client wraps once) are mapped over this one type and its table, so that an operation
 * added here and missing in the client or the service does not compile.
 *
 * @module
 */
import type { ProxyMarked } from 'comlink'
import type { Message, Messages } from '../message/message.ts'
import type { EncodingName } from '../tokenizer/load.ts'
import type { TokenBreakdown } from '../tokens/message-tokens.ts'
import type { PruneResult } from '../history/prune-options.ts'
import type { Receipt } from '../history/receipt.ts'
import type { CompactionPlan } from '../compaction/plan.ts'
import type { TranscriptOptions } from '../compaction/transcript.ts'
import type { Summarizer } from '../compaction/compact.ts'
import type { ContextTokens } from '../tokens/usage.ts'
import type {
  CallOptions,
  EncodingOptions,
  EngineCompactOptions,
  EngineCompactResult,
  EngineContextOptions,
  EnginePlanOptions,
  EngineProgress,
  EnginePruneOptions,
  EngineShouldCompactOptions,
  ProgressOptions,
  RemoteSummarizer,
  SessionCompactResult,
  SessionPlan,
  SessionPruneOptions,
  SessionPruneResult,
  SessionTokens,
  TokenEstimate,
} from './types.ts'

/**
 * How an operation travels:
 * - `messages`: it takes a history (or, on a session, new messages) as its first argument;
 * - `progress`: it reports progress, under this phase;
 * - `summarize`: it calls a summariser (the caller's, on the caller's side), and so has a timeout;
 * - `encoding`: it counts tokens, with the engine's encoding unless the call names another;
 * - `writes`: it changes a resident session (transactionally: a rejected call changes nothing);
 * - `sliced`: the list of its result that comes back in slices (`all` when the result is the list).
 */
export type OperationFeatures = {
  readonly messages?: true
  readonly progress?: EngineProgress['phase']
  readonly summarize?: true
  readonly encoding?: true
  readonly writes?: true
  readonly sliced?: 'all' | 'messages' | 'changes'
}

/** An operation with none of the features. */
type NoFeatures = Readonly<Record<never, never>>

/** An operation's declaration: its features, with its options and result types (`types` is never set: it carries them to the types below). */
type Op<Options, Result, F> = F & OperationFeatures & { readonly types?: { readonly options: Options; readonly result: Result } }

/**
 * The type of {@link OPERATIONS}: each operation's options, result and features, written out (a published type is never inferred:
 * JSR's rule); the table repeats the features, checked against it.
 */
export type Operations = {
  readonly history: {
    /** Counts a history's tokens, with its breakdown. */
    readonly estimate: Op<EncodingOptions, TokenEstimate, { messages: true; progress: 'estimate'; encoding: true }>
    /** Prunes old tool results of a history (the whole history crosses the boundary both ways: prefer a session). */
    readonly pruneToolResults: Op<EnginePruneOptions & EncodingOptions, PruneResult & { readonly receipt: Receipt }, { messages: true; encoding: true }>
    /** The head of a history as a transcript for a summariser (`renderTranscript`). */
    readonly renderTranscript: Op<TranscriptOptions, string, { messages: true }>
    /** Plans a compaction of a history (`planCompaction` with the engine's estimator). */
    readonly planCompaction: Op<EnginePlanOptions & EncodingOptions, CompactionPlan, { messages: true; encoding: true }>
    /** Compacts a history (`compact` with the engine's estimator; the summariser as in `EngineSession.compact`). */
    readonly compact: Op<EngineCompactOptions & EncodingOptions, EngineCompactResult, { messages: true; progress: 'compact'; summarize: true; encoding: true }>
  }
  readonly session: {
    /** Appends messages (the new turn); answers the session's size and tokens. */
    readonly append: Op<unknown, SessionTokens, { messages: true; writes: true }>
    /** The session's size and tokens (cached: no re-count). */
    readonly tokens: Op<unknown, SessionTokens, NoFeatures>
    /** Prunes old tool results of the resident history (from the newest back, past the protected tail), with the cached counts. */
    readonly prune: Op<SessionPruneOptions, SessionPruneResult, { writes: true; sliced: 'changes' }>
    /** Plans a compaction of the resident history: how many messages would be summarised and kept, and their tokens. */
    readonly plan: Op<EnginePlanOptions, SessionPlan, NoFeatures>
    /** The context a provider will see (`contextTokens`): the last usage the history records plus the cached counts of the messages after it. */
    readonly contextTokens: Op<EngineContextOptions, ContextTokens, NoFeatures>
    /** Whether the resident history should be compacted (`shouldCompact`), anchored as `contextTokens` is. */
    readonly shouldCompact: Op<EngineShouldCompactOptions, boolean, NoFeatures>
    /**
     * Compacts the resident history (plan, transcript, summary, rebuild) and keeps the result resident. The summary is written by your
     * `summarize` (called on your side, with this call's signal) or by the embedded extractive one.
     */
    readonly compact: Op<EngineCompactOptions, SessionCompactResult, { progress: 'compact'; summarize: true; writes: true; sliced: 'messages' }>
    /** The whole resident history, fetched in slices. */
    readonly snapshot: Op<unknown, Messages, { sliced: 'all' }>
    /** Each resident message's tokens in order, as `countMessage` gives them, from the session's cache (nothing is counted again), in slices. */
    readonly counts: Op<unknown, ReadonlyArray<TokenBreakdown>, { sliced: 'all' }>
  }
}

/** The engine's operations: on a history it is given (`history`), and on a resident session (`session`). All else about a call derives from it. */
export const OPERATIONS: Operations = {
  history: {
    estimate: { messages: true, progress: 'estimate', encoding: true },
    pruneToolResults: { messages: true, encoding: true },
    renderTranscript: { messages: true },
    planCompaction: { messages: true, encoding: true },
    compact: { messages: true, progress: 'compact', summarize: true, encoding: true },
  },
  session: {
    append: { messages: true, writes: true },
    tokens: {},
    prune: { writes: true, sliced: 'changes' },
    plan: {},
    contextTokens: {},
    shouldCompact: {},
    compact: { progress: 'compact', summarize: true, writes: true, sliced: 'messages' },
    snapshot: { sliced: 'all' },
    counts: { sliced: 'all' },
  },
}

/** The names of the operations on a history and on a resident session. */
export type HistoryOperation = keyof History
export type SessionOperation = keyof Session
type History = Operations['history']
type Session = Operations['session']

/** One method per operation of `table`, made by `make` from its name: how the service and the client derive their methods (`M`) from it. */
export const perOperation = <M>(table: { readonly [K in keyof M]: OperationFeatures }, make: (op: keyof M & string) => unknown): M =>
  Object.fromEntries(Object.keys(table).map((op) => [op, make(op as keyof M & string)])) as M

/** An operation's result. */
export type ResultOf<D> = D extends { readonly types?: { readonly result: infer R } } ? R : never

/** The options a caller passes: the operation's own, a signal, and a progress callback where it reports progress. */
export type CallOf<D> =
  & (D extends { readonly types?: { readonly options: infer O } } ? O : never)
  & CallOptions
  & (D extends { readonly progress: string } ? ProgressOptions : unknown)

/** A method of the public API: `(messages, options?)` for an operation that takes messages, else `(options?)`. */
type Method<D> = D extends { readonly messages: true } ? (messages: Messages, options?: CallOf<D>) => Promise<ResultOf<D>>
  : (options?: CallOf<D>) => Promise<ResultOf<D>>

/** The engine's methods on a history and a resident session's, derived from `OPERATIONS`. */
export type HistoryMethods = { [K in HistoryOperation]: Method<History[K]> }
export type SessionMethods = { [K in SessionOperation]: Method<Session[K]> }

// --- the protocol ---

/** The protocol's version, answered by `ping`: it tells a worker that loaded from one that never answers, and one of another release. */
export const ENGINE_PROTOCOL = 8

/** A progress callback as the service receives it: a plain function inline, a Comlink proxy (whose calls return promises) in a worker. */
export type ProgressCallback = (progress: EngineProgress) => unknown

/** A piece of a list too large for one send: messages sent ahead of their call, or the rest of an answer's list; its items start at `at` of `length`. */
export type Chunk<A> = { readonly at: number; readonly items: ReadonlyArray<A>; readonly length: number }

/** An operation's result as the service answers it: the list named by `sliced` comes as its first chunk. */
export type AnswerOf<D> = D extends { readonly sliced: infer S } ? Chunked<ResultOf<D>, S> : ResultOf<D>
type Chunked<R, S> = S extends 'all' ? R extends ReadonlyArray<infer I> ? Chunk<I> : never
  : S extends keyof R ? Omit<R, S> & { readonly [K in S]: R[K] extends ReadonlyArray<infer I> ? Chunk<I> : never }
  : R

/** What a caller's options may carry that stays on the caller's side. */
export type CallerSide = {
  readonly signal?: AbortSignal
  readonly onProgress?: (progress: EngineProgress) => void
  readonly summarize?: Summarizer
  readonly timeout?: number
}

/** The options that cross to the service. */
export type WireOptions<D> = Omit<CallOf<D>, keyof CallerSide>

/** A resident session as the service knows it: its id and the handle its `open` answered. */
export type SessionRef = { readonly id: string; readonly handle: number }

/** What every call carries: its id (by which `cancel` and its chunks reach it) and how many bytes a chunk of its answer may hold. */
export type CallHeader = { readonly callId: number; readonly maxBytes: number }

/** The messages a call takes: sent with it, or (`chunked`) in chunks sent ahead under its id. */
export type Carried = { readonly messages?: Messages; readonly chunked?: true }

/** A call with the callbacks an operation may declare: top-level arguments, so that Comlink proxies them. */
type Call<Request, Answer> = (request: Request, onProgress?: ProgressCallback, summarize?: RemoteSummarizer) => Promise<Answer>

/** A call of an operation on a history (whose answers are never chunked), and on a resident session. */
export type HistoryCall<K extends HistoryOperation> = Call<
  CallHeader & { readonly messages: Messages; readonly options: WireOptions<History[K]> },
  ResultOf<History[K]>
>
export type SessionCall<K extends SessionOperation> = Call<
  CallHeader & Carried & { readonly session: SessionRef; readonly options: WireOptions<Session[K]> },
  AnswerOf<Session[K]>
>

/** The counting pool's methods: a counting worker `count`s for the service it `serve`s; that service `use`s it and `drop`s one that failed. */
export type CountingCalls = {
  /** Counts messages: their breakdowns packed four numbers per message (total, content, thinking, tools). */
  readonly count: (encoding: EncodingName, messages: Messages) => Promise<Float64Array>
  readonly serve: (port: MessagePort) => Promise<void>
  /** Counts on the counting workers at these ports too, each once it has loaded `encoding`'s tables. */
  readonly use: (ports: ReadonlyArray<MessagePort>, encoding: EncodingName) => Promise<void>
  /** Stops using a counting worker (by its position in `use`'s ports). */
  readonly drop: (index: number) => Promise<void>
}

/**
 * The engine service as the client calls it, in this thread or through Comlink. A call that changes a session commits when its answer is
 * sent or, when the answer carries a list in chunks, when its last chunk is read (`chunks.read`); `cancel` aborts a running call, forgets
 * its chunks, and undoes one whose chunks are unread. `chunks.put` sends a chunk of a call's messages ahead of it.
 */
export type ServicePort = {
  readonly ping: () => Promise<number>
  readonly cancel: (callId: number) => Promise<void>
  /** Starts a resident session (replacing one of the same id) with the messages carried or the history saved in `file`; answers its handle. */
  readonly open: Call<
    CallHeader & Carried & { readonly id: string; readonly encoding: EncodingName; readonly file?: Blob | ArrayBuffer; readonly tornTail?: 'drop' | 'fail' },
    number
  >
  /** Ends a session; answers whether it was open. */
  readonly close: (session: SessionRef) => Promise<boolean>
  readonly history: { readonly [K in HistoryOperation]: HistoryCall<K> }
  readonly session: { readonly [K in SessionOperation]: SessionCall<K> }
  readonly chunks: {
    readonly put: (callId: number, encoding: EncodingName, chunk: Chunk<Message>) => Promise<void>
    readonly read: (callId: number) => Promise<Chunk<unknown>>
  }
  readonly counting: CountingCalls
}

/** The service as a worker exposes it and the client wraps it, once: its groups marked, so that Comlink's types follow them. */
export type EngineService = {
  readonly [K in keyof ServicePort]: ServicePort[K] extends (...args: never[]) => unknown ? ServicePort[K] : ServicePort[K] & ProxyMarked
}
