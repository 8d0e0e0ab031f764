/**
 * The compaction engine: one API for token estimation, pruning, compaction planning, transcripts
 * and compaction, run in a worker (Comlink) or inline, with resident sessions.
 *
 * @module
 */
export * from './types.ts'
export { COMPACT_TIMEOUT } from './ops.ts'
export type {
  EngineCompactOptions,
  EnginePlanOptions,
  EnginePruneOptions,
  RemoteSummarizer,
  SessionCompactResult,
  SessionPlan,
  SessionPruneResult,
} from './ops.ts'
export * from './operations.ts'
export * from './protocol.ts'
export { createEngineService } from './service.ts'
export * from './host.ts'
export * from './api.ts'
export * from './client.ts'
