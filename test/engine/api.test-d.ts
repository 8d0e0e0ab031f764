/**
 * Type-level checks, verified by `tsc` (npm run typecheck): the engine's public methods, now
 * derived from `OPERATIONS`, keep the signatures they were written with by hand (both ways assignable).
 */
import type { Messages } from '../../src/message/message.ts'
import type { PruneResult } from '../../src/history/prune-options.ts'
import type { Receipt } from '../../src/history/receipt.ts'
import type { CompactionPlan } from '../../src/compaction/plan.ts'
import type { TranscriptOptions } from '../../src/compaction/transcript.ts'
import type { CompactResult } from '../../src/compaction/compact.ts'
import type { ContextTokens } from '../../src/tokens/usage.ts'
import type { Engine, EngineSession } from '../../src/engine/api.ts'
import type {
  EngineCompactOptions,
  EngineContextOptions,
  EnginePlanOptions,
  EnginePruneOptions,
  EngineShouldCompactOptions,
  SessionCompactResult,
  SessionPlan,
  SessionPruneResult,
} from '../../src/engine/types.ts'
import type { CallOptions, EncodingOptions, ProgressOptions, SessionTokens, TokenEstimate } from '../../src/engine/types.ts'

/** Mutual assignability: what a caller could pass or receive before, it can now, and the other way round. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const same = <T extends true>(): T | undefined => undefined

// the engine's methods on a history
same<Same<Engine['estimate'], (messages: Messages, options?: EncodingOptions & CallOptions & ProgressOptions) => Promise<TokenEstimate>>>()
same<
  Same<
    Engine['pruneToolResults'],
    (messages: Messages, options?: EnginePruneOptions & EncodingOptions & CallOptions) => Promise<PruneResult & { readonly receipt: Receipt }>
  >
>()
same<Same<Engine['renderTranscript'], (messages: Messages, options?: TranscriptOptions & CallOptions) => Promise<string>>>()
same<Same<Engine['planCompaction'], (messages: Messages, options?: EnginePlanOptions & EncodingOptions & CallOptions) => Promise<CompactionPlan>>>()
same<
  Same<Engine['compact'], (messages: Messages, options?: EngineCompactOptions & EncodingOptions & CallOptions & ProgressOptions) => Promise<CompactResult>>
>()

// a session's methods
same<Same<EngineSession['append'], (messages: Messages, options?: CallOptions) => Promise<SessionTokens>>>()
same<Same<EngineSession['tokens'], (options?: CallOptions) => Promise<SessionTokens>>>()
same<Same<EngineSession['prune'], (options?: EnginePruneOptions & CallOptions) => Promise<SessionPruneResult>>>()
same<Same<EngineSession['plan'], (options?: EnginePlanOptions & CallOptions) => Promise<SessionPlan>>>()
same<Same<EngineSession['compact'], (options?: EngineCompactOptions & CallOptions & ProgressOptions) => Promise<SessionCompactResult>>>()
same<Same<EngineSession['contextTokens'], (options?: EngineContextOptions & CallOptions) => Promise<ContextTokens>>>()
same<Same<EngineSession['shouldCompact'], (options?: EngineShouldCompactOptions & CallOptions) => Promise<boolean>>>()
same<Same<EngineSession['snapshot'], (options?: CallOptions) => Promise<Messages>>>()
same<Same<EngineSession['close'], (options?: CallOptions) => Promise<void>>>()
