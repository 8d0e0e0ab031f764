/**
 * Strict standard base64 for bytes, with Web-standard `btoa`/`atob` only (no `Buffer`).
 *
 * @module
 */

const CHUNK = 0x8000
const PAD = 0x3d // '='

/** The base64 alphabet by char code (a regular expression over the whole string backtracks per group and overflows V8's stack past ~4.4 M characters). */
const ALPHABET: Uint8Array = (() => {
  const table = new Uint8Array(128)
  for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') table[c.charCodeAt(0)] = 1
  return table
})()

/** Encodes bytes as padded standard base64. */
export const encodeBase64 = (bytes: Uint8Array): string => {
  let binary = ''
  for (let i = 0; i < bytes.length; i += CHUNK) {
    // the chunk's bytes as the arguments (an array-like is enough), without copying them to an array
    const chunk: string = Reflect.apply(String.fromCharCode, null, bytes.subarray(i, i + CHUNK))
    binary += chunk
  }
  return btoa(binary)
}

/** Whether `s` is padded standard base64: alphabet characters in groups of four, the last group padded with one or two `=`. Linear, any length. */
export const isBase64 = (s: string): boolean => {
  const n = s.length
  if (n % 4 !== 0) return false
  let end = n
  if (n > 0 && s.charCodeAt(n - 1) === PAD) end = s.charCodeAt(n - 2) === PAD ? n - 2 : n - 1
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i)
    if (c >= 128 || ALPHABET[c] === 0) return false
  }
  return true
}

/** Decodes padded standard base64; `undefined` when `s` is not base64. */
export const decodeBase64 = (s: string): Uint8Array | undefined => {
  if (!isBase64(s)) return undefined
  const binary = atob(s)
  const out = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
  return out
}
