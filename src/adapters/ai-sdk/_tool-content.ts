/**
 * An AI SDK tool result's `content` output (`{ type: 'content', value: [...] }`) read into a
 * result's blocks and written back: text, images and files by data or URL; any other entry (a file
 * id, a custom entry, one with provider options) kept verbatim as an `ai-sdk` provider block.
 *
 * @module
 */
import type { ToolResultBlock } from '../../message/part-model.ts'
import { base64Of, bytesOf } from '../media.ts'
import { isObject } from '../../internal/object.ts'

/** Whether `o` has exactly the string fields `keys` (and `optional` ones, when present). */
const exactly = (o: Readonly<Record<string, unknown>>, keys: ReadonlyArray<string>, optional: ReadonlyArray<string> = []): boolean =>
  keys.every((k) => typeof o[k] === 'string') && Object.keys(o).every((k) => keys.includes(k) || (optional.includes(k) && typeof o[k] === 'string'))

/** The entry's tag, kept when it is not the one chatfold writes for the block. */
const tagged = <B extends ToolResultBlock>(
  b: B,
  tag: string,
  written: string,
): B => (tag === written ? b : { ...b, providerFields: { 'ai-sdk': { type: tag } } })

/** Bytes from base64 that reads back the same, else nothing (the entry is kept verbatim). */
const canonical = (data: string): Uint8Array | undefined => {
  const bytes = bytesOf(data)
  return bytes !== undefined && base64Of(bytes) === data ? bytes : undefined
}

/** A `content` output's entries as a result's blocks. */
export const blocksOfContent = (value: ReadonlyArray<unknown>): ToolResultBlock[] =>
  value.map((c): ToolResultBlock => {
    if (!isObject(c)) return { type: 'provider', provider: 'ai-sdk', kind: 'tool-content', data: c }
    const tag = c['type']
    if (tag === 'text' && exactly(c, ['type', 'text'])) return { type: 'text', text: String(c['text']) }
    if ((tag === 'media' || tag === 'image-data') && exactly(c, ['type', 'data', 'mediaType'])) {
      const data = canonical(String(c['data']))
      const mediaType = String(c['mediaType'])
      if (data !== undefined && mediaType.startsWith('image/')) return tagged({ type: 'image', data, mediaType }, String(tag), 'media')
      if (data !== undefined && tag === 'media') return { type: 'file', data, mediaType }
    }
    if (tag === 'file-data' && exactly(c, ['type', 'data', 'mediaType'], ['filename'])) {
      const data = canonical(String(c['data']))
      const filename = typeof c['filename'] === 'string' ? { filename: c['filename'] } : {}
      if (data !== undefined)
        return tagged({ type: 'file', data, mediaType: String(c['mediaType']), ...filename }, 'file-data', 'filename' in filename ? 'file-data' : 'media')
    }
    if (tag === 'image-url' && exactly(c, ['type', 'url']))
      return { type: 'image', url: String(c['url']) }
    if (tag === 'file-url' && exactly(c, ['type', 'url', 'mediaType']))
      return { type: 'file', url: String(c['url']), mediaType: String(c['mediaType']) }
    return { type: 'provider', provider: 'ai-sdk', kind: typeof tag === 'string' ? tag : 'tool-content', data: c }
  })

/**
 * A result's blocks as a `content` output's entries: bytes as `media` (or the tag they were read
 * from), URLs as `image-url` / `file-url`; a provider block of the AI SDK's as it came, another
 * provider's block given to `drop` (which notes it).
 */
export const contentOfBlocks = (blocks: ReadonlyArray<ToolResultBlock>, drop: (b: ToolResultBlock) => void): unknown[] => {
  const out: unknown[] = []
  for (const b of blocks) {
    const tag = b.type === 'image' || b.type === 'file' ? b.providerFields?.['ai-sdk']?.['type'] : undefined
    if (b.type === 'text') out.push({ type: 'text', text: b.text })
    else if (b.type === 'provider') {
      if (b.provider === 'ai-sdk') out.push(b.data)
      else drop(b)
    } else if (b.data !== undefined) {
      const mediaType = b.mediaType ?? 'application/octet-stream'
      const filename = b.type === 'file' && b.filename !== undefined ? { filename: b.filename } : {}
      const type = typeof tag === 'string' ? tag : 'filename' in filename ? 'file-data' : 'media'
      out.push({ type, data: base64Of(b.data), mediaType, ...(type === 'file-data' ? filename : {}) })
    } else if (b.url !== undefined) {
      out.push(b.type === 'image' ? { type: 'image-url', url: b.url } : { type: 'file-url', url: b.url, mediaType: b.mediaType })
    }
  }
  return out
}
