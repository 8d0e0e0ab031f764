/**
 * The compaction engine: one API for token estimation, pruning, compaction planning, transcripts
 * and compaction, run in a worker (Comlink) or inline, with resident sessions.
 *
 * @module
 */
export * from './types.ts'
export * from './service.ts'
export * from './client.ts'
