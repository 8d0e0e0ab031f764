/**
 * Private helpers of the provider adapters (not exported from the package): the preparation every
 * `to…` runs first (the `forLLM` view, then the tool-pair check or repair), reasoning provenance,
 * tool-call id rewriting, data URLs, and the small decoding kit the `from…` functions use on
 * untrusted provider JSON.
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type DecodeFailure, type DecodeIssue, failureFromErrors, prefixFailure } from '../message/failure.ts'
import { isToolCall, isToolResult } from '../message/part-make.ts'
import { type Part, type ReasoningPart, type TextPart, type ToolCallPart } from '../message/part-model.ts'
import { makeMessage, type Message, type MessageFields, type Messages } from '../message/message.ts'
import { forLLM } from '../history/views.ts'
import { type RepairReport, repairToolPairs, validateToolPairs } from '../history/pairs.ts'
import { decodeBase64, encodeBase64 } from '../internal/base64.ts'
import type { AdapterFailure, AdapterNote, AdapterOptions, AdapterResult, ProviderId } from './types.ts'
import { forTarget } from './foreign.ts'
import { isObject } from '../internal/object.ts'

// --- conversion context ---

/** The target of a conversion: a provider, or the AI SDK (which carries every provider's reasoning). */
export type Target = ProviderId | 'ai-sdk'

/** The state of one conversion: options, notes, the id rewriting, the first hard error. Never escapes a call. */
export type Context = {
  readonly target: Target
  readonly repair: 'fail' | 'repair'
  readonly foreignReasoning: 'drop' | 'text'
  readonly model: string | undefined
  readonly notes: AdapterNote[]
  readonly ids: Map<string, string>
  error: AdapterFailure | undefined
}

/** How a target constrains tool-call ids: the test of a valid id, and a fix that makes one valid. */
export type IdRule = { readonly valid: (id: string) => boolean; readonly fix: (id: string) => string }

/** Ids that are at least one character long. */
export const nonEmptyIds: IdRule = { valid: (id) => id !== '', fix: () => 'call' }

/**
 * Runs what every `to…` does first: the `forLLM` view (noting what it left out), then what crosses
 * from other providers (`forTarget`: their blocks and fields mapped or left out, with notes), then the tool-pair
 * check (failing, or repairing with `repair: 'repair'`), then the id rewriting for the target.
 */
export const prepare = (
  target: Target,
  options: AdapterOptions,
  rule: IdRule,
  ms: Messages,
): E.Either<AdapterFailure, { readonly messages: Messages; readonly context: Context; readonly repair?: RepairReport }> => {
  const context: Context = {
    target,
    repair: options.repair ?? 'fail',
    foreignReasoning: options.foreignReasoning ?? 'drop',
    model: options.model,
    notes: [],
    ids: new Map(),
    error: undefined,
  }
  const view = forLLM(ms)
  if (view !== ms) {
    const kept = new Map(view.map((m) => [m.id, m]))
    for (const m of ms) {
      const v = kept.get(m.id)
      if (v === undefined) context.notes.push({ kind: 'omitted_message', messageId: m.id, reason: 'not_for_llm' })
      // the parts a compaction boundary replaced in its own message (those before it)
      else for (const p of m.parts.slice(0, m.parts.length - v.parts.length)) omitPart(context, m, p, 'before a compaction boundary')
    }
  }
  const portable = forTarget(target, view, context.notes)
  const check = validateToolPairs(portable)
  let messages = portable
  let repair: RepairReport | undefined
  if (!check.valid) {
    if (context.repair === 'fail') return E.left({ kind: 'invalid_tool_pairs', issues: check.issues })
    const repaired = repairToolPairs(portable)
    messages = repaired.messages
    repair = repaired.report
  } else if (context.repair === 'repair') {
    repair = { addedResults: [], droppedResults: [], droppedMessages: [], changed: false }
  }
  planIds(context, rule, messages)
  return E.right({ messages, context, ...(repair === undefined ? {} : { repair }) })
}

/**
 * Runs a conversion: `prepare`, then `convert` on the prepared messages; the first hard error it
 * records, or the request with its report.
 */
