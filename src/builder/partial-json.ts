/**
 * A best-effort parser for a prefix of JSON text, so that tool-call arguments can be shown while
 * they stream in.
 *
 * @module
 */
import type { ToolCallPart } from '../message/part-model.ts'

// --- parser ---

/** Thrown inside the parser on text that no continuation can make valid. */
const INVALID: unique symbol = Symbol('invalid')
/** Returned for a value the text has not reached yet. */
const MISSING: unique symbol = Symbol('missing')

type Parsed = unknown | typeof MISSING

const LITERALS: ReadonlyArray<readonly [string, unknown]> = [
  ['true', true],
  ['false', false],
  ['null', null],
]
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const WS = /[ \t\n\r]*/y

/** The text and a cursor into it. */
type Reader = { readonly s: string; i: number }

const isDone = (r: Reader): boolean => r.i >= r.s.length

const skipSpace = (r: Reader): void => {
  WS.lastIndex = r.i
  WS.exec(r.s)
  r.i = WS.lastIndex
}

const setKey = (o: Record<string, unknown>, k: string, v: unknown): void => {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
}

/** Whether the quote or escape at `at` is preceded by an odd number of backslashes (so is escaped). */
const escaped = (s: string, at: number, floor: number): boolean => {
  let n = 0
  for (let k = at - 1; k > floor && s.charCodeAt(k) === 0x5c; k--) n++
  return n % 2 === 1
}

/** A string from its opening quote; an unterminated one is closed, minus any half-written escape. */
const readString = (r: Reader): string => {
  const start = r.i
  for (let from = start + 1;;) {
    const q = r.s.indexOf('"', from)
    if (q < 0) break
    if (!escaped(r.s, q, start)) {
      r.i = q + 1
      return JSON.parse(r.s.slice(start, r.i)) as string
    }
    from = q + 1
  }
  let end = r.s.length
  // a lone backslash, or a \u escape without its four digits, at the very end
  const tail = /\\(?:u[0-9a-fA-F]{0,3})?$/.exec(r.s.slice(Math.max(start + 1, end - 6)))
  if (tail !== null) {
    const at = end - tail[0].length
    if (!escaped(r.s, at, start)) end = at
  }
  r.i = r.s.length
  return JSON.parse(`"${r.s.slice(start + 1, end)}"`) as string
}

/** A number; at the end of the text one may still be growing (`1.`, `2e`, `-`): keep what parses. */
const readNumber = (r: Reader): Parsed => {
  NUMBER.lastIndex = r.i
  const m = NUMBER.exec(r.s)
  const end = r.i + (m?.[0].length ?? 0)
  const growing = m === null ? r.s.slice(r.i) === '-' : /^(?:\.|[eE][+-]?)?$/.test(r.s.slice(end))
  if (growing) {
    r.i = r.s.length
    return m === null ? MISSING : Number(m[0])
  }
  if (m === null) throw INVALID
  r.i = end
  return Number(m[0])
}

const readValue = (r: Reader): Parsed => {
  skipSpace(r)
  if (isDone(r)) return MISSING
  const c = r.s[r.i]
  if (c === '{') return readObject(r)
  if (c === '[') return readArray(r)
  if (c === '"') return readString(r)
  if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return readNumber(r)
  for (const [word, value] of LITERALS) {
    const have = r.s.slice(r.i, r.i + word.length)
    if (have === word) {
      r.i += word.length
      return value
    }
    if (r.i + have.length === r.s.length && word.startsWith(have)) {
      r.i = r.s.length
      return value
    }
  }
  throw INVALID
}

const readObject = (r: Reader): Record<string, unknown> => {
  const o: Record<string, unknown> = {}
  r.i++
  for (let first = true;; first = false) {
    skipSpace(r)
    if (isDone(r)) return o
    if (r.s[r.i] === '}') {
      r.i++
      return o
    }
    if (!first) {
      if (r.s[r.i] !== ',') throw INVALID
      r.i++
      skipSpace(r)
      if (isDone(r)) return o
    }
    if (r.s[r.i] !== '"') throw INVALID
    const key = readString(r)
    skipSpace(r)
    if (isDone(r)) return o // a dangling key
    if (r.s[r.i] !== ':') throw INVALID
    r.i++
    const value = readValue(r)
    if (value === MISSING) return o // a key without its value yet
    setKey(o, key, value)
  }
}

const readArray = (r: Reader): unknown[] => {
  const a: unknown[] = []
  r.i++
  for (let first = true;; first = false) {
    skipSpace(r)
    if (isDone(r)) return a
    if (r.s[r.i] === ']') {
      r.i++
      return a
    }
    if (!first) {
      if (r.s[r.i] !== ',') throw INVALID
      r.i++
    }
    const value = readValue(r)
    if (value === MISSING) return a
    a.push(value)
  }
}

// --- parsing ---

/**
 * Parses JSON text that may be cut short, as tool-call arguments are while they stream: open
 * strings, arrays and objects are closed, a half-written number or literal keeps what it has, and a
 * key whose value has not arrived is dropped. Complete JSON parses as `JSON.parse` would. Returns
 * `undefined` for empty text and for text that no continuation could make valid JSON; never throws.
 *
 * @example
 * import { parsePartialJSON } from 'chatfold/builder'
 * parsePartialJSON('{"path":"src/ma') // { path: 'src/ma' }
 * parsePartialJSON('{"a":[1,2,{"b":tr') // { a: [1, 2, { b: true }] }
 * parsePartialJSON('{"a":1,"b') // { a: 1 }
 *
 * @since 0.1.0
 * @category parsing
 */
export const parsePartialJSON = (text: string): unknown => {
  const r: Reader = { s: text, i: 0 }
  try {
    const value = readValue(r)
    skipSpace(r)
    if (!isDone(r) || value === MISSING) return undefined
    return value
  } catch {
    // INVALID, or a RangeError from text nested too deeply to walk
    return undefined
  }
}

/**
 * The arguments of a tool call as far as they have streamed, parsed best-effort
 * (`parsePartialJSON` of its raw `arguments`), so a UI can show them before the call is complete.
 *
 * @example
 * import { partialArguments } from 'chatfold/builder'
 * import { toolCall } from 'chatfold/message'
 * partialArguments(toolCall({ id: 'c1', name: 'read', arguments: '{"path":"READ' })) // { path: 'READ' }
 *
 * @since 0.1.0
 * @category parsing
 */
export const partialArguments = (call: ToolCallPart): unknown => parsePartialJSON(call.arguments)
