/**
 * Anthropic's content blocks, read into parts: every block type of the Messages API (stable and
 * beta, request and response) has a handler here. A block becomes a built-in part when one carries
 * it whole (its other fields, such as `cache_control` or `citations`, go in the part's
 * `providerFields.anthropic`); any other block, and a block whose shape a part would not give back
 * exactly, becomes a provider part (`'anthropic'`, its type, the block verbatim) in its place.
 * Used by the Anthropic folder only (and the type tests, for the list of handled types).
 *
 * @module
 */
import * as t from 'io-ts'
import { providerPart } from '../../message/part-make.ts'
import { type Part, type ToolResultBlock } from '../../message/part-model.ts'
import { base64Of, bytesOf } from '../media.ts'
import { optional, type Reader, TaggedC } from '../decode.ts'
import { jsonText } from '../json-text.ts'
import { isObject } from '../../internal/object.ts'

// --- vocabulary ---

/**
 * Every content block type `fromAnthropic` and `fromAnthropicMessage` read: those of the stable and
 * beta Messages API, in requests and responses. Blocks of other types are kept verbatim too.
 *
 * @since 0.1.0
 * @category adapters
 */
export const ANTHROPIC_BLOCK_TYPES = [
  'text',
  'image',
  'document',
  'search_result',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'advisor_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'container_upload',
  'compaction',
  'tool_addition',
  'tool_removal',
  'mcp_tool_listing',
  'fallback',
] as const

/**
 * A content block type of the Messages API (see `ANTHROPIC_BLOCK_TYPES`).
 *
 * @since 0.1.0
 * @category adapters
 */
export type AnthropicBlockType = (typeof ANTHROPIC_BLOCK_TYPES)[number]

// --- fields ---

type Obj = Readonly<Record<string, unknown>>

/** The fields of a block that no part field carries; `undefined` when there are none. */
export const extrasOf = (block: Obj, mapped: ReadonlyArray<string>): Record<string, unknown> | undefined => {
  const out: Record<string, unknown> = {}
  let any = false
  for (const [k, v] of Object.entries(block)) {
    if (mapped.includes(k)) continue
    out[k] = v
    any = true
  }
  return any ? out : undefined
}

const withExtras = (
  p: Part,
  extras: Record<string, unknown> | undefined,
): Part => (extras === undefined ? p : { ...p, providerFields: { anthropic: extras } } as Part)

/** Whether an object has exactly the given keys. */
const onlyKeys = (o: Obj, keys: ReadonlyArray<string>): boolean => Object.keys(o).every((k) => keys.includes(k))

const keep = (tag: string, block: unknown): Part => providerPart('anthropic', tag, block)

/**
 * A response block as a request block says it: without the fields a response sets to `null` for
 * "none" (`citations: null`, …) and without the default `caller` (`{ type: 'direct' }`).
 */
export const requestShape = (b: unknown): unknown =>
  isObject(b)
    ? Object.fromEntries(
      Object.entries(b).filter(([k, v]) => v !== null && !(k === 'caller' && isObject(v) && v['type'] === 'direct' && Object.keys(v).length === 1)),
    )
    : b

// --- handlers ---

const TextC = t.type({ text: t.string })
const ThinkingC = t.intersection([t.type({ thinking: t.string }), t.partial({ signature: optional(t.string) })])
const RedactedC = t.type({ data: t.string })
const ToolUseC = t.type({ id: t.string, name: t.string, input: t.unknown })
const ToolResultC = t.intersection([
  t.type({ tool_use_id: t.string }),
  t.partial({ content: optional(t.union([t.string, t.array(t.unknown)])), is_error: optional(t.boolean) }),
])
const SourceC = t.intersection([t.type({ type: t.string }), t.partial({ media_type: t.string, data: t.string, url: t.string })])
const MediaC = t.type({ source: SourceC })

const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp'])
const utf8Bytes = new TextEncoder()

/** Base64 bytes, when the text decodes and encodes back to itself (else the block stays verbatim). */
const canonicalBytes = (r: Reader, data: string, at: string): Uint8Array | 'bad' | undefined => {
  const bytes = bytesOf(data)
  if (bytes === undefined) {
    r.fail(at, 'base64 string', data)
    return 'bad'
  }
  return base64Of(bytes) === data ? bytes : undefined
}

