/**
 * Decode failures as data: every bad field of an untrusted value, by JavaScript path.
 *
 * Decoders in chatfold return `Either<DecodeFailure, A>`; nothing throws out of a decoder.
 * `formatDecodeFailure` renders a failure for people, `failureFromErrors` turns io-ts
 * validation errors into one.
 *
 * @module
 */
import type * as t from 'io-ts'

// --- model ---

/**
 * One bad field: where it is, what was expected there, and what was found.
 *
 * @since 0.1.0
 * @category codecs
 */
export type DecodeIssue = {
  readonly path: string
  readonly expected: string
  readonly actual: unknown
}

/**
 * Every bad field of a value that failed to decode, in the order they were found (never empty).
 *
 * @since 0.1.0
 * @category codecs
 */
export type DecodeFailure = ReadonlyArray<DecodeIssue>

// --- constructors ---

/**
 * A failure with one issue.
 *
 * @since 0.1.0
 * @category codecs
 */
export const decodeIssue = (path: string, expected: string, actual: unknown): DecodeFailure => [
  { path, expected, actual },
]

/**
 * Prefixes every path of a failure, e.g. with the field that held the value (`messages`), or with a
 * label that ends in a colon (`line 12:`), which is set apart by a space.
 *
 * @since 0.1.0
 * @category codecs
 */
export const prefixFailure = (prefix: string) => (failure: DecodeFailure): DecodeFailure => failure.map((i) => ({ ...i, path: joinPath(prefix, i.path) }))

const joinPath = (prefix: string, path: string): string =>
  prefix === ''
    ? path
    : path === ''
    ? prefix.replace(/:$/, '')
    : prefix.endsWith(':')
    ? `${prefix} ${path}`
    : path.startsWith('[')
    ? prefix + path
    : `${prefix}.${path}`

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

const isIndex = (key: string): boolean => /^(0|[1-9][0-9]*)$/.test(key)

type Tagged = { readonly _tag?: string; readonly type?: unknown; readonly keys?: Record<string, unknown> }

/** Looks through wrappers that add no context entry of their own (`readonly`, `exact`). */
const unwrap = (type: unknown): Tagged => {
  let x = type as Tagged
  while ((x._tag === 'ReadonlyType' || x._tag === 'ExactType') && typeof x.type === 'object' && x.type !== null) x = x.type as Tagged
  return x
}

/** Whether a context entry's key is a position inside a combinator rather than a field. */
const isCombinator = (type: t.Decoder<unknown, unknown>): boolean => {
  const tag = unwrap(type)._tag
  return tag === 'UnionType' || tag === 'IntersectionType' || tag === 'RefinementType'
}

/** What a codec expects, in words: the literals of a `keyof`, else the codec's name. */
const expectation = (type: t.Decoder<unknown, unknown>): string => {
  const x = unwrap(type)
  return x._tag === 'KeyofType' && x.keys !== undefined
    ? Object.keys(x.keys)
      .map((k) => JSON.stringify(k))
      .join(' | ')
    : type.name
}

/**
 * Renders an io-ts context as a JavaScript path: `[3].parts[0].type`.
 * Keys that io-ts adds for union and intersection members are not fields and are skipped.
 */
const contextPath = (context: t.Context): string => {
  let path = ''
  for (let i = 1; i < context.length; i++) {
    const entry = context[i]
    const parent = context[i - 1]
    if (entry === undefined || parent === undefined || isCombinator(parent.type)) continue
    const key = entry.key
    if (key === '') continue
    path += isIndex(key) ? `[${key}]` : IDENTIFIER.test(key) ? (path === '' ? key : `.${key}`) : `[${JSON.stringify(key)}]`
  }
  return path
}

/**
 * Turns io-ts validation errors into a `DecodeFailure`: one issue a path, the most specific
 * expectation (the innermost codec's name, or the error's own message when it has one).
 *
 * @since 0.1.0
 * @category codecs
 */
export const failureFromErrors = (errors: t.Errors): DecodeFailure => {
  const seen = new Set<string>()
  const out: DecodeIssue[] = []
  for (const e of errors) {
    const leaf = e.context[e.context.length - 1]
    const path = contextPath(e.context)
    const expected = e.message ?? (leaf === undefined ? 'unknown' : expectation(leaf.type))
    const key = `${path}\u0000${expected}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push({ path, expected, actual: e.value })
  }
  return out
}

// --- rendering ---

const MAX_ACTUAL = 80

/** A short, safe rendering of a bad value: never throws, never prints megabytes. */
export const showActual = (u: unknown): string => {
  if (u === undefined) return 'undefined'
  if (typeof u === 'bigint') return `${u}n`
  if (typeof u === 'function') return 'a function'
  if (typeof u === 'symbol') return u.toString()
  if (u instanceof Uint8Array) return `Uint8Array(${u.length})`
  let s: string
  try {
    s = JSON.stringify(u) ?? String(u)
  } catch {
    s = Array.isArray(u) ? 'an array' : 'an object'
  }
  return s.length > MAX_ACTUAL ? `${s.slice(0, MAX_ACTUAL)}…` : s
}

/**
 * Renders a failure as lines `path: expected X, got Y`, one a bad field.
 *
 * @example
 * import { decodeMessages, formatDecodeFailure } from 'chatfold'
 * const r = decodeMessages([{ id: '1', role: 'bot', parts: [] }])
 * if (r._tag === 'Left') console.log(formatDecodeFailure(r.left))
 * // [0].role: expected "system" | "user" | "assistant" | "tool", got "bot"
 *
 * @since 0.1.0
 * @category codecs
 */
export const formatDecodeFailure = (failure: DecodeFailure): string =>
  failure.map((i) => `${i.path === '' ? '(root)' : i.path}: expected ${i.expected}, got ${showActual(i.actual)}`).join('\n')
