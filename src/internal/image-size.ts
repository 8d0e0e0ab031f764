/**
 * An image's width and height, read from the header of its bytes (PNG, JPEG, GIF, WebP), without
 * decoding it. Not exported from the package: the providers' image token rules need the size.
 *
 * @module
 */

/** An image's size in pixels. */
export type ImageSize = { readonly width: number; readonly height: number }

const be16 = (d: Uint8Array, i: number): number => ((d[i] ?? 0) << 8) | (d[i + 1] ?? 0)
const le16 = (d: Uint8Array, i: number): number => (d[i] ?? 0) | ((d[i + 1] ?? 0) << 8)
const le24 = (d: Uint8Array, i: number): number => (d[i] ?? 0) | ((d[i + 1] ?? 0) << 8) | ((d[i + 2] ?? 0) << 16)
const be32 = (d: Uint8Array, i: number): number => ((d[i] ?? 0) * 0x1000000) + (((d[i + 1] ?? 0) << 16) | ((d[i + 2] ?? 0) << 8) | (d[i + 3] ?? 0))
const ascii = (d: Uint8Array, i: number, s: string): boolean => [...s].every((c, k) => d[i + k] === c.charCodeAt(0))

const sized = (width: number, height: number): ImageSize | undefined => (width > 0 && height > 0 ? { width, height } : undefined)

/** JPEG: the first start-of-frame marker's size; markers are walked by their lengths. */
const jpegSize = (d: Uint8Array): ImageSize | undefined => {
  let i = 2
  while (i + 9 < d.length) {
    if (d[i] !== 0xff) return undefined
    const marker = d[i + 1] ?? 0
    if (marker === 0xff) {
      i++
      continue
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
    if (isFrame) return sized(be16(d, i + 7), be16(d, i + 5))
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2
      continue
    }
    i += 2 + be16(d, i + 2)
  }
  return undefined
}

/** WebP: from its `VP8 `, `VP8L` or `VP8X` chunk. */
const webpSize = (d: Uint8Array): ImageSize | undefined => {
  if (ascii(d, 12, 'VP8 ')) return sized(le16(d, 26) & 0x3fff, le16(d, 28) & 0x3fff)
  if (ascii(d, 12, 'VP8L')) {
    const b = (d[21] ?? 0) | ((d[22] ?? 0) << 8) | ((d[23] ?? 0) << 16) | ((d[24] ?? 0) << 24)
    return sized((b & 0x3fff) + 1, ((b >>> 14) & 0x3fff) + 1)
  }
  if (ascii(d, 12, 'VP8X')) return sized(le24(d, 24) + 1, le24(d, 27) + 1)
  return undefined
}

/**
 * The size of an image from its header, or `undefined` when the bytes are not a PNG, JPEG, GIF or
 * WebP image whose header says it.
 */
export const imageSize = (d: Uint8Array): ImageSize | undefined => {
  if (d.length >= 24 && d[0] === 0x89 && ascii(d, 1, 'PNG') && ascii(d, 12, 'IHDR')) return sized(be32(d, 16), be32(d, 20))
  if (d.length >= 10 && ascii(d, 0, 'GIF8')) return sized(le16(d, 6), le16(d, 8))
  if (d.length >= 30 && ascii(d, 0, 'RIFF') && ascii(d, 8, 'WEBP')) return webpSize(d)
  if (d.length >= 4 && d[0] === 0xff && d[1] === 0xd8) return jpegSize(d)
  return undefined
}
