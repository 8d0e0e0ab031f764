/**
 * Sessions on disk (part of `chatfold/node`): a history or a whole chat store saved as JSONL and
 * loaded back with every line decoded and validated (errors name the line).
 *
 * - Saves are atomic: the new content goes to a temporary file in the same directory, which is
 *   flushed (`fsync`), renamed over the old file, and the directory flushed in turn. A crash at any
 *   moment leaves either the old file or the new one, never a mix.
 * - Long sessions can grow by appending instead (`appendHistory`): the new lines are appended and
 *   flushed. A crash mid-append can leave a torn last line (a line without its newline that is not
 *   JSON). Loading drops it by default (`tornTail: 'fail'` reports it instead), and the next append
 *   cuts it off before writing, so the file is whole again.
 *
 * Every function resolves to an `Either`; none rejects.
 *
 * @module
 */
import { open, readFile, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../message/failure.ts'
import type { Messages } from '../message/message.ts'
import { fromJSONL, toJSONL } from '../history/codec.ts'
import { forSave } from '../history/views.ts'
import { invalidUtf8Line, isTornTail, jsonlLines } from '../internal/lines.ts'
import type { ChatState } from '../store/state.ts'
import { fromStoreMessages, toStoreMessages } from '../store/persist.ts'
import { ioError, removeStaleTemps, type SessionFailure, syncDirectory, writeAtomic } from './atomic.ts'

export { formatSessionFailure, type SessionFailure, writeAtomic } from './atomic.ts'

// --- errors ---

/**
 * What to do with a torn last line on load: drop it (the default: it is what a crash mid-append
 * leaves, and the complete lines before it are intact) or fail with a `torn` error.
 *
 * @since 0.1.0
 * @category fs
 */
export type TornTail = 'drop' | 'fail'

/**
 * Options of a load.
 *
 * @since 0.1.0
 * @category fs
 */
export type LoadOptions = { readonly tornTail?: TornTail }

/** Encodes, then writes atomically; a value that cannot be encoded resolves to an `io` error naming why (the promise never rejects, and nothing is written). */
const writeEncoded = (file: string, encode: () => string): Promise<E.Either<SessionFailure, void>> => {
  let text: string
  try {
    text = encode()
  } catch (e) {
    return Promise.resolve(E.left({ kind: 'io', file, message: `Cannot encode the file's contents: ${e instanceof Error ? e.message : String(e)}` }))
  }
  return writeAtomic(file, text)
}

// --- writing ---

/**
 * Saves a history as JSONL, atomically: the messages `forSave` keeps (ephemeral ones are not
 * saved), one per line.
 *
 * @example
 * import { textMessage } from 'chatfold'
 * import { saveHistory } from 'chatfold/node'
 * await saveHistory('session.jsonl')([textMessage('user', 'hi')])
 *
 * @since 0.1.0
 * @category fs
 */
export const saveHistory = (file: string) => (ms: Messages): Promise<E.Either<SessionFailure, void>> => writeEncoded(file, () => toJSONL(forSave(ms)))

/**
 * Saves a whole chat store as JSONL, atomically (`toStoreMessages`: a header line with every
 * conversation's metadata and counters, then one line per held message).
 *
 * @example
 * import { emptyState } from 'chatfold/store'
 * import { saveStore } from 'chatfold/node'
 * await saveStore('store.jsonl')(emptyState())
 *
 * @since 0.1.0
 * @category fs
 */
export const saveStore = (file: string) => (state: ChatState): Promise<E.Either<SessionFailure, void>> =>
  writeEncoded(file, () => toJSONL(forSave(toStoreMessages(state))))

// --- reading ---

const NEWLINE = 0x0a
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Splits a file into its complete text and a torn tail (a last line without newline that is not JSON). */
const splitTorn = (bytes: Uint8Array): { readonly text: string; readonly torn: boolean } | undefined => {
  const cut = bytes.lastIndexOf(NEWLINE) + 1
  const torn = cut < bytes.length && isTornTail(bytes.subarray(cut))
  try {
    return { text: utf8.decode(torn ? bytes.subarray(0, cut) : bytes), torn }
  } catch {
    return undefined
  }
}

const countLines = (text: string): number => {
  let n = 1
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++
  return n
}

/** Reads a JSONL file's complete text, with the torn-tail policy. */
const readText = async (file: string, options: LoadOptions): Promise<E.Either<SessionFailure, string>> => {
  await removeStaleTemps(file)
  let bytes: Uint8Array
  try {
    bytes = await readFile(file)
  } catch (e) {
    return E.left(ioError(file, e))
  }
  const split = splitTorn(bytes)
  if (split === undefined)
    return E.left({ kind: 'decode', file, failure: [{ path: `line ${invalidUtf8Line(bytes)}`, expected: 'UTF-8 text', actual: '(invalid UTF-8)' }] })
  if (split.torn && options.tornTail === 'fail') return E.left({ kind: 'torn', file, line: countLines(split.text) })
  return E.right(split.text)
}

const decodeLines = (file: string, text: string): E.Either<SessionFailure, Messages> =>
  E.mapLeft((failure: DecodeFailure): SessionFailure => ({ kind: 'decode', file, failure }))(fromJSONL(text))

/** Reads a JSONL file into messages, with the torn-tail policy. */
const readLines = async (file: string, options: LoadOptions): Promise<E.Either<SessionFailure, Messages>> => {
  const text = await readText(file, options)
  return E.isLeft(text) ? text : decodeLines(file, text.right)
}

/** The 1-based line of each message of a JSONL text: the lines that are not blank, as fromJSONL reads them. */
const messageLines = (text: string): number[] => jsonlLines(text).map((line) => line.n)

/**
 * Loads a history saved as JSONL, decoding and validating every line (`line 12: role: expected …`).
 * A torn last line left by a crash mid-append is dropped, or reported with `tornTail: 'fail'`.
 *
 * @example
 * import { loadHistory } from 'chatfold/node'
 * const r = await loadHistory('session.jsonl')
 * if (r._tag === 'Right') console.log(r.right.length)
 *
 * @since 0.1.0
 * @category fs
 */
export const loadHistory = (file: string, options: LoadOptions = {}): Promise<E.Either<SessionFailure, Messages>> => readLines(file, options)

/**
 * Loads a chat store saved with `saveStore`, checking every line and the state's invariants;
 * paths in a failure start with the line (`line 3: metadata.chat.content`).
 *
 * @example
 * import { loadStore } from 'chatfold/node'
 * const r = await loadStore('store.jsonl')
 *
 * @since 0.1.0
 * @category fs
 */
export const loadStore = async (file: string, options: LoadOptions = {}): Promise<E.Either<SessionFailure, ChatState>> => {
  const text = await readText(file, options)
  if (E.isLeft(text)) return text
  const lines = decodeLines(file, text.right)
  if (E.isLeft(lines)) return lines
  // message i stands on the i-th line that is not blank (blank lines are skipped, not counted out)
  const at = messageLines(text.right)
  const toLines = (f: DecodeFailure): DecodeFailure =>
    f.map((i) => {
      const m = /^\[(\d+)\]\.?(.*)$/.exec(i.path)
      return m === null ? i : { ...i, path: `line ${at[Number(m[1])] ?? Number(m[1]) + 1}: ${m[2] ?? ''}`.replace(/: $/, '') }
    })
  return E.mapLeft((f: DecodeFailure): SessionFailure => ({ kind: 'decode', file, failure: toLines(f) }))(fromStoreMessages(lines.right))
}

// --- appending ---

const TAIL_CHUNK = 64 * 1024

/**
 * Appends messages to a history file (created when absent), the long-session mode: only the new
 * lines are written (`forSave` applies), then flushed. A torn last line left by an earlier crash
 * is cut off first, and a complete last line without its newline gets one, so the file stays
 * valid JSONL.
 *
 * @example
 * import { textMessage } from 'chatfold'
 * import { appendHistory } from 'chatfold/node'
 * await appendHistory('session.jsonl')([textMessage('assistant', 'Done.')])
 *
 * @since 0.1.0
 * @category fs
 */
export const appendHistory = (file: string) => async (ms: Messages): Promise<E.Either<SessionFailure, void>> => {
  const data = toJSONL(forSave(ms))
  let existed = true
  try {
    await stat(file)
  } catch {
    existed = false
  }
  try {
    const fh = await open(file, 'a+', 0o644)
    try {
      const size = (await fh.stat()).size
      let prefix = ''
      if (size > 0) {
        const last = Buffer.alloc(1)
        await fh.read(last, 0, 1, size - 1)
        if (last[0] !== NEWLINE) {
          // find the start of the last line, reading backwards
          let start = 0
          let tail = Buffer.alloc(0)
          for (let end = size; end > 0;) {
            const from = Math.max(0, end - TAIL_CHUNK)
            const chunk = Buffer.alloc(end - from)
            await fh.read(chunk, 0, chunk.length, from)
            tail = Buffer.concat([chunk, tail])
            const nl = chunk.lastIndexOf(NEWLINE)
            if (nl >= 0) {
              start = from + nl + 1
              tail = tail.subarray(nl + 1)
              break
            }
            end = from
          }
          if (isTornTail(tail)) await fh.truncate(start)
          else prefix = '\n'
        }
      }
      if (prefix !== '' || data !== '') {
        await fh.writeFile(prefix + data)
        await fh.sync()
      }
    } finally {
      await fh.close()
    }
    if (!existed) await syncDirectory(dirname(file))
    return E.right(undefined)
  } catch (e) {
    return E.left(ioError(file, e))
  }
}