export const convertWith = <A>(
  target: Target,
  options: AdapterOptions,
  rule: IdRule,
  ms: Messages,
  convert: (context: Context, messages: Messages) => A,
): AdapterResult<A> => {
  const prepared = prepare(target, options, rule, ms)
  if (E.isLeft(prepared)) return prepared
  const { messages, context, repair } = prepared.right
  const request = convert(context, messages)
  return context.error !== undefined
    ? E.left(context.error)
    : E.right({ request, report: { ...(repair === undefined ? {} : { repair }), notes: context.notes } })
}

/**
 * Maps each tool-call id to one valid for the target, the same for a call and its result: valid ids
 * are kept, invalid ones fixed and made unique (`_2`, `_3`, …) among all ids of the history.
 */
const planIds = (context: Context, rule: IdRule, ms: Messages): void => {
  const originals = new Set<string>()
  for (const m of ms) {
    for (const p of m.parts) {
      if (isToolCall(p)) originals.add(p.id)
      else if (isToolResult(p)) originals.add(p.toolCallId)
    }
  }
  const taken = new Set<string>()
  for (const id of originals) if (rule.valid(id)) taken.add(id)
  for (const id of originals) {
    if (rule.valid(id)) continue
    const base = rule.fix(id)
    let candidate = base
    for (let n = 2; taken.has(candidate); n++) candidate = `${base}_${n}`
    taken.add(candidate)
    context.ids.set(id, candidate)
    context.notes.push({ kind: 'id_renamed', from: id, to: candidate })
  }
}

/**
 * Moves a system message that falls between a tool call and its results to right after those
 * results, for targets whose tool results must follow their call directly (the history core lets a
 * system message sit inside a tool turn). Returns the input when nothing moves; `onMove` hears of
 * each message moved.
 */
export const systemAfterResults = (ms: Messages, onMove?: (m: Message) => void): Messages => {
  const out: Message[] = []
  let held: Message[] = []
  const open = new Set<string>()
  let moved = false
  const release = (): void => {
    out.push(...held)
    held = []
  }
  for (const m of ms) {
    if (m.role === 'system' && open.size > 0) {
      held.push(m)
      onMove?.(m)
      moved = true
      continue
    }
    if (m.role === 'tool') {
      out.push(m)
      for (const p of m.parts) if (isToolResult(p)) open.delete(p.toolCallId)
      if (open.size === 0) release()
      continue
    }
    release()
    open.clear()
    if (m.role === 'assistant') for (const p of m.parts) if (isToolCall(p)) open.add(p.id)
    out.push(m)
  }
  release()
  return moved ? out : ms
}

/** The id a tool call or result goes out with. */
export const idFor = (context: Context, id: string): string => context.ids.get(id) ?? id

/** Records a part the target cannot carry. */
export const omitPart = (context: Context, m: Message, part: Part, reason: string): undefined => {
  context.notes.push({ kind: 'omitted_part', messageId: m.id, part: part.type, reason })
  return undefined
}

// --- reasoning ---

/**
 * Whether the target can verify the reasoning of `m`: it comes from the target provider, and from
 * the target model when both the message and the options name one.
 */
export const isNative = (context: Context, m: Message): boolean =>
  m.provider === context.target && (context.model === undefined || m.model === undefined || m.model === context.model)

/**
 * Reasoning the target cannot take as reasoning: nothing (`drop`) or a `<thinking>` text part
 * (`text`); opaque (redacted) reasoning and empty reasoning are always dropped.
 */
export const foreignReasoning = (context: Context, m: Message, p: ReasoningPart, reason: 'foreign' | 'unsigned'): ReadonlyArray<TextPart> => {
  if (p.redacted === true) {
    context.notes.push({ kind: 'reasoning_dropped', messageId: m.id, reason: 'opaque' })
    return []
  }
  if (context.foreignReasoning === 'drop' || p.text === '') {
    context.notes.push({ kind: 'reasoning_dropped', messageId: m.id, reason })
    return []
  }
  context.notes.push({ kind: 'reasoning_as_text', messageId: m.id })
  return [{ type: 'text', text: `<thinking>\n${p.text}\n</thinking>` }]
}

// --- tool calls ---

/** Parses raw JSON text; `undefined` when it is not JSON. */
export const parseJson = (s: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(s) as unknown }
  } catch {
    return undefined
  }
}

/**
 * A tool call's arguments as a JSON object. Arguments that are not one fail the conversion, or,
 * with `repair: 'repair'`, become `{}` with a note.
 */
