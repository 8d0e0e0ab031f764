/**
 * A saved history read on the engine's side: a `Blob` of chatfold JSONL (one message a line, as
 * `toJSONL` and `saveHistory` write it) or of a JSON array of messages (as `toJSON` writes it). Only
 * the Blob's handle crosses from the caller's thread; its text is read, decoded and counted here.
 * JSONL is decoded line by line in slices of a few milliseconds, between which the work yields,
 * reports progress and checks its signal, and each slice is counted (on the counting pool) while the
 * next is decoded. Bad lines reject with a `TypeError` naming each by line. Private to the engine.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { Message, Messages } from '../message.ts'
import { decodeJSONLine, importJSON } from '../messages/codec.ts'
import type { DecodeIssue } from '../failure.ts'
import { jsonlLines } from '../internal/lines.ts'
import { throwIfAborted } from '../internal/abort.ts'
import { noop } from '../internal/function.ts'
import { decodeError, MAX_ISSUES } from './admit.ts'
import type { Counted } from './pool.ts'
import { budget, slicesOf, yieldToEventLoop } from './schedule.ts'

/** About how many characters of JSONL (or bytes of messages) each slice dealt for counting holds. */
const SLICE_CHARS = 128 * 1024

/** `u` when it is a `Blob` of this runtime (a `File` is one); a `TypeError` that says what it is otherwise. */
export const historyFile = (u: unknown): Blob => {
  if (typeof Blob === 'function' && u instanceof Blob) return u
  const what = u === null ? 'null' : Array.isArray(u) ? 'an array (open takes messages)' : typeof u === 'string' ? 'a string (wrap text in a Blob, or parse it with importJSONL and open the messages)' : typeof u
  throw new TypeError(`openFile takes a Blob of chatfold JSONL or of a JSON array of messages (a File, or await response.blob()); got ${what}`)
}

/** Options of `readHistoryFile`. */
export type ReadFileOptions = {
  readonly signal: AbortSignal
  /** Counts a slice of decoded messages; answers them with their tokens. `signal` stops it when the read fails. */
  readonly count: (messages: Messages, signal: AbortSignal) => Promise<Counted>
  /** Reports `(messages counted, about how many there are)` as slices are counted, and at the end. */
  readonly progress?: (done: number, total: number) => void
}

/** How many lines `text` has (a last line without a newline counts): about how many messages a JSONL text holds. */
const lineCount = (text: string): number => {
  let n = text.length > 0 && !text.endsWith('\n') ? 1 : 0
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++
  return n
}

/** Whether the text is a JSON array (its first character that is no white space nor byte-order mark is `[`). */
const isJsonArray = (text: string): boolean => /^[\s\uFEFF]*\[/.test(text.slice(0, 1024))

/**
 * Reads, decodes and counts the history in `file`. Rejects with a `TypeError` that names each bad
 * line (`line 3: role: expected …`; at most `MAX_ISSUES` issues), or with the signal's reason.
 */
export const readHistoryFile = async (file: Blob, o: ReadFileOptions): Promise<Counted> => {
  throwIfAborted(o.signal)
  const text = await file.text()
  throwIfAborted(o.signal)
  // stops the counting of slices already dealt, when a line is bad or the caller gives up
  const dealt = new AbortController()
  const onAbort = (): void => dealt.abort(o.signal.reason)
  o.signal.addEventListener('abort', onAbort, { once: true })
  const counted: Array<Promise<Counted>> = []
  let total = 0
  let done = 0
  const deal = (messages: Messages): void => {
    const p = o.count(messages, dealt.signal)
    counted.push(p)
    p.then((c) => {
      done += c.messages.length
      o.progress?.(done, Math.max(done, total))
    }, noop)
  }
  try {
    if (isJsonArray(text)) {
      const r = importJSON(text)
      if (E.isLeft(r)) throw decodeError(r.left.slice(0, MAX_ISSUES), r.left.length > MAX_ISSUES)
      total = r.right.length
      for (const { messages } of slicesOf(r.right, () => SLICE_CHARS)) deal(messages)
    } else {
      total = lineCount(text)
      const issues: DecodeIssue[] = []
      let more = false
      let slice: Message[] = []
      let from = 0
      const spent = budget()
      for (const line of jsonlLines(text)) {
        if (spent.spent()) {
          await yieldToEventLoop()
          throwIfAborted(o.signal)
          spent.reset()
        }
        const r = decodeJSONLine(line.text, line.n)
        if (E.isLeft(r)) {
          for (const issue of r.left) issues.push(issue)
          if (issues.length >= MAX_ISSUES) {
            more = true
            break
          }
          continue
        }
        if (issues.length > 0) continue
        slice.push(r.right)
        if (line.next - from >= SLICE_CHARS) {
          deal(slice)
          slice = []
          from = line.next
        }
      }
      if (issues.length > 0) throw decodeError(issues.slice(0, MAX_ISSUES), more)
      if (slice.length > 0) deal(slice)
    }
    const parts = await Promise.all(counted)
    const messages: Message[] = []
    let tokens = 0
    for (const part of parts) {
      for (const m of part.messages) messages.push(m)
      tokens += part.tokens
    }
    o.progress?.(messages.length, messages.length)
    return { messages, tokens }
  } catch (e) {
    dealt.abort(e)
    throw e
  } finally {
    o.signal.removeEventListener('abort', onAbort)
  }
}
