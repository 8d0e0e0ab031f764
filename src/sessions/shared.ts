/**
 * What the session-file readers share: the result they give (history, archive, notes, skipped
 * lines), how a JSONL text is read line by line with bad lines failing or skipped, small field
 * readers that record a failure by path, usage records, injected-text detection, and compaction.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { DecodeFailure, DecodeIssue } from '../message/failure.ts'
import { IsoTimestampC, type Kind, type Message, type Messages } from '../message/message.ts'
import type { Part } from '../message/part-model.ts'
import type { Role } from '../message/role.ts'
import { rebuildAfterCompaction } from '../compaction/rebuild.ts'
import { fromDataUrl } from '../adapters/media.ts'
import { settleStatuses } from '../adapters/decode.ts'
import { jsonlLines } from '../internal/lines.ts'
import { isObject } from '../internal/object.ts'

// --- results ---

/**
 * A line a reader left out with `badLines: 'skip'`: its 1-based number and why.
 *
 * @example
 * import type { SkippedLine } from 'chatfold/sessions'
 * const s: SkippedLine = { line: 4, reason: 'not JSON: Unexpected end of JSON input' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type SkippedLine = { readonly line: number; readonly reason: string }

/**
 * What reading a session file gave: the history as the tool would send it now; the archive, the
 * messages the file still holds that the history no longer has (what a recorded compaction replaced,
 * what a rewind dropped), oldest first; notes on what the file held that is not part of the history
 * (each says what and how many); and the lines skipped as bad.
 *
 * @example
 * import type { SessionRead } from 'chatfold/sessions'
 * const empty: SessionRead = { messages: [], archive: [], notes: [], skipped: [] }
 *
 * @since 0.1.0
 * @category adapters
 */
export type SessionRead = {
  readonly messages: Messages
  readonly archive: Messages
  readonly notes: ReadonlyArray<string>
  readonly skipped: ReadonlyArray<SkippedLine>
}

/**
 * Options of the JSONL session readers: `badLines: 'fail'` (the default) answers the first line that
 * is not JSON or not a record of the format as a failure naming it; `'skip'` reads the rest and lists
 * the lines it left out in `skipped`.
 *
 * @example
 * import type { SessionOptions } from 'chatfold/sessions'
 * const lenient: SessionOptions = { badLines: 'skip' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type SessionOptions = { readonly badLines?: 'fail' | 'skip' }

// --- field readers ---

export type Rec = Readonly<Record<string, unknown>>

/** Collects the failures of one record; every reader returns `undefined` after recording one. */
export type Fields = {
  readonly issues: DecodeIssue[]
  readonly str: (o: Rec, key: string, at: string) => string | undefined
  readonly num: (o: Rec, key: string, at: string) => number | undefined
  readonly obj: (u: unknown, at: string) => Rec | undefined
  readonly arr: (u: unknown, at: string) => ReadonlyArray<unknown> | undefined
  readonly fail: (at: string, expected: string, actual: unknown) => undefined
}

/** A new collector of field failures. */
export const fields = (): Fields => {
  const issues: DecodeIssue[] = []
  const fail = (path: string, expected: string, actual: unknown): undefined => void issues.push({ path, expected, actual })
  const key = (at: string, k: string): string => (at === '' ? k : `${at}.${k}`)
  return {
    issues,
    fail,
    str: (o, k, at) => (typeof o[k] === 'string' ? (o[k] as string) : fail(key(at, k), 'string', o[k])),
    num: (o, k, at) => (typeof o[k] === 'number' && Number.isFinite(o[k]) ? (o[k] as number) : fail(key(at, k), 'number', o[k])),
    obj: (u, at) => (isObject(u) ? u : fail(at, 'object', u)),
    arr: (u, at) => (Array.isArray(u) ? u : fail(at, 'array', u)),
  }
}

/** A string field, or `undefined` when it is missing or not a string. */
export const optStr = (o: Rec, key: string): string | undefined => (typeof o[key] === 'string' ? (o[key] as string) : undefined)

/** A number field, or `undefined` when it is missing or not a finite number. */
export const optNum = (o: Rec, key: string): number | undefined => (typeof o[key] === 'number' && Number.isFinite(o[key]) ? (o[key] as number) : undefined)

/** An ISO-8601 timestamp from a string or epoch milliseconds, `undefined` when it is neither. */
export const isoOf = (u: unknown): string | undefined => {
  if (typeof u === 'string') return IsoTimestampC.is(u) ? u : undefined
  if (typeof u === 'number' && Number.isFinite(u)) {
    const d = new Date(u)
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
  }
  return undefined
}

