/**
 * Strict standard base64 for bytes, with Web-standard `btoa`/`atob` only (no `Buffer`).
 *
 * @module
 */

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const CHUNK = 0x8000

/** Encodes bytes as padded standard base64. */
export const encodeBase64 = (bytes: Uint8Array): string => {
  let binary = ''
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK) as unknown as number[])
  }
  return btoa(binary)
}

/** Whether `s` is canonical padded standard base64. */
export const isBase64 = (s: string): boolean => s.length % 4 === 0 && BASE64.test(s)

/** Decodes padded standard base64; `undefined` when `s` is not base64. */
export const decodeBase64 = (s: string): Uint8Array | undefined => {
  if (!isBase64(s)) return undefined
  const binary = atob(s)
  const out = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
  return out
}
