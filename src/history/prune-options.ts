/**
 * What pruning takes and gives: its options, its report, the incremental pruner's contract, and
 * the options resolved once (defaults filled in, numbers normalised) for the walk.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import { nonNegativeInt } from '../internal/number.ts'
import { type Estimator, isDefinitionOf, messageTokens } from '../tokens/message-tokens.ts'
import type { Receipt } from './receipt.ts'

// --- model ---

/**
 * Options of `pruneToolResults`; every field has a default.
 *
 * @example
 * import { pruneToolResults, type PruneOptions } from 'chatfold'
 * const opts: PruneOptions = { protectTokens: 40_000, minimumSavings: 20_000, protectedTools: ['todo_write'] }
 * const prune = pruneToolResults(opts)
 *
 * @since 0.1.0
 * @category edits
 */
export type PruneOptions = {
  /** Default 40,000: the newest messages worth this many tokens are never touched. */
  readonly protectTokens?: number
  /** Default 2,000 tokens: tool-call arguments above it get their large string values cut (arguments under a third as many characters are never estimated: a byte-level tokenizer gives at most one token per UTF-8 byte). */
  readonly argThreshold?: number
  /** Default 20,000: prune nothing unless at least this many tokens would be freed. */
  readonly minimumSavings?: number
  /** Tool names whose results and arguments are never pruned. */
  readonly protectedTools?: ReadonlyArray<string>
  /** Default `Math.ceil(text.length / 4)` (the same as `heuristic`). */
  readonly estimate?: Estimator
  /**
   * Tokens of one message; default: the one definition every part of chatfold counts with
   * (`countMessage(estimate)(m).total`: every part estimated, images and files at their price,
   * plus `MESSAGE_OVERHEAD`), so a prune agrees with the engine, the builder and compaction.
   * A count of your own must be pure (the same message always has the same count).
   */
  readonly count?: (m: Message) => number
  /**
   * The text that replaces a pruned result; default `[tool output pruned — was ~N tokens, C chars, ref R]` and the preview,
   * where `R` is the pointer's reference (`toPointerRef`) that a read-back tool takes. Show `ref` in yours, so that the model can
   * ask for the original; the pointer is in the message's `metadata.pointers` either way.
   */
  readonly placeholder?: (
    info: { readonly name: string; readonly tokens: number; readonly chars: number; readonly preview: string; readonly ref: string },
  ) => string
  /**
   * `createPruner` only (the pure prune is always fresh): `cached` (the default) keeps the history
   * it answered last and edits it only in batches that pay for the prompt-cache prefix they break
   * (see `createPruner`); `fresh` answers every call as `pruneToolResultsWithReport` does, the
   * protected tail's edge moving with every new message.
   */
  readonly policy?: 'cached' | 'fresh'
  /**
   * `cached` policy: no batch while the history answered is within this many tokens (unless the
   * call's `limit` is passed); past it, a batch is made when it pays. Default: none (a batch is
   * weighed on every call).
   */
  readonly triggerTokens?: number
}

/**
 * What one call of a pruner may hold: `limit`, the most tokens (by the pruner's count) its answer
 * should hold. The `cached` policy makes a batch whenever its answer would pass it, whether the
 * batch pays or not (the `fresh` one prunes as it always does).
 *
 * @example
 * import { createPruner, type PruneBudget } from 'chatfold/history'
 * declare const history: import('chatfold').Messages
 * const budget: PruneBudget = { limit: 150_000 }
 * createPruner({ protectTokens: 20_000 }).prune(history, budget)
 *
 * @since 0.1.0
 * @category edits
 */
export type PruneBudget = { readonly limit?: number }

/**
 * What a prune did: how many results and calls it rewrote, and the history's tokens (by `count`)
 * before and after.
 *
 * @example
 * import { pruneToolResultsWithReport, type PruneReport } from 'chatfold/history'
 * declare const history: import('chatfold').Messages
 * const report: PruneReport = pruneToolResultsWithReport({})(history).report
 * const freed = report.tokensBefore - report.tokensAfter
 *
 * @since 0.1.0
 * @category edits
 */
export type PruneReport = { readonly prunedResults: number; readonly prunedArgs: number; readonly tokensBefore: number; readonly tokensAfter: number }

/**
 * The pruned history and its report.
 *
 * @example
 * import { pruneToolResultsWithReport, type PruneResult } from 'chatfold/history'
 * declare const history: import('chatfold').Messages
 * const { messages, report }: PruneResult = pruneToolResultsWithReport({})(history)
 *
 * @since 0.1.0
 * @category edits
 */
export type PruneResult = { readonly messages: Messages; readonly report: PruneReport }

