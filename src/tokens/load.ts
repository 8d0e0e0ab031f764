/**
 * Named estimators: gpt-tokenizer's encodings, imported on first use, and the heuristic.
 *
 * @module
 */
import * as t from 'io-ts'
import * as O from 'fp-ts/Option'
import type { Estimator } from '../messages/prune.ts'
import { heuristic } from './heuristic.ts'
import { guardEstimator } from './guard.ts'

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

/** Special tokens are not special in data: none is allowed, none is disallowed, all are text. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() }

const importEncoder = (name: Exclude<EncodingName, 'heuristic'>): Promise<Encoder> =>
  // Literal specifiers, so that bundlers split each encoding into a chunk of its own.
  name === 'cl100k_base' ? import('gpt-tokenizer/encoding/cl100k_base') : import('gpt-tokenizer/encoding/o200k_base')

const loading = new Map<EncodingName, Promise<Estimator>>()
const loaded = new Map<EncodingName, Estimator>([['heuristic', heuristic]])

/**
 * Loads a named estimator: `heuristic` at once, `o200k_base` or `cl100k_base` by importing
 * gpt-tokenizer's ranks on first use. Every call with the same name gives the same function, so
 * counts cached per estimator are shared. The tokenizer counts special-token text as plain text and
 * is wrapped in {@link guardEstimator}. Rejects with a `TypeError` for an unknown name.
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
  const p = importEncoder(name).then(
    (enc) => {
      const estimate = guardEstimator((text) => enc.countTokens(text, PLAIN_TEXT))
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
