/**
 * The chat modality's content shape: a string, or a list of typed blocks
 * (`text`, `image`, `audio`, `video`, by URL or base64), and its conversion to and from parts.
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { decodeBase64, encodeBase64, isBase64 } from '../internal/base64.ts'
import { type DecodeFailure, failureFromErrors } from '../message/failure.ts'
import type { Part } from '../message/part-model.ts'

// --- codecs ---

const Base64StringC: t.Type<string, string, unknown> = new t.Type<string, string, unknown>(
  'Base64',
  (u): u is string => typeof u === 'string' && isBase64(u),
  (u, c) => (typeof u === 'string' && isBase64(u) ? t.success(u) : t.failure(u, c, 'base64 string')),
  t.identity,
)

type MediaSourceC<K extends string, S extends t.Props> = t.ReadonlyC<
  t.IntersectionC<[t.ExactC<t.TypeC<{ type: t.LiteralC<K> } & S>>, t.ExactC<t.PartialC<{ media_type: t.StringC }>>]>
>

/**
 * The codec type of a media block (`image`, `audio`, `video`): by URL or by base64 data.
 *
 * @since 0.1.0
 * @category codecs
 */
export type MediaBlockC<K extends string> = t.UnionC<
  [MediaSourceC<K, { source: t.LiteralC<'url'>; url: t.StringC }>, MediaSourceC<K, { source: t.LiteralC<'base64'>; data: typeof Base64StringC }>]
>

const media = <K extends 'image' | 'audio' | 'video'>(kind: K): MediaBlockC<K> =>
  t.union(
    [
      t.readonly(
        t.intersection([t.exact(t.type({ type: t.literal(kind), source: t.literal('url'), url: t.string })), t.exact(t.partial({ media_type: t.string }))]),
      ),
      t.readonly(
        t.intersection([
          t.exact(t.type({ type: t.literal(kind), source: t.literal('base64'), data: Base64StringC })),
          t.exact(t.partial({ media_type: t.string })),
        ]),
      ),
    ],
    `${kind[0]?.toUpperCase()}${kind.slice(1)}Block`,
  )

/** @since 0.1.0 @category codecs */
export const TextBlockC: t.ReadonlyC<t.ExactC<t.TypeC<{ type: t.LiteralC<'text'>; text: t.StringC }>>> = t.readonly(
  t.exact(t.type({ type: t.literal('text'), text: t.string })),
  'TextBlock',
)
/** @since 0.1.0 @category codecs */
export const ImageBlockC: MediaBlockC<'image'> = media('image')
/** @since 0.1.0 @category codecs */
export const AudioBlockC: MediaBlockC<'audio'> = media('audio')
/** @since 0.1.0 @category codecs */
export const VideoBlockC: MediaBlockC<'video'> = media('video')

/**
 * One typed content block of a chat message's content.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ContentBlockC: t.UnionC<[typeof TextBlockC, typeof ImageBlockC, typeof AudioBlockC, typeof VideoBlockC]> = t.union([
  TextBlockC,
  ImageBlockC,
  AudioBlockC,
  VideoBlockC,
], 'ContentBlock')

/**
 * Chat content: simple text, or a list of typed blocks.
 *
 * @example
 * import { ChatContentC } from 'chatfold/store'
 * ChatContentC.is([{ type: 'text', text: "What's in this image?" }, { type: 'image', source: 'url', url: 'https://example.com/a.jpg' }]) // true
 *
 * @since 0.1.0
 * @category codecs
 */
export const ChatContentC: t.UnionC<[t.StringC, t.ReadonlyArrayC<typeof ContentBlockC>]> = t.union([t.string, t.readonlyArray(ContentBlockC)], 'ChatContent')

/** @since 0.1.0 @category model */
export type ContentBlock = t.TypeOf<typeof ContentBlockC>
/** @since 0.1.0 @category model */
export type ChatContent = t.TypeOf<typeof ChatContentC>

/**
 * Decodes untrusted chat content; blocks with an unknown `type` or a bad source are reported by path.
 *
 * @example
 * import * as E from 'fp-ts/Either'
 * import { decodeChatContent } from 'chatfold/store'
 * const r = decodeChatContent([{ type: 'txt', text: 'hi' }])
 * if (E.isLeft(r)) r.left[1] // { path: '[0].type', expected: '"text"', actual: 'txt' }
 *
 * @since 0.1.0
 * @category codecs
 */
export const decodeChatContent = (u: unknown): E.Either<DecodeFailure, ChatContent> => E.mapLeft(failureFromErrors)(ChatContentC.decode(u))