/** An image or document block as an image or file part, or verbatim when no part carries its source. */
const media = (r: Reader, u: Obj, at: string, kind: 'image' | 'document'): Part | undefined => {
  const x = r.read(MediaC, u, at)
  if (x === undefined) return undefined
  const source = isObject(u['source']) ? u['source'] : {}
  const title = kind === 'document' && typeof u['title'] === 'string' ? u['title'] : undefined
  const extras = extrasOf(u, title === undefined ? ['type', 'source'] : ['type', 'source', 'title'])
  const filename = title === undefined ? {} : { filename: title }
  const s = x.source
  if (s.type === 'url' && s.url !== undefined && onlyKeys(source, ['type', 'url'])) {
    return withExtras(kind === 'image' ? { type: 'image', url: s.url } : { type: 'file', url: s.url, mediaType: 'application/pdf', ...filename }, extras)
  }
  if (s.type === 'text' && kind === 'document' && s.data !== undefined && s.media_type === 'text/plain' && onlyKeys(source, ['type', 'media_type', 'data'])) {
    return withExtras({ type: 'file', data: utf8Bytes.encode(s.data), mediaType: 'text/plain', ...filename }, extras)
  }
  if (s.type === 'base64' && s.data !== undefined && s.media_type !== undefined && onlyKeys(source, ['type', 'media_type', 'data'])) {
    const fits = kind === 'image' ? IMAGE_TYPES.has(s.media_type) : s.media_type === 'application/pdf'
    const data = canonicalBytes(r, s.data, `${at}.source.data`)
    if (data === 'bad') return undefined
    if (fits && data !== undefined) {
      return withExtras(
        kind === 'image' ? { type: 'image', data, mediaType: s.media_type } : { type: 'file', data, mediaType: s.media_type, ...filename },
        extras,
      )
    }
  }
  return keep(kind, u)
}

/** A text block of a tool result, with the fields no part field carries. */
const textBlock = (text: string, extras: Record<string, unknown> | undefined): ToolResultBlock =>
  extras === undefined ? { type: 'text', text } : { type: 'text', text, providerFields: { anthropic: extras } }

/** A part that can stand in a tool result's content (the media reader gives only these). */
const isBlock = (p: Part): p is ToolResultBlock => p.type === 'text' || p.type === 'image' || p.type === 'file' || p.type === 'provider'

/**
 * A `tool_result` block: the result part, its content text or, when the tool returned blocks, those
 * blocks in order (text, images, documents; a search result or other block verbatim as a provider
 * part).
 */
const toolResult = (r: Reader, u: Obj, at: string): Part[] => {
  const x = r.read(ToolResultC, u, at)
  if (x === undefined) return []
  const extras = extrasOf(u, ['type', 'tool_use_id', ...(x.content === undefined ? [] : ['content']), ...(x.is_error === true ? ['is_error'] : [])])
  const blocks: ToolResultBlock[] = []
  ;(Array.isArray(x.content) ? x.content : []).forEach((b, k) => {
    const bat = `${at}.content[${k}]`
    const tag = r.read(TaggedC, b, bat)?.type
    if (tag === undefined || !isObject(b)) return
    if (tag === 'tool_result') return void r.fail(`${bat}.type`, 'a text, image, document or search result block inside a tool_result', tag)
    if (tag === 'text') {
      const y = r.read(TextC, b, bat)
      if (y !== undefined) blocks.push(textBlock(y.text, extrasOf(b, ['type', 'text'])))
    } else if (tag === 'image' || tag === 'document') {
      const p = media(r, b, bat, tag)
      if (p !== undefined && isBlock(p)) blocks.push(p)
    } else blocks.push({ type: 'provider', provider: 'anthropic', kind: tag, data: b })
  })
  const content = Array.isArray(x.content) ? blocks : x.content ?? ''
  return [withExtras({ type: 'tool_result', toolCallId: x.tool_use_id, content, isError: x.is_error === true }, extras)]
}

