/**
 * The compaction engine: one API for token estimation, pruning, compaction planning, transcripts
 * and compaction, run in a worker (Comlink) or inline, with resident sessions.
 *
 * @module
 */
export * from './types.ts'
export {
  type AnswerOf,
  type CallOf,
  type Declaration,
  type HistoryAnswer,
  type HistoryMethods,
  type HistoryOperation,
  type HistoryRequest,
  OPERATIONS,
  type OperationFeatures,
  type OptionsOf,
  type ResultOf,
  type SessionAnswer,
  type SessionMethods,
  type SessionOperation,
  type SessionRef,
  type SessionRequest,
  type Slice,
  type WireOptions,
} from './operations.ts'
export * from './protocol.ts'
export { createEngineService } from './service.ts'
export * from './host.ts'
export * from './api.ts'
export * from './client.ts'
