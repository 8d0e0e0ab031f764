/**
 * Histories as JSON and JSONL: lossless (every field, bytes as base64, tagged parts), one
 * message per JSONL line, with decoding errors that name the line.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { type DecodeFailure, type DecodeIssue, decodeIssue, formatDecodeFailure, prefixFailure } from '../message/failure.ts'
import { decodeMessage, decodeMessages, encodeMessage, encodeMessages, type Message, type Messages } from '../message/message.ts'
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
    else if (++bad <= MAX_REPORTED_LINES) { for (const i of r.left) issues.push(i) }
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