/** `{ createdAt }` when the value is a timestamp, else nothing. */
export const at = (u: unknown): { readonly createdAt?: string } => {
  const iso = isoOf(u)
  return iso === undefined ? {} : { createdAt: iso }
}

/** Counts by name, rendered `2 a, 1 b` (in first-seen order). */
export const counter = () => {
  const counts = new Map<string, number>()
  return {
    add: (name: string, n = 1): void => void counts.set(name, (counts.get(name) ?? 0) + n),
    size: (): number => counts.size,
    text: (): string => [...counts].map(([k, n]) => `${n} ${k}`).join(', '),
  }
}

// --- lines ---

/** One parsed line of a JSONL file. */
export type Line = { readonly n: number; readonly value: unknown }

/**
 * Reads the records of a JSONL text: each line through `take`, which answers the failures of a line
 * it cannot read (empty when it could). A line that is not JSON, or that `take` fails, ends the read
 * with its failure prefixed `line N` (`badLines: 'fail'`), or is listed in `skipped` (`'skip'`).
 */
export const eachLine = (
  text: string,
  options: SessionOptions,
  take: (line: Line) => DecodeFailure,
): E.Either<DecodeFailure, ReadonlyArray<SkippedLine>> => {
  const skipped: SkippedLine[] = []
  for (const { text: raw, n } of jsonlLines(text)) {
    let value: unknown
    let failure: DecodeFailure
    try {
      value = JSON.parse(raw)
      failure = take({ n, value })
    } catch (e) {
      failure = [{ path: '', expected: 'a JSON record', actual: e instanceof Error ? `not JSON: ${e.message}` : String(e) }]
    }
    if (failure.length === 0) continue
    if (options.badLines !== 'skip') return E.left(failure.map((i) => ({ ...i, path: `line ${n}${i.path === '' || i.path.startsWith('[') ? '' : '.'}${i.path}` })))
    const first = failure[0] as DecodeIssue
    skipped.push({ line: n, reason: `${first.path === '' ? '' : `${first.path}: `}expected ${first.expected}${typeof first.actual === 'string' && first.actual.startsWith('not JSON') ? ` (${first.actual})` : ''}` })
  }
  return E.right(skipped)
}

// --- drafts ---

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
export const draft = (d: { readonly id: string; readonly role: Role; readonly kind?: Kind; readonly parts?: Part[]; readonly metadata?: Record<string, unknown>; readonly createdAt?: string | undefined; readonly model?: string | undefined; readonly provider?: string | undefined }): Draft => ({
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
  ...(hollow(d) ? { metadata: { ...d.metadata, [SHOWN_ONLY]: 'a reply with no text and no tool call' } } : Object.keys(d.metadata).length === 0 ? {} : { metadata: d.metadata }),
})

/** The read's result, with a note on the replies kept as display messages because they had no text and no tool call. */
export const sessionRead = (r: { readonly messages: Messages; readonly archive: Messages; readonly notes: string[]; readonly skipped: ReadonlyArray<SkippedLine> }): SessionRead => {
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

// --- injected text ---

/** Markers of text a tool injects as a user message, and the origin each names. */
const INJECTED: ReadonlyArray<readonly [RegExp, string]> = [
  [/^\s*<environment_context>/, 'environment_context'],
  [/^\s*<user_instructions>/, 'user_instructions'],
  [/^\s*# AGENTS\.md instructions/, 'agents_md'],
  [/^\s*<INSTRUCTIONS>/, 'agents_md'],
  [/^\s*<user_shell_command>/, 'user_shell_command'],
  [/^\s*<turn_aborted>/, 'turn_aborted'],
  [/^\s*<skill>/, 'skill'],
  [/^\s*<subagent_notification>/, 'subagent_notification'],
  [/^\s*<permissions instructions>/, 'permissions_instructions'],
  [/^\s*<session_context>/, 'session_context'],
]

/** The origin of a text a tool injected (environment context, instructions), or `undefined` for a person's text. */
export const injectedOrigin = (text: string): string | undefined => INJECTED.find(([re]) => re.test(text))?.[1]

// --- compaction ---

/**
 * Applies a compaction a file recorded: the history so far becomes its leading system messages, a
 * summary message with the text (timed when the compaction was), then `after`; what it replaced is
 * returned as the archive.
 */
export const compactHistory = (history: ReadonlyArray<Draft>, summary: string, after: ReadonlyArray<Draft>, createdAt: string | undefined): { readonly history: Draft[]; readonly archive: Messages } => {
  const r = rebuildAfterCompaction(summary, 0, [])(messagesOf(history))
  const kept = r.messages.map((m) => draftOf(m.metadata !== undefined && 'compaction' in m.metadata && createdAt !== undefined ? { ...m, createdAt } : m))
  return { history: [...kept, ...after], archive: r.archive }
}
