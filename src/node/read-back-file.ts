/**
 * Reading a pruned output back from a history kept as a JSONL file without reading the file: an
 * index of where each tool output's lines lie (`indexJSONL` of `chatfold/readback`), built once
 * and extended as the file grows, then a positioned read of only the lines that hold the
 * pointer's tool call.
 *
 * @module
 */
import { open, readFile, stat } from 'node:fs/promises'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { refOf } from '../history/pointer.ts'
import { fromPointerRef, type PointerRef } from '../readback/pointer-ref.ts'
import { formatReadBackFailure, type ReadBackFailure, type ReadBackOptions, type ReadBackPage } from '../readback/read-back.ts'
import { indexJSONL, type JSONLIndex, readBackFromLines } from '../readback/jsonl-index.ts'
import { ioError, type SessionFailure } from './atomic.ts'

/**
 * A JSONL history file indexed for reading back (see {@link indexHistoryFile}): its path, the
 * file's identity (device and inode) when indexed, and the index of its first `index.bytes` bytes.
 *
 * @example
 * import type { HistoryFileIndex } from 'chatfold/node'
 * declare const index: HistoryFileIndex
 * index.index.bytes // how much of the file it covers
 *
 * @since 0.1.0
 * @category read-back
 */
export type HistoryFileIndex = { readonly file: string; readonly dev: number; readonly ino: number; readonly index: JSONLIndex }

/**
 * Why an output could not be read back from a file: a read-back failure (`ReadBackFailure`: no
 * such output, or another one in its place), the file unreadable (`io`), or `stale`: the file is
 * no longer the one indexed (replaced, or shorter than the index: index it again).
 *
 * @example
 * import type { ReadBackFileFailure } from 'chatfold/node'
 * const f: ReadBackFileFailure = { kind: 'stale', file: 'chat.jsonl', message: 'the file was replaced since it was indexed' }
 *
 * @since 0.1.0
 * @category read-back
 */
export type ReadBackFileFailure = ReadBackFailure | SessionFailure | { readonly kind: 'stale'; readonly file: string; readonly message: string }

/**
 * A read-back-from-file failure as one line.
 *
 * @example
 * import { formatReadBackFileFailure } from 'chatfold/node'
 * formatReadBackFileFailure({ kind: 'stale', file: 'chat.jsonl', message: 'the file was replaced since it was indexed' })
 * // 'Cannot read back from chat.jsonl: the file was replaced since it was indexed (index it again)'
 *
 * @since 0.1.0
 * @category read-back
 */
export const formatReadBackFileFailure = (f: ReadBackFileFailure): string => {
  switch (f.kind) {
    case 'stale':
      return `Cannot read back from ${f.file}: ${f.message} (index it again)`
    case 'io':
      return `Cannot read back from ${f.file}: ${f.message}`
    case 'decode':
      return `Cannot read back from ${f.file}: it does not decode`
    case 'torn':
      return `Cannot read back from ${f.file}: line ${f.line} is torn`
    default:
      return formatReadBackFailure(f)
  }
}

/**
 * Indexes a history kept as JSONL (`saveHistory`, `appendHistory`) for reading back: the file is
 * read once, and the byte range of every line holding a tool output kept under its call id. Give
 * `previous`, an index of the same file made before it grew, to read only the bytes appended
 * since. Keep the index beside the file's path for as long as the file is read back from.
 *
 * @example
 * import { indexHistoryFile, readBackFromFile, saveHistory } from 'chatfold/node'
 * import { makeMessage, toolResult } from 'chatfold/message'
 * import { contentHash } from 'chatfold/readback'
 * const file = `${process.env['TMPDIR'] ?? '/tmp'}/chatfold-example-read-back.jsonl`
 * await saveHistory(file)([makeMessage({ id: 't1', role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: 'done' })] })])
 * const index = await indexHistoryFile(file)
 * if (index._tag === 'Right') {
 *   const page = await readBackFromFile({ toolCallId: 'c1', part: 'result', hash: contentHash('done') })(index.right)
 *   page._tag === 'Right' && page.right.text // 'done'
 * }
 *
 * @since 0.1.0
 * @category read-back
 */
