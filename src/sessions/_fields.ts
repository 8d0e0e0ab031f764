/**
 * Field readers of the session readers: a collector that records each failure by path, optional
 * string and number fields, timestamps from strings or epoch milliseconds, and counts by name.
 *
 * @module
 */
import type { DecodeIssue } from '../message/failure.ts'
import { IsoTimestampC } from '../message/message.ts'
import { isObject } from '../internal/object.ts'

export type Rec = Readonly<Record<string, unknown>>

/** Collects the failures of one record; every reader returns `undefined` after recording one. */
export type Fields = {
  readonly issues: DecodeIssue[]
  readonly str: (o: Rec, key: string, at: string) => string | undefined
  readonly num: (o: Rec, key: string, at: string) => number | undefined
  readonly obj: (u: unknown, at: string) => Rec | undefined
  readonly arr: (u: unknown, at: string) => ReadonlyArray<unknown> | undefined
  readonly fail: (at: string, expected: string, actual: unknown) => undefined
}

/** A new collector of field failures. */
export const fields = (): Fields => {
  const issues: DecodeIssue[] = []
  const fail = (path: string, expected: string, actual: unknown): undefined => void issues.push({ path, expected, actual })
  const key = (at: string, k: string): string => (at === '' ? k : `${at}.${k}`)
  return {
    issues,
    fail,
    str: (o, k, at) => (typeof o[k] === 'string' ? (o[k] as string) : fail(key(at, k), 'string', o[k])),
    num: (o, k, at) => (typeof o[k] === 'number' && Number.isFinite(o[k]) ? (o[k] as number) : fail(key(at, k), 'number', o[k])),
    obj: (u, at) => (isObject(u) ? u : fail(at, 'object', u)),
    arr: (u, at) => (Array.isArray(u) ? u : fail(at, 'array', u)),
  }
}

/** A string field, or `undefined` when it is missing or not a string. */
export const optStr = (o: Rec, key: string): string | undefined => (typeof o[key] === 'string' ? (o[key] as string) : undefined)

/** A number field, or `undefined` when it is missing or not a finite number. */
export const optNum = (o: Rec, key: string): number | undefined => (typeof o[key] === 'number' && Number.isFinite(o[key]) ? (o[key] as number) : undefined)

/** An ISO-8601 timestamp from a string or epoch milliseconds, `undefined` when it is neither. */
export const isoOf = (u: unknown): string | undefined => {
  if (typeof u === 'string') return IsoTimestampC.is(u) ? u : undefined
  if (typeof u === 'number' && Number.isFinite(u)) {
    const d = new Date(u)
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
  }
  return undefined
}

/** `{ createdAt }` when the value is a timestamp, else nothing. */
export const at = (u: unknown): { readonly createdAt?: string } => {
  const iso = isoOf(u)
  return iso === undefined ? {} : { createdAt: iso }
}

/** Counts by name, rendered `2 a, 1 b` (in first-seen order). */
export const counter = () => {
  const counts = new Map<string, number>()
  return {
    add: (name: string, n = 1): void => void counts.set(name, (counts.get(name) ?? 0) + n),
    size: (): number => counts.size,
    text: (): string => [...counts].map(([k, n]) => `${n} ${k}`).join(', '),
  }
}
