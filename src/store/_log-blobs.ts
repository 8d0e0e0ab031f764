/**
 * Large strings kept once in a store's log: a step's command carries a string of 64 KiB or more
 * (an image's or a file's base64 data, a large tool output) the first time the store sees it, and a
 * reference to it (`{ "chatfold:blob": id }`, its content digest) every later time, so that a
 * screenshot repeated in forty turns is written to the log once. The simulator keeps the strings
 * it has seen by id (`Simulator.blobs`), live and on replay alike, and a snapshot keeps them.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { digest } from '../internal/digest.ts'
import { isObject } from '../internal/object.ts'
import { compareStrings } from './core.ts'
import type { Simulator } from './simulator.ts'
import { BLOB_MIN_LENGTH } from './_snapshot-blobs.ts'
import * as T from './_tree.ts'

type Blobs = T.Tree<string, string>

const REF = 'chatfold:blob'

/** The id of a string in the index (its digest, numbered past another string of the same digest), and whether the index holds it. */
const idOf = (blobs: Blobs, s: string): { readonly id: string; readonly held: boolean } => {
  const base = digest(s)
  for (let n = 0;; n++) {
    const id = n === 0 ? base : `${base}-${n}`
    const was = T.get(compareStrings, id, blobs)
    if (was === undefined) return { id, held: false }
    if (was === s) return { id, held: true }
  }
}

/** Whether a JSON value holds an object with the reference key (then its strings are logged as they are: a reference would be ambiguous). */
const holdsRefKey = (u: unknown): boolean =>
  Array.isArray(u) ? u.some(holdsRefKey) : isObject(u) && (Object.prototype.hasOwnProperty.call(u, REF) || Object.values(u).some(holdsRefKey))

const hasLarge = (u: unknown): boolean =>
  typeof u === 'string' ? u.length >= BLOB_MIN_LENGTH : Array.isArray(u) ? u.some(hasLarge) : isObject(u) && Object.values(u).some(hasLarge)

/**
 * A command's data as the log keeps it, its large strings the index holds already replaced by
 * references (`referenced`: some were), and the index with the others added (undefined: unchanged).
 */
export const internData = (
  data: unknown,
  blobs: Blobs | undefined,
): { readonly data: unknown; readonly referenced: boolean; readonly blobs: Blobs | undefined } => {
  if (!hasLarge(data) || holdsRefKey(data)) return { data, referenced: false, blobs }
  let index: Blobs = blobs
  let changed = false
  let referenced = false
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (v.length < BLOB_MIN_LENGTH) return v
      const { id, held } = idOf(index, v)
      if (held) {
        referenced = true
        return { [REF]: id }
      }
      index = T.insert(compareStrings, id, v, index)
      changed = true
      return v
    }
    if (Array.isArray(v)) return v.map(walk)
    if (!isObject(v)) return v
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) out[k] = walk(x)
    return out
  }
  const out = walk(data)
  return { data: referenced ? out : data, referenced, blobs: changed ? index : blobs }
}

/**
 * A logged command's data with its references replaced by the strings the index holds (`refs`:
 * the record says it holds some), and the index with the large strings it carries added: what
 * replaying it needs (a reference the index does not hold is an error naming it). One walk, in
 * the order `internData` took: a large string the record carries is added as it is met, so that
 * a later reference of the same record to it resolves (a message holding one image twice), and a
 * string a reference brings back is not hashed again (each record of a screenshot sent forty
 * times would be, on every replay).
 */
export const resolveData = (
  data: unknown,
  refs: boolean,
  blobs: Blobs | undefined,
): E.Either<string, { readonly data: unknown; readonly blobs: Blobs | undefined }> => {
  // data without references (logged before large strings were kept once, or with all of them new): as it is, its strings added
  if (!refs) return E.right({ data, blobs: internData(data, blobs).blobs })
  let index: Blobs = blobs
  let missing: string | undefined
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (v.length < BLOB_MIN_LENGTH) return v
      const { id, held } = idOf(index, v)
      if (!held) index = T.insert(compareStrings, id, v, index)
      return v
    }
    if (Array.isArray(v)) return v.map(walk)
    if (!isObject(v)) return v
    const id = v[REF]
    if (typeof id === 'string' && Object.keys(v).length === 1) {
      const s = T.get(compareStrings, id, index)
      if (s === undefined) missing ??= id
      return s ?? v
    }
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) out[k] = walk(x)
    return out
  }
  const whole = walk(data)
  if (missing !== undefined) return E.left(`it references a large string the log does not hold (${missing})`)
  return E.right({ data: whole, blobs: index })
}

/** The simulator with its index of large strings. */
export const withIndex = (sim: Simulator, blobs: Blobs | undefined): Simulator => (blobs === undefined || blobs === sim.blobs ? sim : { ...sim, blobs })
