/**
 * A codec for JSON-safe metadata: plain objects, arrays, strings, finite numbers, booleans and
 * null, at most `MAX_DEPTH` levels deep, with no cycles. An object property whose value is
 * `undefined` is absent, as `JSON.stringify` leaves it out (an optional field written
 * `{ title: undefined }`); an `undefined` array element is refused (JSON would make it `null`). Keys
 * such as `__proto__` stay ordinary own data properties: values are copied with
 * `Object.defineProperty` semantics, never assigned.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import * as J from 'fp-ts/Json'
import * as t from 'io-ts'
import { isObject } from './object.ts'

/**
 * Parses JSON text with fp-ts's `Json.parse`: the value, or the parser's message for text that is
 * not JSON. It never throws.
 */
export const parseJsonText = (text: string): E.Either<string, unknown> => E.mapLeft((e: unknown) => (e instanceof Error ? e.message : String(e)))(J.parse(text))

/** How deep metadata may nest before it is rejected. */
export const MAX_DEPTH = 64

type JsonProblem = { readonly path: string; readonly expected: string; readonly actual: unknown }

const isPlainObject = (u: unknown): u is Record<string, unknown> => {
  if (!isObject(u)) return false
  const proto = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

/** Finds the first value that is not JSON-safe, or `undefined` when all of `u` is. */
const findProblem = (u: unknown, path: string, depth: number, stack: Set<object>): JsonProblem | undefined => {
  if (u === null || typeof u === 'string' || typeof u === 'boolean') return undefined
  if (typeof u === 'number') return Number.isFinite(u) ? undefined : { path, expected: 'a finite number', actual: u }
  if (typeof u !== 'object') return { path, expected: 'a JSON value', actual: u }
  if (depth >= MAX_DEPTH) return { path, expected: `JSON nested at most ${MAX_DEPTH} levels`, actual: '(too deep)' }
  if (stack.has(u)) return { path, expected: 'JSON without cycles', actual: '(cycle)' }
  stack.add(u)
  try {
    if (Array.isArray(u)) {
      for (let i = 0; i < u.length; i++) {
        const p = findProblem(u[i], `${path}[${i}]`, depth + 1, stack)
        if (p !== undefined) return p
      }
      return undefined
    }
    if (!isPlainObject(u)) return { path, expected: 'a plain object', actual: u }
    for (const k of Object.keys(u)) {
      const p = findProblem(u[k], /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`, depth + 1, stack)
      if (p !== undefined) return p
    }
    return undefined
  } finally {
    stack.delete(u)
  }
}

/** Copies an object's own properties but those whose value is `undefined`, each through `f`, defining (never assigning) them. */
const definedEntries = (o: Record<string, unknown>, f: (v: unknown) => unknown): Record<string, unknown> => {
  const out: Record<string, unknown> = Object.getPrototypeOf(o) === null ? Object.create(null) : {}
  for (const k of Object.keys(o)) {
    const v = o[k]
    if (v !== undefined) Object.defineProperty(out, k, { value: f(v), enumerable: true, writable: true, configurable: true })
  }
  return out
}

/** Whether `u` holds, at any depth within `MAX_DEPTH`, a plain object with an `undefined`-valued property. */
const hasUndefined = (u: unknown, depth: number, stack: Set<object>): boolean => {
  if (typeof u !== 'object' || u === null || depth >= MAX_DEPTH || stack.has(u)) return false
  stack.add(u)
  try {
    if (Array.isArray(u)) return u.some((v) => hasUndefined(v, depth + 1, stack))
    return isPlainObject(u) && Object.keys(u).some((k) => u[k] === undefined || hasUndefined(u[k], depth + 1, stack))
  } finally {
    stack.delete(u)
  }
}

/** A copy of `u` without `undefined`-valued properties; a cycle is kept as it is, for `jsonProblem` to find. */
const stripped = (u: unknown, depth: number, stack: Set<object>): unknown => {
  if (typeof u !== 'object' || u === null || depth >= MAX_DEPTH || stack.has(u)) return u
  stack.add(u)
  try {
    if (Array.isArray(u)) return u.map((v) => stripped(v, depth + 1, stack))
    return isPlainObject(u) ? definedEntries(u, (v) => stripped(v, depth + 1, stack)) : u
  } finally {
    stack.delete(u)
  }
}

/**
 * `u` without the plain objects' properties whose value is `undefined`, at any depth (what
 * `JSON.stringify` leaves out): `u` itself when it has none. Anything else (cycles, class
 * instances, `undefined` array elements) is left as it is, for `jsonProblem` to name.
 */
export const withoutUndefined = (u: unknown): unknown => (hasUndefined(u, 0, new Set()) ? stripped(u, 0, new Set()) : u)

/** The JSON problem in `u`, if any, with a path relative to `u` (`''` for `u` itself). */
export const jsonProblem = (u: unknown): JsonProblem | undefined => findProblem(u, '', 0, new Set())

/** A readonly string-keyed record of JSON values. */
export type JsonRecord = Readonly<Record<string, unknown>>

/**
 * A codec for a metadata record: an object whose values are all JSON-safe.
 * Errors name the exact nested path (`metadata.a.b[2]`).
 */
export const JsonRecordC: t.Type<JsonRecord, JsonRecord, unknown> = new t.Type<JsonRecord, JsonRecord, unknown>(
  'JsonRecord',
  (u): u is JsonRecord => isPlainObject(u) && jsonProblem(u) === undefined,
  (u, c) => {
    if (!isPlainObject(u)) return t.failure(u, c, 'a plain object')
    // an optional field written as `undefined` is absent, as in JSON
    const v = withoutUndefined(u)
    const p = jsonProblem(v)
    if (p === undefined && isPlainObject(v)) return t.success(v)
    if (p === undefined) return t.failure(u, c, 'a plain object')
    // report the nested path through the context, so the formatter renders it after the field
    const keys = p.path.match(/\.[^.[]+|\[[^\]]+\]/g) ?? []
    let ctx = c
    for (const k of keys) {
      const key = k.startsWith('.') ? k.slice(1) : k.slice(1, -1).replace(/^"|"$/g, '')
      ctx = t.appendContext(ctx, key, t.unknown, undefined)
    }
    return t.failure(p.actual, ctx, p.expected)
  },
  t.identity,
)
