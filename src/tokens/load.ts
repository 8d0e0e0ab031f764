/**
 * Named estimators: gpt-tokenizer's encodings, imported on first use, and the heuristic.
 *
 * @module
 */
import * as t from 'io-ts'
import * as O from 'fp-ts/Option'
import type { Estimator } from '../messages/prune.ts'
import { heuristic } from './heuristic.ts'
import { boundedCounter, type RawRanks } from './bpe.ts'

// --- encodings ---

/**
 * The codec of an encoding name, for values that cross a thread or network boundary.
 *
 * @example
 * import { EncodingNameC } from 'chatfold'
 * EncodingNameC.is('o200k_base') // true
 *
 * @since 0.1.0
 * @category codecs
 */
export const EncodingNameC: t.KeyofC<{ o200k_base: null; cl100k_base: null; heuristic: null }> = t.keyof({ o200k_base: null, cl100k_base: null, heuristic: null }, 'EncodingName')

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
 * @since 0.1.0
 * @category tokens
 */
export const DEFAULT_ENCODING: EncodingName = 'o200k_base'

// --- loading ---

type Encoder = { readonly countTokens: (text: string, options?: { readonly disallowedSpecial?: Set<string> }) => number }
type Encoding = { readonly encoder: Encoder; readonly ranks: RawRanks; readonly split: RegExp }

/** Special tokens are not special in data: none is allowed, none is disallowed, all are text. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() }

const importEncoding = (name: Exclude<EncodingName, 'heuristic'>): Promise<Encoding> =>
  // Literal specifiers, so that bundlers split each encoding into chunks of its own; the
  // encoding module imports the same ranks module, which a bundle holds once.
  name === 'cl100k_base'
    ? Promise.all([import('gpt-tokenizer/encoding/cl100k_base'), import('gpt-tokenizer/bpeRanks/cl100k_base'), import('gpt-tokenizer/encodingParams/constants')]).then(
        ([encoder, ranks, patterns]) => ({ encoder, ranks: ranks.default, split: patterns.CL100K_TOKEN_SPLIT_REGEX }),
      )
    : Promise.all([import('gpt-tokenizer/encoding/o200k_base'), import('gpt-tokenizer/bpeRanks/o200k_base'), import('gpt-tokenizer/encodingParams/constants')]).then(
        ([encoder, ranks, patterns]) => ({ encoder, ranks: ranks.default, split: patterns.O200K_TOKEN_SPLIT_REGEX }),
      )

/** Never throws: a throw or a non-finite answer falls back to characters / 4. */
const neverThrows =
  (count: (text: string) => number): Estimator =>
  (text) => {
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
 * gives the same function. The count is gpt-tokenizer's own, special-token text
 * counted as plain text, in time linear-or-n·log-n in the text whatever it holds: text with a
 * pre-token longer than about 70 characters (a wall of box drawing, a line of `=`, a run of
 * letters), on which the tokenizer's merge loop is quadratic, is counted by an exact byte-pair
 * merge over the same ranks that takes the lowest pair from a heap. It never throws (a failure
 * falls back to characters / 4). Rejects with a `TypeError` for an unknown name.
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
    ({ encoder, ranks, split }) => {
      const estimate = neverThrows(boundedCounter({ count: (text) => encoder.countTokens(text, PLAIN_TEXT), ranks, split }))
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
 * import { loadedEstimator } from 'chatfold'
 * loadedEstimator('heuristic') // some(heuristic)
 *
 * @since 0.1.0
 * @category tokens
 */
export const loadedEstimator = (name: EncodingName): O.Option<Estimator> => O.fromNullable(loaded.get(name))
