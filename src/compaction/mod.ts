/**
 * Compaction: when a history no longer fits, summarise its head and keep its recent tail.
 * `shouldCompact` says when, `planCompaction` where to cut, `renderTranscript` what the summariser
 * reads, `SUMMARY_PROMPT` and `validateSummary` what it must write, `rebuildAfterCompaction` the
 * history after it (with everything else archived), and `compact` all of it with a caller's
 * summariser; `extractiveSummarize` is an offline fallback that needs no model.
 *
 * @example
 * import { compact, extractiveSummarize, shouldCompact } from 'chatfold/compaction'
 * import type { Messages } from 'chatfold/message'
 * declare const history: Messages
 * if (shouldCompact({ contextWindow: 200_000, reserveTokens: 20_000 })(history)) {
 *   const { messages, archive, report } = await compact({ summarize: extractiveSummarize })(history)
 * }
 *
 * @module
 */
export * from './summary.ts'
export * from './plan.ts'
export * from './transcript.ts'
export * from './rebuild.ts'
export * from './extractive.ts'
export * from './compact.ts'
export * from './context-edits.ts'
export * from './priced.ts'
export { SUMMARY_ALLOWANCE, type WindowBudget } from './window.ts'
