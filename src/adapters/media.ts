/**
 * Bytes as providers carry them: base64, data URLs, and an image's type from its magic number.
 * Not exported from the package.
 *
 * @module
 */
import { decodeBase64, encodeBase64 } from '../internal/base64.ts'

/** A base64 data URL for bytes. */
export const toDataUrl = (mediaType: string, data: Uint8Array): string => `data:${mediaType};base64,${encodeBase64(data)}`

const DATA_URL = /^data:([^;,]+)((?:;[^;,=]+=[^;,]*)*);base64,(.*)$/s

/** The media type and bytes of a base64 data URL; `undefined` for any other URL. */
export const fromDataUrl = (url: string): { readonly mediaType: string; readonly data: Uint8Array } | undefined => {
  const m = DATA_URL.exec(url)
  if (m === null) return undefined
  const data = decodeBase64(m[3] ?? '')
  return data === undefined ? undefined : { mediaType: m[1] ?? '', data }
}

/** Bytes from standard base64; `undefined` when the text is not base64. */
export const bytesOf = (base64: string): Uint8Array | undefined => decodeBase64(base64)

/** Standard base64 of bytes. */
export const base64Of = (data: Uint8Array): string => encodeBase64(data)

const startsWith = (data: Uint8Array, bytes: ReadonlyArray<number>, at = 0): boolean => bytes.every((b, i) => data[at + i] === b)

/** The image type of bytes from their magic number (PNG, JPEG, GIF, WebP); `undefined` otherwise. */
export const sniffImageType = (data: Uint8Array): string | undefined =>
  startsWith(data, [0x89, 0x50, 0x4e, 0x47])
    ? 'image/png'
    : startsWith(data, [0xff, 0xd8, 0xff])
    ? 'image/jpeg'
    : startsWith(data, [0x47, 0x49, 0x46, 0x38])
    ? 'image/gif'
    : startsWith(data, [0x52, 0x49, 0x46, 0x46]) && startsWith(data, [0x57, 0x45, 0x42, 0x50], 8)
    ? 'image/webp'
    : undefined

/** An image's media type: the recorded one, else sniffed from its bytes. */
export const imageType = (p: { readonly mediaType?: string; readonly data?: Uint8Array }): string | undefined =>
  p.mediaType ?? (p.data === undefined ? undefined : sniffImageType(p.data))