export const indexHistoryFile = async (file: string, previous?: HistoryFileIndex): Promise<E.Either<ReadBackFileFailure, HistoryFileIndex>> => {
  try {
    const s = await stat(file)
    if (previous === undefined || previous.dev !== s.dev || previous.ino !== s.ino || s.size < previous.index.bytes) {
      return E.right({ file, dev: s.dev, ino: s.ino, index: indexJSONL(await readFile(file)) })
    }
    const h = await open(file, 'r')
    try {
      const from = previous.index.bytes
      const tail = new Uint8Array((await h.stat()).size - from)
      await readAll(h, tail, 0, tail.length, from)
      return E.right({ ...previous, index: indexJSONL(tail, previous.index) })
    } finally {
      await h.close()
    }
  } catch (e) {
    return E.left(ioError(file, e))
  }
}

type Handle = Awaited<ReturnType<typeof open>>

/** Reads `length` bytes at `position` into `into` at `offset`, however many reads it takes. */
const readAll = async (h: Handle, into: Uint8Array, offset: number, length: number, position: number): Promise<void> => {
  for (let done = 0; done < length;) {
    const { bytesRead } = await h.read(into, offset + done, length - done, position + done)
    if (bytesRead === 0) throw new Error(`the file ended at byte ${position + done}, before the ${length} bytes indexed there`)
    done += bytesRead
  }
}

const decoder = new TextDecoder()

/**
 * `readBack` from a JSONL history file through its index ({@link indexHistoryFile}): only the lines
 * that hold the pointer's tool call are read (positioned reads), decoded, and searched for the
 * output, which is checked against the pointer's hash, so that the page is the original's bytes or
 * a failure (never another text). A file replaced since it was indexed, or cut shorter, is `stale`;
 * one that grew is read as far as the index covers (extend the index to read what was appended).
 *
 * @example
 * import { indexHistoryFile, readBackFromFile } from 'chatfold/node'
 * declare const file: string
 * const index = await indexHistoryFile(file)
 * if (index._tag === 'Right') await readBackFromFile('call_1@0f3a9c21', { maxBytes: 16_000 })(index.right)
 *
 * @since 0.1.0
 * @category read-back
 */
export const readBackFromFile = (pointer: PointerRef | string, opts: ReadBackOptions = {}) =>
async (
  at: HistoryFileIndex,
): Promise<E.Either<ReadBackFileFailure, ReadBackPage>> => {
  const p = typeof pointer === 'string' ? fromPointerRef(pointer) : O.some(pointer)
  if (O.isNone(p)) return E.left({ kind: 'bad_ref', ref: typeof pointer === 'string' ? pointer : refOf(pointer) })
  const ranges = at.index.outputs.get(`${p.value.toolCallId}\u0000${p.value.part}`) ?? []
  const lines: string[] = []
  try {
    const h = await open(at.file, 'r')
    try {
      const s = await h.stat()
      if (s.dev !== at.dev || s.ino !== at.ino) return E.left({ kind: 'stale', file: at.file, message: 'the file was replaced since it was indexed' })
      if (s.size < at.index.bytes) {
        return E.left({ kind: 'stale', file: at.file, message: `the file holds ${s.size} bytes, fewer than the ${at.index.bytes} indexed` })
      }
      for (const [start, end] of ranges) {
        const bytes = new Uint8Array(end - start)
        await readAll(h, bytes, 0, end - start, start)
        lines.push(decoder.decode(bytes))
      }
    } finally {
      await h.close()
    }
  } catch (e) {
    return E.left(ioError(at.file, e))
  }
  return readBackFromLines(p.value, opts)(lines)
}
