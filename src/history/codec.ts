/**
 * Histories as JSON and JSONL: lossless (every field, bytes as base64, tagged parts), one
 * message per JSONL line, with decoding errors that name the line; the exports (the
 * flat `ExportMessage` shape, and lossless JSON/JSONL of the structured-export view); and the
 * history's recorded token totals.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { type DecodeFailure, type DecodeIssue, decodeIssue, formatDecodeFailure, prefixFailure } from '../message/failure.ts'
import { isInternal } from '../message/accessors.ts'
import { decodeMessage, decodeMessages, encodeMessage, encodeMessages, type Message, type Messages } from '../message/message.ts'
import type { Role } from '../message/role.ts'
import { forExport, forExportStructured } from './views.ts'
import { jsonlLines } from '../internal/lines.ts'
import { parseJsonText } from '../internal/json.ts'

/**
 * Most bad lines a JSONL import reports before it stops listing them.
 *
 * @since 0.1.0
 * @category export
 */
export const MAX_REPORTED_LINES = 100

// --- export ---

/**
 * Serialises a history as JSONL: one message per line in its JSON form, ending with a newline
 * (empty string for an empty history). Lossless: `fromJSONL(toJSONL(h))` is `right(h)`.
 *
 * @example
 * import { textMessage, toJSONL } from 'chatfold'
 * toJSONL([textMessage('user', 'hi', { id: '1' })]) // '{"id":"1","role":"user","parts":[{"type":"text","data":{"text":"hi"}}],"kind":"normal"}\n'
 *
 * @since 0.1.0
 * @category export
 */
export const toJSONL = (ms: Messages): string => {
  let out = ''
  for (const m of ms) out += `${JSON.stringify(encodeMessage(m))}\n`
  return out
}

/**
 * Serialises a history as a JSON array (lossless), indented when `indent` is given.
 *
 * @example
 * import { textMessage } from 'chatfold/message'
 * import { toJSON } from 'chatfold/history'
 * toJSON([textMessage('user', 'hi')], 2)
 *
 * @since 0.1.0
 * @category export
 */
export const toJSON = (ms: Messages, indent?: number): string => JSON.stringify(encodeMessages(ms), null, indent)

// --- import ---

/**
 * Decodes one JSONL line; `n` is its 1-based line number, used in every issue's path.
 *
 * @since 0.1.0
 * @category export
 */
export const decodeJSONLine = (line: string, n: number): E.Either<DecodeFailure, Message> => {
  const u = parseJsonText(line)
  if (E.isLeft(u)) return E.left(decodeIssue(`line ${n}`, 'a JSON message', u.left))
  return E.mapLeft(prefixFailure(`line ${n}:`))(decodeMessage(u.right))
}

/**
 * Decodes JSONL text into a history. Blank lines and `\r\n` endings are fine. On failure every
 * bad line is reported (up to `MAX_REPORTED_LINES`), each issue's path starting `line N:`.
 * It never throws.
 *
 * @example
 * import { fromJSONL } from 'chatfold'
 * fromJSONL('{"id":"1","role":"user","parts":[]}\n{"id":"2","role":"bot","parts":[]}\n')
 * // left([{ path: 'line 2: role', expected: '"system" | "user" | "assistant" | "tool"', actual: 'bot' }])
 *
 * @since 0.1.0
 * @category export
 */
export const fromJSONL = (text: string): E.Either<DecodeFailure, Messages> => {
  const out: Message[] = []
  const issues: DecodeIssue[] = []
  let bad = 0
  let last = 0
  for (const { text: line, n } of jsonlLines(text)) {
    last = n
    const r = decodeJSONLine(line, n)
    if (E.isRight(r)) out.push(r.right)
    else if (++bad <= MAX_REPORTED_LINES) for (const i of r.left) issues.push(i)
  }
  if (bad > MAX_REPORTED_LINES) issues.push({ path: `line ${last}`, expected: `at most ${MAX_REPORTED_LINES} bad lines listed`, actual: `${bad} bad lines` })
  return issues.length > 0 ? E.left(issues) : E.right(out)
}