/**
 * One message a prune replaced: its index, and the new message at that index of the result.
 *
 * @example
 * import { createPruner, type PruneChange } from 'chatfold/history'
 * declare const history: import('chatfold').Messages
 * const changes: ReadonlyArray<PruneChange> = createPruner({}).prune(history).changes
 *
 * @since 0.1.0
 * @category edits
 */
export type PruneChange = { readonly index: number; readonly message: Message }

/**
 * A pruner's answer: the pruned history and its report, and every message of the result that is
 * not the input's own (in index order; none when the input comes back as it is). A change is the
 * pruner's own record, given without a copy: it may carry more fields than `index` and `message`.
 *
 * `carried` says how many of the changes, from the first, the pruner took over from its previous
 * answer: `changes[k]` is that answer's `changes[k]` itself (the same record) for every `k` below
 * it. Whoever keeps the previous answer's result therefore only has to look at the changes from
 * `carried` on (and the previous answer's from there) to know what differs between the two.
 *
 * @example
 * import { createPruner, type PrunerResult } from 'chatfold/history'
 * declare const history: import('chatfold').Messages
 * const { messages, report, changes, carried }: PrunerResult = createPruner({}).prune(history)
 * changes.length - carried // the changes this answer did not take over from the previous one
 *
 * @since 0.1.0
 * @category edits
 */
export type PrunerResult = PruneResult & { readonly changes: ReadonlyArray<PruneChange>; readonly carried: number }

/**
 * What `createPruner`'s pruner answers: a `PrunerResult` and its receipt (see `Receipt`: every
 * tool result cleared and every call's arguments cut, with tokens before and after, and the
 * artifacts only the cleared text held), made when asked: `receipt()` compares the rewritten
 * messages with the input's (and reads both histories' ledgers) on its first call only, so a
 * session that never asks pays nothing for it.
 *
 * @example
 * import { createPruner, type PrunerResultWithReceipt } from 'chatfold/history'
 * declare const history: import('chatfold').Messages
 * const answer: PrunerResultWithReceipt = createPruner({ protectTokens: 20_000 }).prune(history)
 * answer.receipt().cleared.length // the tool outputs this answer cleared
 *
 * @since 0.1.0
 * @category edits
 */
export type PrunerResultWithReceipt = PrunerResult & { readonly receipt: () => Receipt }

/**
 * An incremental pruner (see `createPruner`): the same answers as `pruneToolResultsWithReport`
 * with the same options, with the work of its previous call taken over.
 *
 * @example
 * import { createPruner, type Pruner } from 'chatfold/history'
 * const pruner: Pruner = createPruner({ protectTokens: 40_000 })
 *
 * @since 0.1.0
 * @category edits
 */
export type Pruner = { readonly prune: (ms: Messages, budget?: PruneBudget) => PrunerResult }

// --- resolved options ---

/** The default estimator: a quarter of the characters, rounded up. */
const quarter: Estimator = (s) => Math.ceil(s.length / 4)

/** Options with their defaults filled in, as the walk reads them. */
export type Settings = {
  readonly estimate: Estimator
  readonly count: (m: Message) => number
  /**
   * Whether `count` is the one definition (no `count` option, or one marked as the definition with
   * this estimator, as the engine's cached counter is): a rewritten message's count is then
   * derived from its original's (the estimates of the parts that changed, swapped) instead of
   * estimating the whole message again.
   */
  readonly derive: boolean
  readonly protect: number
  readonly argThreshold: number
  readonly minimumSavings: number
  /** The caller's placeholder; the default one when absent. */
  readonly placeholder: PruneOptions['placeholder']
  readonly protectedTools: ReadonlySet<string>
  /** `createPruner`'s policy, and the `cached` policy's trigger (`undefined`: none). */
  readonly policy: 'cached' | 'fresh'
  readonly trigger: number | undefined
}

/** Resolves the options once, for every call of a prune. */
export const settingsOf = (opts: PruneOptions): Settings => {
  const estimate = opts.estimate ?? quarter
  return {
    estimate,
    count: opts.count ?? messageTokens(estimate),
    derive: opts.count === undefined || isDefinitionOf(opts.count, estimate),
    protect: nonNegativeInt(opts.protectTokens, 40_000),
    argThreshold: nonNegativeInt(opts.argThreshold, 2_000),
    minimumSavings: nonNegativeInt(opts.minimumSavings, 20_000),
    placeholder: opts.placeholder,
    protectedTools: new Set(opts.protectedTools ?? []),
    policy: opts.policy ?? 'cached',
    trigger: opts.triggerTokens === undefined ? undefined : nonNegativeInt(opts.triggerTokens, 0),
  }
}
