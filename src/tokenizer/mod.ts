/**
 * Exact token counts with gpt-tokenizer's encodings (`o200k_base`, `cl100k_base`). Importing this
 * module loads no ranks: {@link loadEstimator} imports an encoding's tables on first use (about
 * 2 MB). Text that looks like a special token (`<|endoftext|>`) is counted as the plain text it is,
 * and a long pre-token (a wall of `=`, a 50,000-letter line), on which gpt-tokenizer's merge loop is
 * quadratic, is counted exactly by a byte-pair merge over the same ranks in n·log n time.
 *
 * @example
 * import { loadEstimator } from 'chatfold/tokenizer'
 * const estimate = await loadEstimator('o200k_base')
 * estimate('Hello, world!') // 4
 *
 * @module
 */
export { DEFAULT_ENCODING, type EncodingName, EncodingNameC, loadedEstimator, loadEstimator } from './load.ts'
