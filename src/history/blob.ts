/**
 * A saved history read from a `Blob` progressively: chatfold JSONL (one message a line, as
 * `toJSONL` and `saveHistory` write it) or a JSON array of messages (as `toJSON` writes it), its
 * bytes read a slice at a time and its lines decoded in slices of a few milliseconds, between which
 * the work yields and checks its signal; the decoded messages come out in slices of about so many
 * characters, so that a caller (the engine's `openFile`) counts one while the next is decoded. Bad
 * lines reject with a `TypeError` naming each by line.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { Message, Messages } from '../message/message.ts'
import { decodeJSONLine, fromJSON } from './codec.ts'
import type { DecodeIssue } from '../message/failure.ts'
import { invalidUtf8Line, isTornTail, type JsonlLine, jsonlSplitter } from '../internal/lines.ts'
import { throwIfAborted } from '../internal/abort.ts'
import { noop } from '../internal/function.ts'
import { formatDecodeFailure } from '../message/failure.ts'
import { budget, slicesOf, yieldToEventLoop } from '../internal/schedule.ts'

/** About how many characters of JSONL (or bytes of messages) each slice yielded holds. */
const SLICE_CHARS = 128 * 1024

/** At most this many issues are reported: a history of bad messages gives a short error. */
export const MAX_ISSUES = 20

/** The error bad input rejects with: `TypeError`, with the issues by path, as `parseMessages` throws. */
export const decodeError = (issues: ReadonlyArray<DecodeIssue>, more: boolean): TypeError =>
  new TypeError(`Cannot decode messages: ${formatDecodeFailure(issues)}${more ? `\n… (the first ${MAX_ISSUES} issues; there may be more)` : ''}`)

/** Options of `readHistoryBlob`. */
export type BlobReadOptions = {
  readonly signal: AbortSignal
  /** A JSONL file's torn last line (a crash mid-append): dropped (the default), or reported. */
  readonly tornTail?: 'drop' | 'fail'
}

/**
 * A slice of the decoded history: its messages, about how many messages the file holds (estimated
 * from the share of it read so far until the end), and whether more is still being decoded after it.
 */
export type BlobSlice = { readonly messages: Messages; readonly total: number; readonly decoding: boolean }

// --- reading ---

/**
 * How many bytes are read from the Blob at a time (a slice of it: its `stream()` is no help, Node's
 * gives the whole Blob in one synchronous copy), and about how many are decoded at a time: a few
 * ms of work each.
 */
const READ_BYTES = 1024 * 1024
const DECODE_BYTES = 256 * 1024
const NEWLINE = 0x0a

/** Bytes that are not UTF-8, on the `line`-th line (from 1) of the piece being decoded. */
class NotUtf8 extends Error {
  constructor(readonly line: number) {
    super('the bytes are not UTF-8')
  }
}

/** Fatal on bytes that are not UTF-8; a byte-order mark is kept (the line reader skips the first). */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
const lenient = new TextDecoder('utf-8')

/** Decodes whole lines of UTF-8; throws `NotUtf8` naming the first line that is not. */
const decodeLines = (bytes: Uint8Array): string => {
  try {
    return utf8.decode(bytes)
  } catch {
    throw new NotUtf8(invalidUtf8Line(bytes))
  }
}

/** A piece of a file: whole lines of text, or what follows its last newline (`tail`, not decoded yet). */
type Piece = { readonly text: string; readonly bytes: number; readonly tail?: undefined } | { readonly tail: Uint8Array; readonly bytes: number }

/** The bytes of `file` from `at`, up to `READ_BYTES` of them; a rejection nobody awaits (the reader stopped) is not reported. */
const readAt = (file: Blob, at: number): Promise<ArrayBuffer> => {
  const bytes = file.slice(at, at + READ_BYTES).arrayBuffer()
  bytes.catch(noop)
  return bytes
}

/**
 * The text of `file` as UTF-8, in pieces of whole lines (each with its length in bytes), then the
 * bytes after its last newline: a newline byte is never inside a character, so each piece decodes
 * alone, and a piece that is not UTF-8 tells its line. The next slice of the Blob is read while
 * this one is decoded: a read is a round trip to wherever the Blob's bytes are (in Chromium, the
 * browser's process), slow enough per MiB that waiting for each read in turn adds up over a large
 * file.
 */
async function* textOf(file: Blob): AsyncGenerator<Piece> {
  let carry = new Uint8Array(0)
  let ahead = readAt(file, 0)
  for (let at = 0; at < file.size; at += READ_BYTES) {
    const read = new Uint8Array(await ahead)
    if (at + READ_BYTES < file.size) ahead = readAt(file, at + READ_BYTES)
    const bytes = carry.length === 0 ? read : new Uint8Array(carry.length + read.length)
    if (bytes !== read) {
      bytes.set(carry)
      bytes.set(read, carry.length)
    }
    let from = 0
    for (;;) {
      // up to the last newline within DECODE_BYTES, or the first after it (a long line)
      const last = bytes.lastIndexOf(NEWLINE, Math.min(bytes.length, from + DECODE_BYTES) - 1)
      const end = last >= from ? last : bytes.indexOf(NEWLINE, from + DECODE_BYTES)
      if (end < 0) break
      yield { text: decodeLines(bytes.subarray(from, end + 1)), bytes: end + 1 - from }
      from = end + 1
    }
    carry = bytes.slice(from)
  }
  if (carry.length > 0) yield { tail: carry, bytes: carry.length }
}

