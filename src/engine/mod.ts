/**
 * The compaction engine: token estimation, pruning, compaction planning, transcripts and compaction in a worker
 * (Comlink) or inline, with resident sessions that receive only each turn's new messages.
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
export { applyChanges, EngineError } from './types.ts'
export type { CallOptions, EncodingOptions, EngineCompactOptions, EngineCompactResult, EngineContextOptions, EngineErrorCode } from './types.ts'
export type { EngineMode, EnginePlanOptions, EngineProgress, EnginePruneOptions, EngineShouldCompactOptions, FileOptions } from './types.ts'
export type { HistoryChanges, MessageChange, ProgressOptions, RemoteSummarizer, SessionCompactResult } from './types.ts'
export type { SessionPlan, SessionPruneOptions, SessionPruneResult, SessionTokens, TokenEstimate } from './types.ts'
export { type EngineHost, webWorkerHost } from './host.ts'
export type { Engine, EngineOptions, EngineSession } from './api.ts'
export { createEngine, defaultWorkers } from './client.ts'