export const argumentsObject = (context: Context, m: Message, call: ToolCallPart): Record<string, unknown> => {
  const parsed = parseJson(call.arguments)
  if (parsed !== undefined && isObject(parsed.value)) return parsed.value
  if (context.repair === 'repair') {
    context.notes.push({ kind: 'arguments_replaced', messageId: m.id, toolCallId: call.id })
  } else {
    context.error ??= { kind: 'invalid_arguments', messageId: m.id, toolCallId: call.id, arguments: call.arguments }
  }
  return {}
}

/** The name of each tool call of a history, by id (for results that do not carry it). */
export const callNames = (ms: Messages): ReadonlyMap<string, string> => {
  const names = new Map<string, string>()
  for (const m of ms) for (const p of m.parts) if (isToolCall(p)) names.set(p.id, p.name)
  return names
}

// --- media ---

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

// --- decoding ---

/**
 * A collector of decode issues for the `from…` functions: `read` decodes a value at a path and
 * records what is wrong, `fail` records an issue, `done` returns the value or every issue.
 */
export type Reader = {
  readonly read: <A>(codec: t.Decoder<unknown, A>, u: unknown, path: string) => A | undefined
  readonly fail: (path: string, expected: string, actual: unknown) => undefined
  readonly done: <A>(a: A) => E.Either<DecodeFailure, A>
}

/** A new reader. */
export const reader = (): Reader => {
  const issues: DecodeIssue[] = []
  return {
    read: (codec, u, path) => {
      const r = codec.decode(u)
      if (E.isRight(r)) return r.right
      issues.push(...prefixFailure(path)(failureFromErrors(r.left)))
      return undefined
    },
    fail: (path, expected, actual) => {
      issues.push({ path, expected, actual })
      return undefined
    },
    done: (a) => (issues.length === 0 ? E.right(a) : E.left(issues)),
  }
}

/** A record with a string `type` tag (other fields unchecked). */
export const TaggedC = t.type({ type: t.string }, 'an object with a string "type"')

/** An optional field: absent or `null` both read as `undefined`. */
export const optional = <C extends t.Mixed>(codec: C) => t.union([codec, t.undefined, t.null])

/** A history message made by a `from…` function: a new id, `normal` kind. */
export const fromMessage = (fields: MessageFields): Message => makeMessage(fields)

/**
 * The one assistant message a provider's response decodes to: its tool calls `pending` (the
 * response asks for them; nothing has run them yet), then a finish part when the response says why
 * it stopped, and the id, model, output tokens (with the reasoning share) and error it reports.
 */
export const replyMessage = (reply: {
  readonly provider: ProviderId
  readonly parts: ReadonlyArray<Part>
  readonly id?: string | undefined
  readonly model?: string | undefined
  readonly finish?: string | undefined
  readonly output?: number | undefined
  readonly thinking?: number | null | undefined
  readonly error?: string | undefined
}): Message => {
  const parts: Part[] = reply.parts.map((p) => (isToolCall(p) ? { ...p, status: 'pending' as const } : p))
  if (reply.finish !== undefined) parts.push({ type: 'finish', reason: reply.finish })
  const { thinking } = reply
  return fromMessage({
    ...(reply.id === undefined ? {} : { id: reply.id }),
    role: 'assistant',
    parts,
    provider: reply.provider,
    ...(reply.model === undefined ? {} : { model: reply.model }),
    ...(reply.output === undefined ? {} : { tokens: { total: reply.output, ...(typeof thinking === 'number' ? { thinking } : {}) } }),
    ...(reply.error === undefined ? {} : { error: reply.error }),
  })
}

/**
 * Sets each tool call's status from the history: `complete` (or `error`) when a result answers
 * it, `pending` when none does yet.
 */
export const settleStatuses = (ms: ReadonlyArray<Message>): Messages => {
  const outcome = new Map<string, boolean>()
  for (const m of ms) for (const p of m.parts) if (isToolResult(p)) outcome.set(p.toolCallId, p.isError)
  return ms.map((m) =>
    m.parts.some(isToolCall)
      ? {
          ...m,
          parts: m.parts.map((p) => {
            if (!isToolCall(p)) return p
            const isError = outcome.get(p.id)
            return { ...p, status: isError === undefined ? 'pending' : isError ? 'error' : 'complete' }
          }),
        }
      : m,
  )
}

/** The `error` text of a provider error body: `type: message`. */
export const errorText = (type: string | null | undefined, message: string): string => (type == null || type === '' ? message : `${type}: ${message}`)