/** The first character of `text` that is no white space nor byte-order mark, if any. */
const firstMark = (text: string): string | undefined => /[^\s\uFEFF]/.exec(text)?.[0]

/**
 * Reads and decodes the history in `file`, its text read and decoded a piece at a time, so that
 * neither the whole text nor a long task is needed for JSONL (a JSON array is parsed whole), and
 * yields its messages in slices of about `SLICE_CHARS` characters. Throws a `TypeError` that names
 * each bad line (`line 3: role: expected …`; at most `MAX_ISSUES` issues) or the line of bytes that
 * are not UTF-8, or the signal's reason.
 */
export async function* readHistoryBlob(file: Blob, o: BlobReadOptions): AsyncGenerator<BlobSlice, void, undefined> {
  throwIfAborted(o.signal)
  let read = 0
  let total = 0

  // JSONL: each line decoded, in slices of a few ms, and yielded in slices of SLICE_CHARS
  const split = jsonlSplitter()
  const issues: DecodeIssue[] = []
  let slice: Message[] = []
  let chars = 0
  let decoded = 0
  const spent = budget()
  async function* decode(lines: ReadonlyArray<JsonlLine>): AsyncGenerator<BlobSlice, void, undefined> {
    for (const line of lines) {
      if (spent.spent()) {
        await yieldToEventLoop()
        throwIfAborted(o.signal)
        spent.reset()
      }
      const r = decodeJSONLine(line.text, line.n)
      if (E.isLeft(r)) {
        for (const issue of r.left) issues.push(issue)
        if (issues.length >= MAX_ISSUES) throw decodeError(issues.slice(0, MAX_ISSUES), true)
        continue
      }
      if (issues.length > 0) continue
      slice.push(r.right)
      decoded++
      chars += line.text.length + 1
      if (chars >= SLICE_CHARS) {
        // what the caller does with a slice starts in a task of its own, not after a slice of decoding
        await yieldToEventLoop()
        const messages = slice
        slice = []
        chars = 0
        yield { messages, total: Math.max(decoded, total), decoding: true }
        await yieldToEventLoop()
        throwIfAborted(o.signal)
        spent.reset()
      }
    }
    // about how many messages the file holds, from the share of it read so far
    total = Math.max(decoded, Math.round(decoded * Math.max(1, file.size / Math.max(1, read))))
  }

  const pieces = textOf(file)
  let format: 'jsonl' | 'json' | undefined
  let lines = 0
  let head = ''
  const whole: string[] = []
  /** Bytes that are not UTF-8, as the issue of their line. */
  const notUtf8 = (
    e: unknown,
  ): unknown => (e instanceof NotUtf8
    ? decodeError([{ path: `line ${lines + e.line}`, expected: 'UTF-8 text', actual: '(bytes that are not UTF-8)' }], false)
    : e)
  for (;;) {
    let next: IteratorResult<Piece>
    try {
      next = await pieces.next()
    } catch (e) {
      throw notUtf8(e)
    }
    throwIfAborted(o.signal)
    if (next.done === true) break
    read += next.value.bytes
    const { tail } = next.value
    let text: string
    if (tail === undefined) {
      text = next.value.text
      // the pieces are whole lines: the lines before the next piece are those read so far
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++
    } else {
      // the bytes after the last newline: the last line, whole or torn
      text = ''
      if (format === undefined) {
        format = firstMark(head + lenient.decode(tail)) === '[' ? 'json' : 'jsonl'
        text = head
        head = ''
      }
      if (format === 'jsonl' && isTornTail(tail)) {
        // a torn last line, as a crash mid-append leaves it: dropped, as loadHistory drops it
        if (o.tornTail === 'fail')
          issues.push({
            path: `line ${lines + 1}`,
            expected: 'a complete last line',
            actual: '(a torn line: the file ends inside it, as after a crash mid-append)',
          })
      } else {
        try {
          text += decodeLines(tail)
        } catch (e) {
          throw notUtf8(e)
        }
      }
    }
    if (format === undefined) {
      // white space alone does not tell the format yet
      head += text
      const mark = firstMark(head)
      if (mark === undefined) continue
      format = mark === '[' ? 'json' : 'jsonl'
      text = head
    }
    if (format === 'json') whole.push(text)
    else yield* decode(split.push(text))
  }
  if (format === 'json') {
    const r = fromJSON(whole.join('').replace(/^\uFEFF/, ''))
    if (E.isLeft(r)) throw decodeError(r.left.slice(0, MAX_ISSUES), r.left.length > MAX_ISSUES)
    for (const { messages } of slicesOf(r.right, () => SLICE_CHARS)) yield { messages, total: r.right.length, decoding: false }
  } else {
    yield* decode(split.end())
    if (issues.length > 0) throw decodeError(issues, false)
    if (slice.length > 0) yield { messages: slice, total: decoded, decoding: false }
  }
}
