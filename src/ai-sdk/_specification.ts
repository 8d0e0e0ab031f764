/**
 * The two language-model specifications a middleware meets: `ai` 6 hands it `LanguageModelV3`
 * prompts, `ai` 7 `LanguageModelV4` ones (whatever specification the wrapped model itself has,
 * `wrapLanguageModel` of `ai` 7 adapts it to V4 first). The middleware's logic works on V3 prompts;
 * this module carries a V4 prompt to V3 and back. Where V4 has a part V3 has not (a file given by
 * a provider reference or as text, a reasoning file, a custom part, such files in a tool result),
 * the V3 part that stands in for it keeps the original under its provider options, and the way back
 * puts the original back, so a part the middleware did not drop reaches the model as it came.
 *
 * @module
 */
import { encodeBase64 } from '../internal/base64.ts'
import { isObject } from '../internal/object.ts'
import type { LanguageModelPrompt } from './prompt.ts'

/** Where a V3 stand-in keeps the V4 part it stands in for. */
const KEPT = 'chatfold-v4'

type Fields = Readonly<Record<string, unknown>>

/**
 * Whether the middleware was handed a model of the V4 specification (`ai` 7).
 */
export const isSpecificationV4 = (model: { readonly specificationVersion?: unknown }): boolean => model.specificationVersion === 'v4'

const optionsOf = (p: Fields): Fields => (isObject(p['providerOptions']) ? p['providerOptions'] : {})

/** `p` with the V4 part `original` kept under its provider options. */
const keeping = (p: Fields, original: Fields): Fields => ({ ...p, providerOptions: { ...optionsOf(original), [KEPT]: original } })

/** The V4 part a V3 stand-in keeps, if it is one. */
const keptOf = (p: unknown): Fields | undefined => {
  if (!isObject(p)) return undefined
  const kept = optionsOf(p)[KEPT]
  return isObject(kept) ? kept : undefined
}

const base64Of = (data: unknown): string | undefined => (typeof data === 'string' ? data : data instanceof Uint8Array ? encodeBase64(data) : undefined)

// --- V4 to V3 ---

/** A V4 message part as a V3 one: files by bytes or URL as V3 files, the rest as kept stand-ins. */
const partToV3 = (p: Fields): Fields => {
  const data = p['data']
  if (p['type'] === 'file' && isObject(data)) {
    const { data: _, ...rest } = p
    if (data['type'] === 'data') return { ...rest, data: data['data'] }
    if (data['type'] === 'url') return { ...rest, data: data['url'], ...(typeof data['originalUrl'] === 'string' ? { originalUrl: data['originalUrl'] } : {}) }
    // a provider's file reference or an inline text file: counted as the text it holds
    const text = data['type'] === 'text' && typeof data['text'] === 'string' ? data['text'] : JSON.stringify(data)
    return keeping({ type: 'text', text }, p)
  }
  if (p['type'] === 'reasoning-file' && isObject(data)) {
    const bytes = data['type'] === 'url' ? data['url'] : data['data']
    return keeping({ type: 'file', data: bytes, mediaType: p['mediaType'] }, p)
  }
  if (p['type'] === 'custom') return keeping({ type: 'text', text: '' }, p)
  if (p['type'] === 'tool-result' && isObject(p['output']) && p['output']['type'] === 'content' && Array.isArray(p['output']['value'])) {
    return { ...p, output: { ...p['output'], value: p['output']['value'].map(contentItemToV3) } }
  }
  return p
}

/** A V4 tool-result content item as a V3 one (`file-data`, `file-url`, or a kept `custom`). */
const contentItemToV3 = (item: unknown): unknown => {
  if (!isObject(item) || item['type'] !== 'file' || !isObject(item['data'])) return item
  const data = item['data']
  const mediaType = item['mediaType']
  const filename = typeof item['filename'] === 'string' ? { filename: item['filename'] } : {}
  const bytes = data['type'] === 'data' ? base64Of(data['data']) : undefined
  if (bytes !== undefined) return keeping({ type: 'file-data', data: bytes, mediaType, ...filename }, item)
  if (data['type'] === 'url' && data['url'] instanceof URL) return keeping({ type: 'file-url', url: data['url'].href, mediaType }, item)
  return keeping({ type: 'custom' }, item)
}

const messageToV3 = (
  m: Fields,
): Fields => (Array.isArray(m['content']) ? { ...m, content: m['content'].map((p: unknown) => (isObject(p) ? partToV3(p) : p)) } : m)

/**
 * A V4 prompt in the V3 shapes the middleware's logic reads.
 */
export const promptToV3 = (prompt: ReadonlyArray<unknown>): LanguageModelPrompt => {
  const v3: Array<LanguageModelPrompt[number]> = []
  for (const m of prompt) if (isObject(m)) v3.push(messageToV3(m) as LanguageModelPrompt[number])
  return v3
}

// --- V3 to V4 ---

/** A V3 message part as a V4 one: the kept original of a stand-in, files with tagged data. */
const partToV4 = (p: Fields): Fields => {
  const kept = keptOf(p)
  if (kept !== undefined) return kept
  if (p['type'] === 'file') {
    const { data, originalUrl, ...rest } = p
    if (data instanceof URL) return { ...rest, data: { type: 'url', url: data, ...(typeof originalUrl === 'string' ? { originalUrl } : {}) } }
    return { ...rest, data: { type: 'data', data } }
  }
  if (p['type'] === 'tool-result' && isObject(p['output']) && p['output']['type'] === 'content' && Array.isArray(p['output']['value'])) {
    return { ...p, output: { ...p['output'], value: p['output']['value'].map(contentItemToV4) } }
  }
  return p
}

/** A V3 tool-result content item as a V4 one: the kept original, or a file with tagged data. */
const contentItemToV4 = (item: unknown): unknown => {
  const kept = keptOf(item)
  if (kept !== undefined || !isObject(item)) return kept ?? item
  const { type, providerOptions: _, ...rest } = item
  const options = isObject(item['providerOptions']) ? { providerOptions: item['providerOptions'] } : {}
  const filename = typeof rest['filename'] === 'string' ? { filename: rest['filename'] } : {}
  if (type === 'file-data' || type === 'image-data')
    return { type: 'file', data: { type: 'data', data: rest['data'] }, mediaType: rest['mediaType'], ...filename, ...options }
  if ((type === 'file-url' || type === 'image-url') && typeof rest['url'] === 'string') {
    return { type: 'file', data: { type: 'url', url: new URL(rest['url']) }, mediaType: rest['mediaType'] ?? 'application/octet-stream', ...options }
  }
  return item
}

const messageToV4 = (
  m: Fields,
): Fields => (Array.isArray(m['content']) ? { ...m, content: m['content'].map((p: unknown) => (isObject(p) ? partToV4(p) : p)) } : m)

/**
 * A V3 prompt written by the middleware's logic, in the V4 shapes an `ai` 7 model takes.
 */
export const promptToV4 = (prompt: LanguageModelPrompt): LanguageModelPrompt => {
  const v4: Array<LanguageModelPrompt[number]> = []
  for (const m of prompt) v4.push(messageToV4(m) as LanguageModelPrompt[number])
  return v4
}
