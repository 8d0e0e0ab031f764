/**
 * Every engine operation, declared once: its name, its options, its result, and how it travels
 * (whether it reports progress, calls a summariser, takes an encoding, changes a resident session,
 * answers a list in slices). The public API (`Engine`, `EngineSession`), the service protocol, the
 * client and the service are all derived from this one table: its types are mapped over the
 * operations, and what the client and the service do per operation is listed in tables of those
 * types, so that an operation added here and missing there does not compile.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import type { TokenBreakdown } from '../tokens/message-tokens.ts'
import type { PruneResult } from '../history/prune-options.ts'
import type { CompactionPlan } from '../compaction/plan.ts'
import type { TranscriptOptions } from '../compaction/transcript.ts'
import type { CompactResult, Summarizer } from '../compaction/compact.ts'
import type { ContextTokens } from '../tokens/usage.ts'
import type {
  CallOptions,
  EncodingOptions,
  EngineCompactOptions,
  EngineContextOptions,
  EnginePlanOptions,
  EnginePruneOptions,
  EngineProgress,
  EngineShouldCompactOptions,
  ProgressOptions,
  SessionCompactResult,
  SessionPlan,
  SessionPruneResult,
  SessionTokens,
  TokenEstimate,
} from './types.ts'

// --- declarations ---

/**
 * How an operation travels:
 * - `messages`: it takes a history (or, on a session, new messages) as its first argument;
 * - `progress`: it reports progress, under this phase;
 * - `summarize`: it calls a summariser (the caller's, on the caller's side), and so has a timeout;
 * - `encoding`: it counts tokens, with the engine's encoding unless the call names another;
 * - `writes`: it changes a resident session (transactionally: a rejected call changes nothing);
 * - `sliced`: the list of its result that comes back in slices (`all` when the result is the list).
 *
 * @since 0.1.0
 * @category engine
 */
export type OperationFeatures = {
  readonly messages?: true
  readonly progress?: EngineProgress['phase']
  readonly summarize?: true
  readonly encoding?: true
  readonly writes?: true
  readonly sliced?: 'all' | 'messages' | 'changes'
}

/**
 * An operation's declaration: its features, carrying its options and result types.
 *
 * @since 0.1.0
 * @category engine
 */
export type Declaration<Options, Result> = OperationFeatures & { readonly types?: { readonly options: Options; readonly result: Result } }

type Op<Options, Result, F extends OperationFeatures> = F & Declaration<Options, Result>

/**
 * The type of {@link OPERATIONS}: each operation's options, result and features, where each
 * operation is declared (the value repeats the features, checked against this).
 *
 * @since 0.1.0
 * @category engine
 */
export type Operations = {
  readonly history: {
    readonly estimate: Op<EncodingOptions, TokenEstimate, { readonly messages: true; readonly progress: 'estimate'; readonly encoding: true }>
    readonly pruneToolResults: Op<EnginePruneOptions & EncodingOptions, PruneResult, { readonly messages: true; readonly encoding: true }>
    readonly renderTranscript: Op<TranscriptOptions, string, { readonly messages: true }>
    readonly planCompaction: Op<EnginePlanOptions & EncodingOptions, CompactionPlan, { readonly messages: true; readonly encoding: true }>
    readonly compact: Op<EngineCompactOptions & EncodingOptions, CompactResult, { readonly messages: true; readonly progress: 'compact'; readonly summarize: true; readonly encoding: true }>
  }
  readonly session: {
    readonly append: Op<unknown, SessionTokens, { readonly messages: true; readonly writes: true }>
    readonly tokens: Op<unknown, SessionTokens, {}>
    readonly prune: Op<EnginePruneOptions, SessionPruneResult, { readonly writes: true; readonly sliced: 'changes' }>
    readonly plan: Op<EnginePlanOptions, SessionPlan, {}>
    readonly contextTokens: Op<EngineContextOptions, ContextTokens, {}>
    readonly shouldCompact: Op<EngineShouldCompactOptions, boolean, {}>
    readonly compact: Op<EngineCompactOptions, SessionCompactResult, { readonly progress: 'compact'; readonly summarize: true; readonly writes: true; readonly sliced: 'messages' }>
    readonly snapshot: Op<unknown, Messages, { readonly sliced: 'all' }>
    readonly counts: Op<unknown, ReadonlyArray<TokenBreakdown>, { readonly sliced: 'all' }>
  }
}