type Handler = (r: Reader, u: Obj, at: string) => ReadonlyArray<Part>

const verbatim = (tag: AnthropicBlockType): Handler => (_r, u) => [keep(tag, u)]

/** One handler for each block type: a built-in part where one carries the block, else the block verbatim. */
const HANDLERS: { readonly [K in AnthropicBlockType]: Handler } = {
  text: (r, u, at) => {
    const x = r.read(TextC, u, at)
    return x === undefined ? [] : [withExtras({ type: 'text', text: x.text }, extrasOf(u, ['type', 'text']))]
  },
  thinking: (r, u, at) => {
    const x = r.read(ThinkingC, u, at)
    if (x === undefined) return []
    const signature = typeof x.signature === 'string' ? x.signature : undefined
    return [
      withExtras(
        { type: 'reasoning', text: x.thinking, ...(signature === undefined ? {} : { signature }) },
        extrasOf(u, signature === undefined ? ['type', 'thinking'] : ['type', 'thinking', 'signature']),
      ),
    ]
  },
  redacted_thinking: (r, u, at) => {
    const x = r.read(RedactedC, u, at)
    return x === undefined ? [] : [withExtras({ type: 'reasoning', text: x.data, redacted: true }, extrasOf(u, ['type', 'data']))]
  },
  tool_use: (r, u, at) => {
    const x = r.read(ToolUseC, u, at)
    const input = x === undefined ? undefined : jsonText(r, x.input ?? {}, `${at}.input`)
    return x === undefined || input === undefined
      ? []
      : [withExtras({ type: 'tool_call', id: x.id, name: x.name, arguments: input, status: 'complete' }, extrasOf(u, ['type', 'id', 'name', 'input']))]
  },
  image: (r, u, at) => {
    const p = media(r, u, at, 'image')
    return p === undefined ? [] : [p]
  },
  document: (r, u, at) => {
    const p = media(r, u, at, 'document')
    return p === undefined ? [] : [p]
  },
  tool_result: toolResult,
  search_result: verbatim('search_result'),
  server_tool_use: verbatim('server_tool_use'),
  web_search_tool_result: verbatim('web_search_tool_result'),
  web_fetch_tool_result: verbatim('web_fetch_tool_result'),
  advisor_tool_result: verbatim('advisor_tool_result'),
  code_execution_tool_result: verbatim('code_execution_tool_result'),
  bash_code_execution_tool_result: verbatim('bash_code_execution_tool_result'),
  text_editor_code_execution_tool_result: verbatim('text_editor_code_execution_tool_result'),
  tool_search_tool_result: verbatim('tool_search_tool_result'),
  mcp_tool_use: verbatim('mcp_tool_use'),
  mcp_tool_result: verbatim('mcp_tool_result'),
  container_upload: verbatim('container_upload'),
  compaction: verbatim('compaction'),
  tool_addition: verbatim('tool_addition'),
  tool_removal: verbatim('tool_removal'),
  mcp_tool_listing: verbatim('mcp_tool_listing'),
  fallback: verbatim('fallback'),
}

const isHandled = (tag: string): tag is AnthropicBlockType => Object.prototype.hasOwnProperty.call(HANDLERS, tag)

/**
 * The parts of a block list, or of a string: tool results come out apart (each with the media of
 * its content), in order; every other block is a part in its place. A block of a type newer than
 * this list is kept verbatim as well.
 */
export const blockParts = (r: Reader, content: string | ReadonlyArray<unknown>, path: string): { parts: Part[]; results: Part[][] } => {
  if (typeof content === 'string') return { parts: [{ type: 'text', text: content }], results: [] }
  const parts: Part[] = []
  const results: Part[][] = []
  content.forEach((u, j) => {
    const at = `${path}[${j}]`
    const tag = r.read(TaggedC, u, at)?.type
    if (tag === undefined || !isObject(u)) return
    const out = isHandled(tag) ? HANDLERS[tag](r, u, at) : [keep(tag, u)]
    if (tag === 'tool_result') {
      if (out.length > 0) results.push([...out])
    } else parts.push(...out)
  })
  return { parts, results }
}