/**
 * Decodes a JSON array of messages (the form `toJSON` writes). It never throws.
 *
 * @example
 * import { fromJSON } from 'chatfold/history'
 * fromJSON('[{"id":"1","role":"user","parts":[]}]')
 *
 * @since 0.1.0
 * @category export
 */
export const fromJSON = (text: string): E.Either<DecodeFailure, Messages> => {
  const u = parseJsonText(text)
  if (E.isLeft(u)) return E.left(decodeIssue('', 'a JSON array of messages', u.left))
  return decodeMessages(u.right)
}

/**
 * Like `fromJSONL`, but throws: a `TypeError` whose message lists every bad line.
 *
 * @example
 * import { parseJSONL } from 'chatfold/history'
 * const history = parseJSONL('{"id":"1","role":"user","parts":[]}\n')
 *
 * @since 0.1.0
 * @category export
 */
export const parseJSONL = (text: string): Messages => {
  const r = fromJSONL(text)
  if (E.isLeft(r)) throw new TypeError(`Cannot decode JSONL: ${formatDecodeFailure(r.left)}`)
  return r.right
}

// --- flat export (`ExportMessage`) ---

/**
 * A tool call in an `ExportMessage`: its id, name and arguments (parsed JSON, or the raw text when
 * it is not JSON).
 *
 * @example
 * import { exportMessages } from 'chatfold/history'
 * import { makeMessage, toolCall } from 'chatfold/message'
 * exportMessages([makeMessage({ role: 'assistant', parts: [toolCall({ id: 'c1', name: 'ls', arguments: '{"path":"."}' })] })])[0]?.tool_calls
 * // [{ id: 'c1', name: 'ls', arguments: { path: '.' } }]
 *
 * @since 0.1.0
 * @category export
 */
export type ExportToolCall = { readonly id: string; readonly name: string; readonly arguments: unknown }

/**
 * A clean, flat message for export, with snake_case keys, each omitted
 * when empty. It leaves out ids, kinds, token counts, images and reasoning signatures. A tool
 * message gives one `ExportMessage` per result; a metadata message gives its metadata as JSON
 * `content`.
 *
 * @example
 * import { exportMessages, type ExportMessage } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * const flat: ReadonlyArray<ExportMessage> = exportMessages([textMessage('user', 'hi')]) // [{ role: 'user', content: 'hi' }]
 *
 * @since 0.1.0
 * @category export
 */
export type ExportMessage = {
  readonly role: Role
  readonly content?: string
  readonly thinking?: string
  readonly tool_calls?: ReadonlyArray<ExportToolCall>
  readonly tool_name?: string
  readonly tool_call_id?: string
  readonly created_at?: string
}

const parseArguments = (raw: string): unknown => {
  try {
    return JSON.parse(raw) as unknown
  } catch {
    return raw
  }
}

const flatten = (m: Message, out: ExportMessage[]): void => {
  const at = m.createdAt === undefined ? {} : { created_at: m.createdAt }
  let content = ''
  let thinking = ''
  const calls: ExportToolCall[] = []
  let results = 0
  for (const p of m.parts) {
    if (p.type === 'text') content += p.text
    else if (p.type === 'reasoning' && p.redacted !== true) thinking += p.text
    else if (p.type === 'tool_call') calls.push({ id: p.id, name: p.name, arguments: parseArguments(p.arguments) })
    else if (p.type === 'tool_result') {
      results++
      out.push({ role: m.role, ...(p.content === '' ? {} : { content: p.content }), ...(p.name === undefined ? {} : { tool_name: p.name }), tool_call_id: p.toolCallId, ...at })
    }
  }
  if (m.kind === 'metadata' && content === '' && m.metadata !== undefined) content = JSON.stringify(m.metadata)
  if (results > 0 && content === '' && thinking === '' && calls.length === 0) return
  out.push({
    role: m.role,
    ...(content === '' ? {} : { content }),
    ...(thinking === '' ? {} : { thinking }),
    ...(calls.length === 0 ? {} : { tool_calls: calls }),
    ...at,
  })
}

