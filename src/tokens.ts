/**
 * Token estimation: estimators (gpt-tokenizer's `o200k_base` and `cl100k_base`, loaded lazily, and
 * two synchronous heuristics), per-message counts with the `{ total, content, thinking, tools }`
 * breakdown of seed 002, cached by message identity, and the provider-usage corrections of seed 003.
 *
 * An estimator never throws and never stalls: text that looks like a special token
 * (`<|endoftext|>`, `<|im_start|>`) is counted as the plain text it is, and long runs of one
 * character class (a 50,000-letter line, base64 of zeroed bytes, a wall of spaces), which cost
 * gpt-tokenizer's merge loop quadratic time, are cut into 256-character chunks and, past eight
 * chunks, sampled (see {@link guardEstimator}).
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
