/**
 * Messages being built by a reader (drafts), and how they become the read's messages: hollow
 * replies kept as display messages, tool-call statuses settled by their results.
 *
 * @module
 */
import { type Kind, type Message, type Messages } from '../message/message.ts'
import type { Part } from '../message/part-model.ts'
import type { Role } from '../message/role.ts'
import { fromDataUrl } from '../adapters/media.ts'
import { settleStatuses } from '../adapters/decode.ts'
import type { SessionRead, SkippedLine } from './session-read.ts'

/** A message being built by a reader: parts and metadata grow until the reader moves on. Never escapes a read. */
export type Draft = {
  readonly id: string
  readonly role: Role
  readonly kind: Kind
  readonly parts: Part[]
  readonly metadata: Record<string, unknown>
  createdAt?: string | undefined
  model?: string | undefined
  provider?: string | undefined
  error?: string | undefined
}

/** A new draft. */
export const draft = (
  d: {
    readonly id: string
    readonly role: Role
    readonly kind?: Kind
    readonly parts?: Part[]
    readonly metadata?: Record<string, unknown>
    readonly createdAt?: string | undefined
    readonly model?: string | undefined
    readonly provider?: string | undefined
  },
): Draft => ({
  ...d,
  kind: d.kind ?? 'normal',
  parts: d.parts ?? [],
  metadata: d.metadata ?? {},
})

/** Why a reply is shown only: it has no text and no tool call (only reasoning, or nothing), which no provider takes as a turn. */
export const SHOWN_ONLY = 'shownOnly'

const hollow = (d: Draft): boolean => d.role === 'assistant' && d.kind === 'normal' && d.parts.every((p) => p.type === 'reasoning' || p.type === 'finish')

/**
 * The message of a draft: fields that are unset, and empty metadata, left out. A reply with no text
 * and no tool call becomes a `display` message marked `metadata.shownOnly`.
 */
export const messageOf = (d: Draft): Message => ({
  id: d.id,
  role: d.role,
  kind: hollow(d) ? 'display' : d.kind,
  parts: [...d.parts],
  ...(d.createdAt === undefined ? {} : { createdAt: d.createdAt }),
  ...(d.model === undefined ? {} : { model: d.model }),
  ...(d.provider === undefined ? {} : { provider: d.provider }),
  ...(d.error === undefined ? {} : { error: d.error }),
  ...(hollow(d)
    ? { metadata: { ...d.metadata, [SHOWN_ONLY]: 'a reply with no text and no tool call' } }
    : Object.keys(d.metadata).length === 0
    ? {}
    : { metadata: d.metadata }),
})

/** The read's result, with a note on the replies kept as display messages because they had no text and no tool call. */
export const sessionRead = (
  r: { readonly messages: Messages; readonly archive: Messages; readonly notes: string[]; readonly skipped: ReadonlyArray<SkippedLine> },
): SessionRead => {
  const n = r.messages.filter((m) => m.metadata?.[SHOWN_ONLY] !== undefined).length
  return n === 0 ? r : { ...r, notes: [...r.notes, `${n} replies with no text and no tool call (only reasoning, or nothing) kept as display messages`] }
}

/** The messages of drafts, with each tool call's status settled by its result (`pending` without one). */
export const messagesOf = (ds: ReadonlyArray<Draft>): Messages => settleStatuses(ds.map(messageOf))

/** A draft of a finished message (to keep building a history after a compaction). */
export const draftOf = (m: Message): Draft => ({ ...m, parts: [...m.parts], metadata: { ...m.metadata } })

/** An image part from a URL: a data URL's bytes, or the URL itself. */
export const imageFromUrl = (url: string, mediaType?: string): Part => {
  const d = url.startsWith('data:') ? fromDataUrl(url) : undefined
  if (d !== undefined) return { type: 'image', data: d.data, mediaType: d.mediaType }
  return { type: 'image', url, ...(mediaType === undefined ? {} : { mediaType }) }
}
