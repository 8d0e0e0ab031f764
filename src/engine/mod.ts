/**
 * The compaction engine: one API for token estimation, pruning, compaction planning, transcripts
 * and compaction, run in a worker (Comlink) or inline, with resident sessions that receive only the
 * new messages of each turn.
 *
 * @example
 * import { createEngine } from 'chatfold/engine'
 * import { textMessage } from 'chatfold/message'
 * const engine = createEngine({ mode: 'auto', encoding: 'o200k_base' })
 * const session = await engine.open('chat-1', [textMessage('user', 'Hello')])
 * await session.append([textMessage('assistant', 'Hi! How can I help?')])
 * const { tokens } = await session.tokens()
 * engine.dispose()
 *
 * @module
 */
export {
  applyChanges,
  type CallOptions,
  type EncodingOptions,
  type EngineCompactOptions,
  type EngineCompactResult,
  type EngineContextOptions,
  EngineError,
  type EngineErrorCode,
  type EngineMode,
  type EnginePlanOptions,
  type EngineProgress,
  type EnginePruneOptions,
  type EngineShouldCompactOptions,
  type FileOptions,
  type HistoryChanges,
  type MessageChange,
  type ProgressOptions,
  type RemoteSummarizer,
  type SessionCompactResult,
  type SessionPlan,
  type SessionPruneOptions,
  type SessionPruneResult,
  type SessionTokens,
  type TokenEstimate,
} from './types.ts'
export { type EngineHost, webWorkerHost } from './host.ts'
export type { Engine, EngineOptions, EngineSession } from './api.ts'
export { createEngine, defaultWorkers } from './client.ts'
