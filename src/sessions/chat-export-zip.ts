/**
 * A chat export read as it is downloaded: the zip holding `conversations.json` (ChatGPT or
 * Claude.ai, told by its signature) and, for ChatGPT, the images the conversations point to.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { strFromU8, unzipSync } from 'fflate'
import type { DecodeFailure } from '../message/failure.ts'
import type { Message } from '../message/message.ts'
import type { ImagePart, Part } from '../message/part-model.ts'
import { toolResultBlocks } from '../message/tool-result-content.ts'
import { isObject } from '../internal/object.ts'
import { parseJsonText } from '../internal/json.ts'
import type { ChatExportConversation } from './chat-export.ts'
import { type ChatExportOptions, fromChatGPTExport, isChatGPTExport } from './chatgpt.ts'
import { fromClaudeAiExport, isClaudeAiExport } from './claude-ai.ts'

/**
 * What reading an export's zip gave: which export it is, and its conversations.
 *
 * @example
 * import type { ChatExportZip } from 'chatfold/sessions'
 * const empty: ChatExportZip = { format: 'chatgpt', conversations: [] }
 *
 * @since 0.1.0
 * @category adapters
 */
export type ChatExportZip = { readonly format: 'chatgpt' | 'claude-ai'; readonly conversations: ReadonlyArray<ChatExportConversation> }

const CONVERSATIONS = 'conversations.json'
const MEDIA: Readonly<Record<string, string>> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' }
const base = (name: string): string => name.slice(name.lastIndexOf('/') + 1)
/** The file id an asset pointer names (`file-service://file-abc` → `file-abc`, `sediment://file_00…` → `file_00…`). */
const assetId = (pointer: string): string => pointer.replace(/^[a-z-]+:\/\//, '')

/** The ChatGPT messages with the images their assets point to put in from the zip's entries, and how many were found and not. */
const withImages = (
  ms: ReadonlyArray<Message>,
  entries: ReadonlyMap<string, Uint8Array>,
): { readonly messages: Message[]; readonly found: number; readonly missing: number } => {
  let found = 0
  let missing = 0
  const messages = ms.map((m) => {
    const assets = m.metadata?.['assets']
    if (!Array.isArray(assets)) return m
    const images: ImagePart[] = []
    const kept = assets.map((a: unknown) => {
      if (!isObject(a) || a['content_type'] !== 'image_asset_pointer' || typeof a['asset_pointer'] !== 'string') return a
      const id = assetId(a['asset_pointer'])
      const entry = [...entries.keys()].find((name) => base(name).startsWith(id))
      const ext = entry?.slice(entry.lastIndexOf('.') + 1).toLowerCase() ?? ''
      const data = entry === undefined ? undefined : entries.get(entry)
      if (entry === undefined || data === undefined || MEDIA[ext] === undefined) {
        missing++
        return a
      }
      found++
      images.push({ type: 'image', data, mediaType: MEDIA[ext] })
      return { ...a, file: entry }
    })
    if (images.length === 0) return m
    const metadata = { ...m.metadata, assets: kept }
    // a tool's image (an image generation's result) joins its result, after the result's own text
    if (m.role === 'tool')
      return {
        ...m,
        parts: m.parts.map((p, i): Part => (i === 0 && p.type === 'tool_result' ? { ...p, content: [...toolResultBlocks(p), ...images] } : p)),
        metadata,
      }
    return { ...m, parts: [...images, ...m.parts], metadata }
  })
  return { messages, found, missing }
}

/**
 * Reads a ChatGPT or Claude.ai data export's zip, as downloaded: its `conversations.json` through
 * `fromChatGPTExport` or `fromClaudeAiExport` (whichever signature it fits), and, for ChatGPT, each
 * image an `image_asset_pointer` names (the zip's entry whose name starts with the file id) put in
 * its message as an image part (in a tool message, as an image generation's result is, an image
 * block of the result), the entry's name kept in `metadata.assets`. A note counts the images
 * read and those the zip does not hold. Left: bytes that are not a zip, a zip without
 * `conversations.json`, or one that is neither export, named.
 *
 * @example
 * import { fromChatExportZip } from 'chatfold/sessions'
 * import { strToU8, zipSync } from 'fflate'
 * const zip = zipSync({ 'conversations.json': strToU8(JSON.stringify([{ uuid: 'c1', name: 'Hi', chat_messages: [{ uuid: 'm1', sender: 'human', text: 'Hi' }] }])) })
 * const r = fromChatExportZip()(zip)
 * // right({ format: 'claude-ai', conversations: [{ id: 'c1', title: 'Hi', … }] })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromChatExportZip = (options: ChatExportOptions = {}) => (zip: Uint8Array): E.Either<DecodeFailure, ChatExportZip> => {
  let head: Record<string, Uint8Array>
  try {
    head = unzipSync(zip, { filter: (f) => base(f.name) === CONVERSATIONS })
  } catch (e) {
    return E.left([{ path: '', expected: 'a zip archive', actual: e instanceof Error ? e.message : String(e) }])
  }
  const name = Object.keys(head).sort((a, b) => a.length - b.length)[0]
  if (name === undefined) return E.left([{ path: CONVERSATIONS, expected: 'a file of the archive', actual: 'none' }])
  const doc = parseJsonText(strFromU8(head[name] as Uint8Array))
  if (E.isLeft(doc)) return E.left([{ path: name, expected: 'JSON', actual: doc.left }])
  const at = (r: E.Either<DecodeFailure, ReadonlyArray<ChatExportConversation>>) =>
    E.mapLeft((f: DecodeFailure): DecodeFailure => f.map((i) => ({ ...i, path: `${name}${i.path.startsWith('[') || i.path === '' ? '' : '.'}${i.path}` })))(r)
  if (isClaudeAiExport(doc.right))
    return E.map((conversations: ReadonlyArray<ChatExportConversation>): ChatExportZip => ({ format: 'claude-ai', conversations }))(
      at(fromClaudeAiExport(options)(doc.right)),
    )
  if (!isChatGPTExport(doc.right)) return E.left([{ path: name, expected: 'a ChatGPT or Claude.ai conversations.json', actual: 'another document' }])
  const read = at(fromChatGPTExport(options)(doc.right))
  if (E.isLeft(read)) return read
  const wanted = new Set<string>()
  for (const c of read.right)
    for (const m of c.read.messages)
      for (const a of Array.isArray(m.metadata?.['assets']) ? (m.metadata['assets'] as unknown[]) : [])
        if (isObject(a) && typeof a['asset_pointer'] === 'string') wanted.add(assetId(a['asset_pointer']))
  const files = wanted.size === 0 ? {} : unzipSync(zip, { filter: (f) => [...wanted].some((id) => base(f.name).startsWith(id)) })
  const entries = new Map(Object.entries(files))
  const conversations = read.right.map((c) => {
    const r = withImages(c.read.messages, entries)
    const notes = [
      ...c.read.notes,
      ...(r.found > 0 ? [`${r.found} image${r.found === 1 ? '' : 's'} read from the zip`] : []),
      ...(r.missing > 0 ? [`${r.missing} image${r.missing === 1 ? '' : 's'} the zip does not hold, named in metadata.assets`] : []),
    ]
    return { ...c, read: { ...c.read, messages: r.messages, notes } }
  })
  return E.right({ format: 'chatgpt', conversations })
}
