/**
 * Named estimators: gpt-tokenizer's encodings, imported on first use, and the heuristic.
 *
 * @module
 */
import * as t from 'io-ts'
import * as O from 'fp-ts/Option'
import type { Estimator } from '../tokens/message-tokens.ts'
import { heuristic } from '../tokens/heuristic.ts'
import { exactCounter, type RawRanks } from './_bpe.ts'

// --- encodings ---

/**
 * The codec of an encoding name, for values that cross a thread or network boundary.
 *
 * @example
 * import { EncodingNameC } from 'chatfold/tokenizer'
 * EncodingNameC.is('o200k_base') // true
 *
 * @since 0.1.0
 * @category codecs
 */
export const EncodingNameC: t.KeyofC<{ o200k_base: null; cl100k_base: null; heuristic: null }> = t.keyof({
  o200k_base: null,
  cl100k_base: null,
  heuristic: null,
}, 'EncodingName')

/**
 * The estimators chatfold can name: gpt-tokenizer's `o200k_base` (GPT-4o and later; the default)
 * and `cl100k_base` (GPT-4, GPT-3.5), and `heuristic` (characters / 4, no ranks to load).
 *
 * @since 0.1.0
 * @category tokens
 */
export type EncodingName = t.TypeOf<typeof EncodingNameC>

/**
 * The default encoding: `o200k_base`.
 *
 * @example
 * import { DEFAULT_ENCODING, loadEstimator } from 'chatfold/tokenizer'
 * const estimate = await loadEstimator(DEFAULT_ENCODING)
 *
 * @since 0.1.0
 * @category tokens
 */
export const DEFAULT_ENCODING: EncodingName = 'o200k_base'

// --- loading ---

/** What counting in an encoding takes from gpt-tokenizer: its ranks and its split pattern. */
type Encoding = { readonly ranks: RawRanks; readonly split: RegExp }

const importEncoding = (name: Exclude<EncodingName, 'heuristic'>): Promise<Encoding> =>
  // Literal specifiers, so that bundlers split each encoding's ranks into a chunk of its own.
  name === 'cl100k_base'
    ? Promise.all([import('gpt-tokenizer/bpeRanks/cl100k_base'), import('gpt-tokenizer/encodingParams/constants')]).then(([ranks, patterns]) => ({
      ranks: ranks.default,
      split: patterns.CL100K_TOKEN_SPLIT_REGEX,
    }))
    : Promise.all([import('gpt-tokenizer/bpeRanks/o200k_base'), import('gpt-tokenizer/encodingParams/constants')]).then(([ranks, patterns]) => ({
      ranks: ranks.default,
      split: patterns.O200K_TOKEN_SPLIT_REGEX,
    }))

/** Never throws: a throw or a non-finite answer falls back to characters / 4. */
const neverThrows = (count: (text: string) => number): Estimator => (text) => {
  if (text === '') return 0
  try {
    const n = count(text)
    return Number.isFinite(n) && n >= 0 ? n : heuristic(text)
  } catch {
    return heuristic(text)
  }
}

const loading = new Map<EncodingName, Promise<Estimator>>()
const loaded = new Map<EncodingName, Estimator>([['heuristic', heuristic]])

/**
 * Loads a named estimator: `heuristic` at once, `o200k_base` or `cl100k_base` by importing
 * gpt-tokenizer's ranks on first use (the ranks are loaded once). Every call with the same name
 * gives the same function. The count is gpt-tokenizer's own (its split pattern and its ranks),
 * special-token text counted as plain text, made by an exact byte-pair merge that takes the lowest
 * pair from a heap: time n·log n in the text whatever it holds, where the tokenizer's own merge loop
 * is quadratic in a long pre-token (a wall of box drawing, a line of `=`, a run of letters). It
 * allocates nothing for most text and remembers the short pieces it counted last, which makes it
 * faster than the tokenizer's `countTokens` on ordinary text too. It never throws (a failure falls
 * back to characters / 4). Rejects with a `TypeError` for an unknown name.
 *
 * @example
 * import { loadEstimator } from 'chatfold'
 * const estimate = await loadEstimator('o200k_base')
 * estimate('Hello, world!') // 4
 *
 * @since 0.1.0
 * @category tokens
 */
export const loadEstimator = (name: EncodingName): Promise<Estimator> => {
  const ready = loaded.get(name)
  if (ready !== undefined) return Promise.resolve(ready)
  if (name !== 'o200k_base' && name !== 'cl100k_base') return Promise.reject(new TypeError(`Cannot load estimator: unknown encoding ${JSON.stringify(name)}`))
  const pending = loading.get(name)
  if (pending !== undefined) return pending
  const p = importEncoding(name).then(
    ({ ranks, split }) => {
      const estimate = neverThrows(exactCounter(ranks, split))
      loaded.set(name, estimate)
      loading.delete(name)
      return estimate
    },
    (e: unknown) => {
      loading.delete(name)
      throw e
    },
  )
  loading.set(name, p)
  return p
}

/**
 * The named estimator if it is already loaded (`heuristic` always is), for synchronous code that
 * ran `loadEstimator` earlier.
 *
 * @example
 * import { loadedEstimator } from 'chatfold/tokenizer'
 * import { heuristic } from 'chatfold/tokens'
 * loadedEstimator('heuristic') // some(heuristic)
 *
 * @since 0.1.0
 * @category tokens
 */
export const loadedEstimator = (name: EncodingName): O.Option<Estimator> => O.fromNullable(loaded.get(name))