/**
 * The engine's operations: on a history it is given (`history`), and on a resident session
 * (`session`). Everything else about a call is derived from this table.
 *
 * @since 0.1.0
 * @category engine
 */
export const OPERATIONS: Operations = {
  history: {
    /** Counts a history's tokens, with its breakdown. */
    estimate: { messages: true, progress: 'estimate', encoding: true },
    /** Prunes old tool results of a history (the whole history crosses the boundary both ways: prefer a session). */
    pruneToolResults: { messages: true, encoding: true },
    /** The head of a history as a transcript for a summariser (`renderTranscript`). */
    renderTranscript: { messages: true },
    /** Plans a compaction of a history (`planCompaction` with the engine's estimator). */
    planCompaction: { messages: true, encoding: true },
    /** Compacts a history (`compact` with the engine's estimator; the summariser as in `EngineSession.compact`). */
    compact: { messages: true, progress: 'compact', summarize: true, encoding: true },
  },
  session: {
    /** Appends messages (the new turn); answers the session's size and tokens. */
    append: { messages: true, writes: true },
    /** The session's size and tokens (cached: no re-count). */
    tokens: {},
    /**
     * Prunes old tool results of the resident history (backward from the newest, past the protected
     * tail), with the cached counts; answers the report and the replaced messages with their positions.
     */
    prune: { writes: true, sliced: 'changes' },
    /** Plans a compaction of the resident history: how many messages would be summarised and kept, and their tokens. */
    plan: {},
    /**
     * The context a provider will see of the resident history (`contextTokens`): the last usage it
     * records plus the estimate of the messages after it, from the session's cached counts.
     */
    contextTokens: {},
    /** Whether the resident history should be compacted (`shouldCompact`), anchored as `contextTokens` is. */
    shouldCompact: {},
    /**
     * Compacts the resident history (plan, transcript, summary, rebuild) and keeps the result
     * resident; answers the rebuilt history, which is small. The summary is written by your
     * `summarize` (called on your side, with this call's signal) or by the embedded extractive one.
     */
    compact: { progress: 'compact', summarize: true, writes: true, sliced: 'messages' },
    /** The whole resident history, fetched in slices. */
    snapshot: { sliced: 'all' },
    /**
     * Each resident message's tokens, in order: its breakdown as `countMessage` gives it (total,
     * content, thinking, tools), from the session's cache (nothing is counted again), fetched in
     * slices. What a view needs to show tokens per message without estimating each one itself.
     */
    counts: { sliced: 'all' },
  },
}

/**
 * The names of the operations on a history.
 *
 * @since 0.1.0
 * @category engine
 */
export type HistoryOperation = keyof typeof OPERATIONS.history

/**
 * The names of the operations on a resident session.
 *
 * @since 0.1.0
 * @category engine
 */
export type SessionOperation = keyof typeof OPERATIONS.session

type History = typeof OPERATIONS.history
type Session = typeof OPERATIONS.session

// --- derived: the API ---

/**
 * An operation's own options.
 *
 * @since 0.1.0
 * @category engine
 */
export type OptionsOf<D> = D extends { readonly types?: { readonly options: infer O } } ? O : never

/**
 * An operation's result.
 *
 * @since 0.1.0
 * @category engine
 */
export type ResultOf<D> = D extends { readonly types?: { readonly result: infer R } } ? R : never

/**
 * The options a caller passes: the operation's own, a signal, and a progress callback where it
 * reports progress.
 *
 * @since 0.1.0
 * @category engine
 */
export type CallOf<D> = OptionsOf<D> & CallOptions & (D extends { readonly progress: string } ? ProgressOptions : unknown)

