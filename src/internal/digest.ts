/**
 * A short digest of a text, to recognise it again (not a cryptographic hash); not exported
 * from the package.
 *
 * @module
 */

/** Two 32-bit FNV-1a lanes over the UTF-16 units of a text, as 16 hex digits. */
export const digest = (text: string): string => {
  let a = 0x811c9dc5
  let b = 0x01000193 ^ 0x5bd1e995
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15)
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0')
}
