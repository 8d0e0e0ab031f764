/**
 * What a pruned tool result becomes: a placeholder that says how much was removed, points to the
 * original (see `pointer.ts`) and keeps a preview, either the default one (recognised by its prefix, so it is never pruned again) or the
 * caller's (recognised by the tool call ids its message records in `metadata.pruned`).
 *
 * @module
 */
import type { Message } from '../message/message.ts'
import type { PruneOptions } from './prune-options.ts'
import { type ContentPointer, REF_DIGITS, refStem } from './pointer.ts'
import { utf8Hash } from '../internal/content-hash.ts'

// --- constants ---

/** How many characters of a pruned result (or a cut argument) a placeholder keeps. */
export const PREVIEW_CHARS = 100

/** The default placeholder's start, by which a pruned result is recognised. */
const PLACEHOLDER_PREFIX = '[tool output pruned'

/** The default placeholder's opening, as one string. */
const PLACEHOLDER_LEAD = `${PLACEHOLDER_PREFIX} — was ~`

/** The default placeholder's fixed characters (without its two numbers, its reference and preview). */
const FIXED_LENGTH = `${PLACEHOLDER_LEAD} tokens,  chars, ref ]\n`.length

// --- text ---

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff

/** A prefix of at most `n` UTF-16 units that does not end inside a surrogate pair. */
export const head = (s: string, n: number): string => (s.length <= n ? s : s.slice(0, isHighSurrogate(s.charCodeAt(n - 1)) ? n - 1 : n))

// --- placeholders ---

/** The tool call ids a custom placeholder replaced in this message (its `metadata.pruned`). */
export const prunedIds = (m: Message): ReadonlyArray<unknown> | undefined => {
  const v = m.metadata?.['pruned']
  return Array.isArray(v) ? v : undefined
}

/** Whether a result's content is the default placeholder already (never pruned again). */
export const isPlaceholder = (content: string): boolean => content.charCodeAt(0) === 0x5b && content.startsWith(PLACEHOLDER_PREFIX) // '['

/**
 * Whether a result's content is too short for the default placeholder to shorten it: no longer
 * than the fixed text, two numbers of at least one digit and the preview. A cheap test, made
 * before any tool name is looked up or any text estimated.
 */
export const tooShortForDefault = (content: string): boolean => content.length <= FIXED_LENGTH + 1 + Math.min(content.length, PREVIEW_CHARS)

/** A placeholder's text and the pointer to what it replaced. */
export type Placed = { readonly text: string; readonly pointer: ContentPointer }

/**
 * The text that replaces the result of call `toolCallId` in message `messageId`: its `content`
 * (its text form), worth `tokens`, of tool `name`; with the pointer to the content, whose reference
 * the text shows (`ref call_1@…`); `undefined` when it would not be shorter (then the result
 * stays as it is, and nothing is hashed). A result with `media` (an image or a file) is always
 * replaced, whole: its preview names the media.
 */
export const placeholderFor = (
  custom: PruneOptions['placeholder'],
  name: string,
  tokens: number,
  content: string,
  media: boolean,
  messageId: string,
  toolCallId: string,
): Placed | undefined => {
  const chars = content.length
  const preview = head(content, PREVIEW_CHARS)
  const stem = refStem(toolCallId, 'result')
  if (custom === undefined) {
    const lead = `${PLACEHOLDER_LEAD}${tokens} tokens, ${chars} chars, ref ${stem}`
    // the reference's digits are measured before the hash is made
    if (!media && lead.length + REF_DIGITS + 2 + preview.length >= chars) return undefined
    const hash = utf8Hash(content)
    return { text: `${lead}${hash.slice(0, REF_DIGITS)}]\n${preview}`, pointer: { messageId, toolCallId, part: 'result', hash } }
  }
  const hash = utf8Hash(content)
  const text = custom({ name, tokens, chars, preview, ref: stem + hash.slice(0, REF_DIGITS) })
  return media || text.length < chars ? { text, pointer: { messageId, toolCallId, part: 'result', hash } } : undefined
}