// --- conversions ---

const defaultMediaType = { image: 'image/*', audio: 'audio/*', video: 'video/*' } as const

/**
 * Normalises chat content into parts: a string is one text part; image blocks become image
 * parts, audio and video blocks file parts (base64 data as bytes; a missing media type is
 * `audio/*` or `video/*`).
 *
 * @example
 * import { fromChatContent } from 'chatfold/store'
 * fromChatContent('Hello') // [{ type: 'text', text: 'Hello' }]
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromChatContent = (content: ChatContent): ReadonlyArray<Part> => {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  return content.map((b): Part => {
    if (b.type === 'text') return { type: 'text', text: b.text }
    const source = b.source === 'url' ? { url: b.url } : { data: decodeBase64(b.data) ?? new Uint8Array() }
    if (b.type === 'image') return { type: 'image', ...source, ...(b.media_type === undefined ? {} : { mediaType: b.media_type }) }
    return { type: 'file', ...source, mediaType: b.media_type ?? defaultMediaType[b.type] }
  })
}

/**
 * A part that chat content has no form for, which {@link toChatContentNoted} names: its index
 * among the parts, its type, and the tool call's id (a tool call or result) or the media type (a
 * file of another medium than audio and video).
 */
type LeftOutPart = { readonly index: number; readonly type: Part['type']; readonly toolCallId?: string; readonly mediaType?: string }

/**
 * Turns parts back into chat content, naming what it leaves out: a lone text part is a string;
 * otherwise a block list of the text, image, audio and video parts. Every other part (reasoning,
 * tool calls and results, files of other media types, custom and provider parts, media with
 * neither URL nor bytes) has no chat-content form: it is in `left`, so that a caller keeping a
 * history in the chat store's content knows what it would lose (a tool result above all, which
 * then could not be read back). Keep those in the message's `metadata`, as the framework
 * integrations do, or refuse.
 *
 * @example
 * import { toChatContentNoted } from 'chatfold/store'
 * import { text, toolCall } from 'chatfold/message'
 * toChatContentNoted([text('Reading.'), toolCall({ id: 'c1', name: 'read', arguments: '{}' })])
 * // { content: [{ type: 'text', text: 'Reading.' }], left: [{ index: 1, type: 'tool_call', toolCallId: 'c1' }] }
 *
 * @since 0.1.0
 * @category conversions
 */
export const toChatContentNoted = (parts: ReadonlyArray<Part>): { readonly content: ChatContent; readonly left: ReadonlyArray<LeftOutPart> } => {
  const only = parts.length === 1 ? parts[0] : undefined
  if (only?.type === 'text') return { content: only.text, left: [] }
  const blocks: ContentBlock[] = []
  const left: LeftOutPart[] = []
  parts.forEach((p, index) => {
    if (p.type === 'text') return void blocks.push({ type: 'text', text: p.text })
    if (p.type === 'image' || p.type === 'file') {
      const kind = p.type === 'image' ? 'image' : p.mediaType.startsWith('audio/') ? 'audio' : p.mediaType.startsWith('video/') ? 'video' : undefined
      const mt = kind === undefined || p.mediaType === undefined || p.mediaType === defaultMediaType[kind] ? {} : { media_type: p.mediaType }
      if (kind !== undefined && p.url !== undefined) return void blocks.push({ type: kind, source: 'url', url: p.url, ...mt })
      if (kind !== undefined && p.data !== undefined) return void blocks.push({ type: kind, source: 'base64', data: encodeBase64(p.data), ...mt })
      return void left.push({ index, type: p.type, ...(p.mediaType === undefined ? {} : { mediaType: p.mediaType }) })
    }
    const toolCallId = p.type === 'tool_call' ? p.id : p.type === 'tool_result' ? p.toolCallId : undefined
    left.push({ index, type: p.type, ...(toolCallId === undefined ? {} : { toolCallId }) })
  })
  return { content: blocks, left }
}

/**
 * Turns parts back into chat content: a lone text part is a string; otherwise a block list of
 * the text, image, audio and video parts. Other parts (reasoning, tool calls and results,
 * files of other media types, custom parts) have no chat-content form and are left out:
 * {@link toChatContentNoted} names them.
 *
 * @example
 * import { fromChatContent, toChatContent } from 'chatfold/store'
 * toChatContent(fromChatContent('Hello')) // 'Hello'
 *
 * @since 0.1.0
 * @category conversions
 */
export const toChatContent = (parts: ReadonlyArray<Part>): ChatContent => toChatContentNoted(parts).content
