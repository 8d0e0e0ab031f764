/**
 * A history (a readonly array of messages) and what you do with it: the views that decide what goes
 * to the model, the screen, an export and a file; edits; tool-call pairs checked and repaired;
 * backward pruning of old tool output; renders to text, Markdown and HTML; JSON and JSONL.
 *
 * Every function is pure and data-last, so they compose with fp-ts `pipe`; none mutates its input,
 * and untouched messages are kept by identity.
 *
 * @example
 * import { pipe } from 'fp-ts/function'
 * import { forLLM, pruneToolResults, renderMarkdown } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * pipe([textMessage('user', 'What is Go?')], forLLM, pruneToolResults({ protectTokens: 40_000 }), renderMarkdown)
 *
 * @module
 */
export {
  forCompaction,
  forDisplay,
  forExport,
  forExportStructured,
  forLLM,
  forPreservation,
  forSave,
  lastCompactionBoundary,
  lastTurns,
  withoutInternal,
  withoutSynthetic,
  withoutThinking,
} from './views.ts'
export { at, last } from './lookup.ts'
export { append, clear, deduplicateSystem, dropN, keepFirstByRole, pruneEmptyAssistant, trimDuplicateSynthetics, truncated, truncateResults } from './edit.ts'
export { type RepairReport, repairToolPairs, type ToolPairIssue, type ToolPairReport, validateToolPairs } from './pairs.ts'
export { pruneToolResults, pruneToolResultsWithReceipt, pruneToolResultsWithReport } from './prune.ts'
export { type ClearedOutput, EMPTY_RECEIPT, type Receipt, rewriteReceipt } from './receipt.ts'
export { type ContentPointer, pointersOf } from './pointer.ts'
export { type ArtifactLedger, ArtifactLedgerC, EMPTY_LEDGER, type LedgerCommand, ledgerMinus, mergeLedgers } from './artifact-ledger.ts'
export { artifactLedger, carriedLedger, LEDGER_KEY } from './ledger.ts'
export { createPruner } from './prune-incremental.ts'
export type { PrunerSeed, PrunerState } from './prune-state.ts'
export type { PruneBudget, PruneChange, PruneOptions, Pruner, PruneReport, PruneResult, PrunerResult, PrunerResultWithReceipt } from './prune-options.ts'
export { type MarkdownOptions, render, renderLogLines, renderMarkdown, renderMarkdownWith, renderMessage, renderTranscriptLines } from './render.ts'
export { type HtmlOptions, renderHtml, renderHtmlWith } from './render-html.ts'
export { fromJSON, fromJSONL, parseJSONL, toJSON, toJSONL } from './codec.ts'
export { exportJSON, exportJSONL, type ExportMessage, exportMessages, exportStructuredMessages, type ExportToolCall } from './export.ts'
export { tokensForEstimation, totalTokens } from './recorded-tokens.ts'