const flat = (ms: Messages): ReadonlyArray<ExportMessage> => {
  const out: ExportMessage[] = []
  for (const m of ms) flatten(m, out)
  return out
}

/**
 * The history as clean `ExportMessage`s for human-readable formats:
 * the `forExport` view (no synthetic, ephemeral or metadata messages).
 *
 * @example
 * import { exportMessages } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * exportMessages([textMessage('user', 'hi', { createdAt: '2026-01-31T12:00:00.000Z' })])
 * // [{ role: 'user', content: 'hi', created_at: '2026-01-31T12:00:00.000Z' }]
 *
 * @since 0.1.0
 * @category export
 */
export const exportMessages = (ms: Messages): ReadonlyArray<ExportMessage> => flat(forExport(ms))

/**
 * The history as clean `ExportMessage`s for machine-readable formats: the `forExportStructured`
 * view, metadata included.
 *
 * @example
 * import { exportStructuredMessages } from 'chatfold/history'
 * import { makeMessage } from 'chatfold/message'
 * exportStructuredMessages([makeMessage({ role: 'user', kind: 'metadata', metadata: { turn: 1 } })])
 * // [{ role: 'user', content: '{"turn":1}' }]
 *
 * @since 0.1.0
 * @category export
 */
export const exportStructuredMessages = (ms: Messages): ReadonlyArray<ExportMessage> => flat(forExportStructured(ms))

/**
 * The `forExportStructured` view as indented, lossless JSON (the `toJSON` form, two-space indent,
 * ending with a newline), so `fromJSON` reads it back. For
 * the flat `ExportMessage` shape, `JSON.stringify(exportStructuredMessages(ms))`.
 *
 * @example
 * import { exportJSON, fromJSON } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * const history = [textMessage('user', 'hi')]
 * fromJSON(exportJSON(history)) // right(history)
 *
 * @since 0.1.0
 * @category export
 */
export const exportJSON = (ms: Messages): string => `${toJSON(forExportStructured(ms), 2)}\n`

/**
 * The `forExportStructured` view as lossless JSONL, one message per line, so `fromJSONL` reads
 * it back.
 *
 * @example
 * import { exportJSONL, fromJSONL } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * const history = [textMessage('user', 'hi')]
 * fromJSONL(exportJSONL(history)) // right(history)
 *
 * @since 0.1.0
 * @category export
 */
export const exportJSONL = (ms: Messages): string => toJSONL(forExportStructured(ms))

// --- tokens ---

/**
 * The sum of the messages' recorded `tokens.total`; a message without
 * `tokens` counts 0.
 *
 * @example
 * import { textMessage } from 'chatfold/message'
 * import { totalTokens } from 'chatfold/history'
 * totalTokens([textMessage('user', 'hi', { tokens: { total: 3 } }), textMessage('assistant', 'yo', { tokens: { total: 5 } })]) // 8
 *
 * @since 0.1.0
 * @category tokens
 */
export const totalTokens = (ms: Messages): number => {
  let t = 0
  for (const m of ms) t += m.tokens?.total ?? 0
  return t
}

/**
 * The recorded tokens of the messages that take up context: like
 * `totalTokens`, but display-only, bookmark and metadata messages, which never reach a model,
 * count 0.
 *
 * @example
 * import { textMessage } from 'chatfold/message'
 * import { tokensForEstimation } from 'chatfold/history'
 * tokensForEstimation([textMessage('user', 'hi', { tokens: { total: 3 } }), textMessage('assistant', 'Saved', { kind: 'display', tokens: { total: 2 } })]) // 3
 *
 * @since 0.1.0
 * @category tokens
 */
export const tokensForEstimation = (ms: Messages): number => {
  let t = 0
  for (const m of ms) if (!isInternal(m)) t += m.tokens?.total ?? 0
  return t
}
