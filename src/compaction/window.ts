/**
 * The window a compaction must fit a whole request in: what the tail may keep once the system
 * prompt, the summary and the request's fixed part (its tool definitions) are in.
 *
 * @module
 */
import { nonNegativeInt } from '../internal/number.ts'

/**
 * The tokens `planCompaction` leaves for the summary when it fits a request in a context window,
 * unless told otherwise (`summaryTokens`): 4,096, the longest answer the model summarisers of
 * `chatfold/summarize/*` ask for by default (their `maxOutputTokens`).
 *
 * @example
 * import { SUMMARY_ALLOWANCE } from 'chatfold/compaction'
 * SUMMARY_ALLOWANCE // 4096
 *
 * @since 0.1.0
 * @category compaction
 */
export const SUMMARY_ALLOWANCE = 4_096

/**
 * The window a compaction must bring the whole request under (options of `planCompaction` and
 * `compact`): with `contextWindow`, the kept tail's budget is capped so that the system prompt, the
 * summary (`summaryTokens`), the tail and the request's `fixedTokens` fit in
 * `contextWindow − reserveTokens`, the estimated parts (system prompt and tail) times `calibration`.
 *
 * @example
 * import type { WindowBudget } from 'chatfold/compaction'
 * const budget: WindowBudget = { contextWindow: 200_000, reserveTokens: 20_000, fixedTokens: 24_000, calibration: 1.25 }
 *
 * @since 0.1.0
 * @category compaction
 */
export type WindowBudget = {
  /** The model's context window, in the provider's tokens; without it the tail's budget is `keepRecentTokens` alone. */
  readonly contextWindow?: number
  /** Tokens to keep free in the window: the answer, the next tool results; default 0. */
  readonly reserveTokens?: number
  /** Tokens the request carries outside the history, in the provider's tokens (the `tools` of `countModelRequest`). */
  readonly fixedTokens?: number
  /** Tokens left for the summary, in the provider's tokens; default `SUMMARY_ALLOWANCE`. */
  readonly summaryTokens?: number
  /** The ratio of the provider's tokenizer to the estimate (`DEFAULT_CALIBRATION[provider]`); default 1. */
  readonly calibration?: number
}

/** A calibration as a usable ratio: 1 unless a positive finite number. */
const ratioOf = (c: number | undefined): number => (c !== undefined && Number.isFinite(c) && c > 0 ? c : 1)

/**
 * The kept tail's budget, in the estimate's tokens: `keep`, capped by what the window leaves once
 * the system prompt (`system`, estimated), the summary allowance and the fixed tokens are in.
 */
export const tailBudget = (keep: number, w: WindowBudget, system: number): number => {
  if (w.contextWindow === undefined) return keep
  const ratio = ratioOf(w.calibration)
  const room = nonNegativeInt(w.contextWindow, 0) -
    nonNegativeInt(w.reserveTokens, 0) -
    nonNegativeInt(w.fixedTokens, 0) -
    nonNegativeInt(w.summaryTokens, SUMMARY_ALLOWANCE) -
    Math.ceil(system * ratio)
  return Math.max(0, Math.min(keep, Math.floor(room / ratio)))
}

const WINDOW_KEYS = ['contextWindow', 'reserveTokens', 'fixedTokens', 'summaryTokens', 'calibration'] as const satisfies ReadonlyArray<keyof WindowBudget>

/** The window options of `planCompaction` among other options, as `compact` passes them on. */
export const windowOf = (o: WindowBudget): WindowBudget => {
  const w: { -readonly [K in keyof WindowBudget]: WindowBudget[K] } = {}
  for (const k of WINDOW_KEYS) if (o[k] !== undefined) w[k] = o[k]
  return w
}