/** A method of the public API: `(messages, options?)` for an operation that takes messages, else `(options?)`. */
type Method<D> = D extends { readonly messages: true }
  ? (messages: Messages, options?: CallOf<D>) => Promise<ResultOf<D>>
  : (options?: CallOf<D>) => Promise<ResultOf<D>>

/**
 * The engine's methods on a history, derived from `OPERATIONS.history`.
 *
 * @since 0.1.0
 * @category engine
 */
export type HistoryMethods = { [K in HistoryOperation]: Method<History[K]> }

/**
 * A resident session's methods, derived from `OPERATIONS.session`.
 *
 * @since 0.1.0
 * @category engine
 */
export type SessionMethods = { [K in SessionOperation]: Method<Session[K]> }

// --- derived: the protocol ---

/**
 * One slice of a list the service answers (a session's history, a prune's changes, a compaction's
 * rebuilt history): its items, the list's id, and where the next slice starts (absent on the last
 * one). The rest is read with `read`, so that no single message blocks the receiving thread longer
 * than a send is allowed to.
 *
 * @since 0.1.0
 * @category engine
 */
export type Slice<A> = { readonly list: number; readonly items: ReadonlyArray<A>; readonly next?: number }

type Sliced<R, S> = S extends 'all'
  ? R extends ReadonlyArray<infer I> ? Slice<I> : never
  : S extends keyof R
    ? Omit<R, S> & { readonly [K in S]: R[K] extends ReadonlyArray<infer I> ? Slice<I> : never }
    : R

/**
 * An operation's result as the service answers it: the list named by `sliced` comes as its first slice.
 *
 * @since 0.1.0
 * @category engine
 */
export type AnswerOf<D> = D extends { readonly sliced: infer S } ? Sliced<ResultOf<D>, S> : ResultOf<D>

/** What a caller's options may carry that stays on the caller's side: the signal, callbacks, the summariser and its timeout. */
export type CallerSide = {
  readonly signal?: AbortSignal
  readonly onProgress?: (progress: EngineProgress) => void
  readonly summarize?: Summarizer
  readonly timeout?: number
}

/**
 * The options that cross to the service: the caller's, without what stays on the caller's side
 * (the signal, callbacks, the summariser and its timeout).
 *
 * @since 0.1.0
 * @category engine
 */
export type WireOptions<D> = Omit<CallOf<D>, keyof CallerSide>

/**
 * A resident session as the service knows it: its id and the handle its `open` answered.
 *
 * @since 0.1.0
 * @category engine
 */
export type SessionRef = { readonly id: string; readonly handle: number }

type Common = {
  /** By which `cancel` aborts the call, and `commit` confirms a session's change. */
  readonly callId: number
  /** How many bytes a sliced answer may carry per slice. */
  readonly maxBytes: number
}

/**
 * A call of an operation on a history.
 *
 * @since 0.1.0
 * @category engine
 */
export type HistoryRequest<K extends HistoryOperation = HistoryOperation> = Common & {
  readonly op: K
  readonly messages: Messages
  readonly options: WireOptions<History[K]>
}

/**
 * A call of an operation on a resident session. Messages (an append's) come in `messages`, after
 * those staged earlier under `staged`.
 *
 * @since 0.1.0
 * @category engine
 */
export type SessionRequest<K extends SessionOperation = SessionOperation> = Common & {
  readonly op: K
  readonly session: SessionRef
  readonly options: WireOptions<Session[K]>
  readonly messages?: Messages
  readonly staged?: number
}

/**
 * The answer of a call on a history.
 *
 * @since 0.1.0
 * @category engine
 */
export type HistoryAnswer<K extends HistoryOperation> = AnswerOf<History[K]>

/**
 * The answer of a call on a resident session.
 *
 * @since 0.1.0
 * @category engine
 */
export type SessionAnswer<K extends SessionOperation> = AnswerOf<Session[K]>

/** The item type of a sliced list, for the generic code that slices and collects. */
export type Item = Message | { readonly index: number; readonly message: Message } | TokenBreakdown
