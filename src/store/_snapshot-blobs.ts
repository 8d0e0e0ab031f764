/**
 * Large strings kept once in a snapshot's JSON: every string of 64 KiB or more (an image's or a
 * file's base64 data, a large tool output) is stored once under its content digest, and referenced
 * wherever it stood (`{ "chatfold:blob": id }`), so that a screenshot repeated in forty turns, held
 * by the state and by the event history, weighs once in the snapshot; read back, each reference is
 * the one string again (shared in memory too).
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { digest } from '../internal/digest.ts'
import { isObject } from '../internal/object.ts'

/** The length from which a string is kept once. */
export const BLOB_MIN_LENGTH = 64 * 1024

const REF = 'chatfold:blob'

/**
 * What a JSON value holds: a large string, and an object with the reference key already (then
 * nothing is replaced: a reference would be ambiguous). A scan that allocates nothing.
 */
const scan = (u: unknown, found: { large: boolean; refKey: boolean }): void => {
  if (typeof u === 'string') found.large ||= u.length >= BLOB_MIN_LENGTH
  else if (Array.isArray(u)) { for (const x of u) scan(x, found) }
  else if (isObject(u)) {
    found.refKey ||= Object.prototype.hasOwnProperty.call(u, REF)
    for (const k in u) scan(u[k], found)
  }
}

/**
 * The JSON value with each large string replaced by a reference, and the strings by id; undefined
 * when it holds none (or holds the reference key already: it is then kept as it is).
 */
export const internBlobs = (u: unknown): { readonly value: unknown; readonly blobs: Readonly<Record<string, string>> } | undefined => {
  const ids = new Map<string, string>()
  const blobs: Record<string, string> = {}
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (v.length < BLOB_MIN_LENGTH) return v
      let id = ids.get(v)
      if (id === undefined) {
        const base = digest(v)
        id = base
        // two different strings of one digest: the second is numbered
        for (let n = 1; Object.prototype.hasOwnProperty.call(blobs, id); n++) id = `${base}-${n}`
        ids.set(v, id)
        blobs[id] = v
      }
      return { [REF]: id }
    }
    if (Array.isArray(v)) return v.map(walk)
    if (isObject(v)) {
      const out: Record<string, unknown> = {}
      for (const [k, x] of Object.entries(v)) out[k] = walk(x)
      return out
    }
    return v
  }
  const found = { large: false, refKey: false }
  scan(u, found)
  if (!found.large || found.refKey) return undefined
  const value = walk(u)
  return ids.size === 0 ? undefined : { value, blobs }
}

/** The JSON value with each reference replaced by its string, or the reference no string stands for. */
export const resolveBlobs = (u: unknown, blobs: Readonly<Record<string, unknown>>): E.Either<string, unknown> => {
  let missing: string | undefined
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk)
    if (!isObject(v)) return v
    const id = v[REF]
    if (typeof id === 'string' && Object.keys(v).length === 1) {
      const s = Object.prototype.hasOwnProperty.call(blobs, id) ? blobs[id] : undefined
      if (typeof s === 'string') return s
      missing ??= id
      return v
    }
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) out[k] = walk(x)
    return out
  }
  const value = walk(u)
  return missing === undefined ? E.right(value) : E.left(`the snapshot references a large string it does not hold (${missing})`)
}
