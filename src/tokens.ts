/**
 * Token estimation: estimators (gpt-tokenizer's `o200k_base` and `cl100k_base`, loaded lazily, and
 * two synchronous heuristics), per-message counts with the `{ total, content, thinking, tools }`
 * breakdown, cached by message identity in the counter you keep, and corrections from
 * provider-reported usage.
 *
 * An estimator never throws and never stalls: text that looks like a special token
 * (`<|endoftext|>`, `<|im_start|>`) is counted as the plain text it is, and text with a long
 * pre-token (a wall of box drawing or `=`, a 50,000-letter line, base64 of zeroed bytes), on which
 * gpt-tokenizer's merge loop is quadratic, is counted exactly by a byte-pair merge over the same
 * ranks in n·log n time (see {@link loadEstimator}). {@link guardEstimator} makes any other counter
 * safe by cutting long runs.
 *
 * Importing this module does not load any ranks: `loadEstimator('o200k_base')` imports them on
 * first use (about 2 MB), so bundles that never count exact tokens never carry them.
 *
 * @module
 */
import type { Estimator } from './messages/prune.ts'

// `Estimator` is defined once, with pruning (`PruneOptions['estimate']`); `mod.ts` exports it from there.
export type { Estimator }
export * from './tokens/heuristic.ts'
export * from './tokens/guard.ts'
export * from './tokens/load.ts'
export * from './tokens/count.ts'
export * from './tokens/usage.ts'
export * from './tokens/recorded-usage.ts'
