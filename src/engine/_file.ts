/**
 * A saved history opened on the engine's side: the Blob checked and made portable on the caller's
 * side, then read where the sessions are, each slice counted (on the counting pool) while the next
 * is decoded. Private to the engine.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import { readHistoryBlob } from '../history/blob.ts'
import { noop } from '../internal/function.ts'
import type { Counted } from './_pool.ts'

/** `u` if a Blob of this runtime (a File is one), a Blob of an `ArrayBuffer` (how an uncloneable Blob is sent), else a `TypeError` saying what it is. */
export const historyFile = (u: unknown): Blob => {
  if (typeof Blob === 'function' && u instanceof Blob) return u
  if (u instanceof ArrayBuffer) return new Blob([u])
  const what = u === null
    ? 'null'
    : Array.isArray(u)
    ? 'an array (open takes messages)'
    : typeof u === 'string'
    ? 'a string (wrap text in a Blob, or parse it with fromJSONL and open the messages)'
    : typeof u
  throw new TypeError(`openFile takes a Blob of chatfold JSONL or of a JSON array of messages (a File, or await response.blob()); got ${what}`)
}

/** What crosses to a worker for `file`: the Blob (a handle) where the runtime can clone it, else its bytes (Node's `fs.openAsBlob` Blobs cannot be cloned). */
export const portableFile = async (file: Blob): Promise<Blob | ArrayBuffer> => {
  try {
    structuredClone(file)
    return file
  } catch {
    return await file.arrayBuffer()
  }
}

export type ReadFileOptions = {
  readonly signal: AbortSignal
  /** Counts a slice, answering it with its tokens; `signal` stops it when the read fails; `dealing` tells if more are being decoded (`CountJob.dealing`). */
  readonly count: (messages: Messages, signal: AbortSignal, dealing: () => boolean) => Promise<Counted>
  /** Reports `(messages counted, about how many there are)` as slices are counted, and at the end. */
  readonly progress?: (done: number, total: number) => void
  /** A JSONL file's torn last line (a crash mid-append): dropped (the default), or reported. */
  readonly tornTail?: 'drop' | 'fail'
}

/** Reads, decodes and counts `file` (rejecting as `readHistoryBlob` throws), dealing each slice for counting once decoded: counting overlaps decoding. */
export const readHistoryFile = async (file: Blob, o: ReadFileOptions): Promise<Counted> => {
  // stops the counting of slices already dealt, when a line is bad or the caller gives up
  const dealt = new AbortController()
  const onAbort = (): void => dealt.abort(o.signal.reason)
  o.signal.addEventListener('abort', onAbort, { once: true })
  const counted: Array<Promise<Counted>> = []
  let done = 0
  let total = 0
  let decoding = true
  try {
    for await (const slice of readHistoryBlob(file, o)) {
      total = slice.total
      // nothing more to decode: from the last slice on, this thread counts as any lane
      decoding = slice.decoding
      const p = o.count(slice.messages, dealt.signal, () => decoding)
      counted.push(p)
      p.then((c) => {
        done += c.messages.length
        o.progress?.(done, Math.max(done, total))
      }, noop)
    }
    decoding = false
    const messages: Message[] = []
    let tokens = 0
    for (const part of await Promise.all(counted)) {
      for (const m of part.messages) messages.push(m)
      tokens += part.tokens
    }
    o.progress?.(messages.length, messages.length)
    return { messages, tokens }
  } catch (e) {
    dealt.abort(e)
    throw e
  } finally {
    decoding = false
    o.signal.removeEventListener('abort', onAbort)
  }
}
