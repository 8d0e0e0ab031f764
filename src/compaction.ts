/**
 * Compaction: when a history no longer fits, summarise its head and keep its recent tail.
 * `shouldCompact` says when, `planCompaction` where to cut, `buildTranscript` what the summariser
 * reads, `SUMMARY_PROMPT` and `validateSummary` what it must write, `rebuildAfterCompaction` the
 * history after it (with everything else archived), and `compact` all of it with a caller's
 * summariser; `extractiveSummarize` is an offline fallback that needs no model.
 *
 * @example
 * import { compact, extractiveSummarize, shouldCompact } from 'chatfold'
 * declare const history: import('chatfold').Messages
 * if (shouldCompact({ contextWindow: 200_000, reserveTokens: 20_000 })(history)) {
 *   const { messages, archive, report } = await compact({ summarize: extractiveSummarize })(history)
 * }
 *
 * @module
 */
export * from './compaction/summary.ts'
export * from './compaction/plan.ts'
export * from './compaction/transcript.ts'
export * from './compaction/rebuild.ts'
export * from './compaction/extractive.ts'
export * from './compaction/compact.ts'
export * from './compaction/context-edits.ts'
