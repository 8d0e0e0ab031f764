/**
 * A stable 64-bit hash of a text's UTF-8 bytes, to tell later whether a text is still the one
 * hashed (not a cryptographic hash; the package exports it as `contentHash`, beside the pointers
 * that carry it).
 *
 * Synchronous on purpose: the pruners that write it into a placeholder are pure functions, and Web
 * Crypto's SHA-256 only answers a promise. The text is encoded natively into a scratch buffer and
 * read four bytes at a time (as little-endian words, whatever the platform), which is several times
 * faster on large tool output than a hash over its UTF-16 units (as `digest` is).
 *
 * @module
 */

const encoder = new TextEncoder()

/** A scratch buffer for the encoded bytes and its words, grown on demand (never shared across a call: the hash is synchronous). */
let scratch: Uint8Array | undefined
let words: Int32Array | undefined

/** Whether typed arrays are little-endian here (as on every common platform): words are then read four bytes at once. */
let little: boolean | undefined

const hex = (n: number): string => (n >>> 0).toString(16).padStart(8, '0')

/** The words of `b[0, end)` as little-endian numbers, for a big-endian platform. */
const swapped = (b: Uint8Array, end: number): Int32Array => {
  const out = new Int32Array(end >> 2)
  for (let i = 0, j = 0; i < end; i += 4, j++)
    out[j] = (b[i] as number) | ((b[i + 1] as number) << 8) | ((b[i + 2] as number) << 16) | ((b[i + 3] as number) << 24)
  return out
}

/**
 * Two 32-bit lanes over the UTF-8 bytes of `text`, as 16 hex digits: a MurmurHash3-style lane and
 * an FNV-style lane, both seeded with the byte length.
 */
export const utf8Hash = (text: string): string => {
  const need = text.length * 3 + 4
  if (scratch === undefined || scratch.length < need) {
    scratch = new Uint8Array(Math.max((need + 3) & ~3, 1 << 16))
    words = new Int32Array(scratch.buffer)
  }
  little ??= new Uint8Array(new Uint32Array([1]).buffer)[0] === 1
  const b = scratch
  const n = encoder.encodeInto(text, b).written
  const count = n >> 2
  const w = little ? (words as Int32Array) : swapped(b, count << 2)
  let h = 0x811c9dc5 ^ n
  let f = 0x9747b28c ^ n
  for (let j = 0; j < count; j++) {
    let k = w[j] as number
    k = Math.imul(k, 0xcc9e2d51)
    k = (k << 15) | (k >>> 17)
    k = Math.imul(k, 0x1b873593)
    h ^= k
    h = (h << 13) | (h >>> 19)
    h = (Math.imul(h, 5) + 0xe6546b64) | 0
    f = Math.imul(f ^ k, 0x01000193)
  }
  for (let i = count << 2; i < n; i++) {
    h = Math.imul(h ^ (b[i] as number), 0xcc9e2d51)
    f = Math.imul(f ^ (b[i] as number), 0x01000193)
  }
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  f ^= f >>> 15
  return hex(h) + hex(f)
}
