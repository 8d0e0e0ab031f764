/**
 * Backward tool-result pruning: walking from the newest message,
 * the messages worth `protectTokens` tokens are protected; older tool results become a short
 * placeholder that says how much was removed and keeps a preview, and older tool-call arguments
 * larger than `argThreshold` keep their keys but have their long string values cut.
 *
 * Pruning only rewrites content, so it never orphans a call or a result. It is idempotent: the
 * default placeholder starts with `[tool output pruned`, a custom one is recorded in its message's
 * `metadata.pruned` (the tool call ids), and a cut argument value starts with `[truncated`, so
 * none is pruned again. A result is only replaced when the placeholder is shorter. Messages that
 * carried `tokens` get a fresh `{ total }`.
 *
 * Tokens are counted by the one definition every part of chatfold uses (`countMessage`: every
 * part estimated, images and files at their price, plus a per-message overhead), unless you pass
 * a `count` of your own. With the definition, a rewritten message's count is derived from its
 * original's (the estimate of what changed, swapped), which is what counting it again gives.
 *
 * `pruneToolResults` and `pruneToolResultsWithReport` keep nothing between calls; `createPruner`
 * is the incremental pruner a session keeps, with the same answers. The parts: the options
 * (`prune-options.ts`), the walk (`_prune-walk.ts`), the placeholder (`_prune-placeholder.ts`),
 * argument cutting (`_prune-arguments.ts`) and the incremental pruner (`prune-incremental.ts`).
 *
 * @module
 */
import type { Messages } from '../message/message.ts'
import { type PruneOptions, type PruneResult, settingsOf } from './prune-options.ts'
import { pruneAll } from './_prune-walk.ts'
import { type Receipt, rewriteReceipt } from './receipt.ts'

export type { Estimator } from '../tokens/message-tokens.ts'
export type { PruneBudget, PruneChange, PruneOptions, Pruner, PruneReport, PruneResult, PrunerResult, PrunerResultWithReceipt } from './prune-options.ts'
export { createPruner } from './prune-incremental.ts'

/**
 * Prunes old tool results and large tool-call arguments outside the protected tail, and reports
 * what it freed. Returns the input array itself (with a report of zeros pruned) when nothing is
 * pruned, including when less than `minimumSavings` tokens (or none at all) would be freed. After
 * a provider's compaction boundary (`lastCompactionBoundary`) only the boundary and what follows it
 * are pruned and reported: what precedes it is never sent. It keeps nothing between calls; for a
 * session's growing history, keep a `createPruner` instead.
 *
 * @example
 * import { pruneToolResultsWithReport } from 'chatfold/history'
 * declare const history: import('chatfold').Messages
 * const { messages, report } = pruneToolResultsWithReport({ protectTokens: 40_000 })(history)
 * console.log(`freed ${report.tokensBefore - report.tokensAfter} tokens from ${report.prunedResults} results`)
 *
 * @since 0.1.0
 * @category edits
 */
export const pruneToolResultsWithReport = (opts: PruneOptions): (ms: Messages) => PruneResult => {
  const s = settingsOf(opts)
  return (ms) => pruneAll(s, ms)
}

/**
 * `pruneToolResultsWithReport`, with the itemised receipt of what it cleared: every tool result
 * replaced and every call whose arguments were cut (message id, call id, tool name, tokens before
 * and after by the prune's estimator), and the artifacts (see `artifactLedger`) that appear only
 * in what was cleared. A receipt is a separate variant so that the plain prune keeps its return
 * type and its cost: reading the ledgers walks the whole history.
 *
 * @example
 * import { pruneToolResultsWithReceipt } from 'chatfold/history'
 * declare const history: import('chatfold').Messages
 * const { messages, report, receipt } = pruneToolResultsWithReceipt({ protectTokens: 40_000 })(history)
 * receipt.cleared.map((c) => `${c.tool} ${c.toolCallId} ${c.tokensBefore}→${c.tokensAfter}`)
 *
 * @since 0.1.0
 * @category edits
 */
export const pruneToolResultsWithReceipt = (opts: PruneOptions): (ms: Messages) => PruneResult & { readonly receipt: Receipt } => {
  const s = settingsOf(opts)
  return (ms) => {
    const r = pruneAll(s, ms)
    return { ...r, receipt: rewriteReceipt(s.estimate)(ms, r.messages) }
  }
}

/**
 * Prunes old tool results and large tool-call arguments outside the protected tail:
 * `pruneToolResultsWithReport(opts)(ms).messages`, for `pipe`.
 *
 * @example
 * import { pipe } from 'fp-ts/function'
 * import { forLLM, pruneToolResults } from 'chatfold'
 * declare const history: import('chatfold').Messages
 * const payload = pipe(history, forLLM, pruneToolResults({ protectTokens: 40_000, protectedTools: ['todo'] }))
 *
 * @since 0.1.0
 * @category edits
 */
export const pruneToolResults = (opts: PruneOptions): (ms: Messages) => Messages => {
  const run = pruneToolResultsWithReport(opts)
  return (ms) => run(ms).messages
}
