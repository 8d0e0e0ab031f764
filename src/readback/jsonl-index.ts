/**
 * Where each tool output of a history kept as JSONL lies in the file's bytes: built once from the
 * bytes, so that reading one output back reads only the lines that hold its tool call (a
 * positioned read, `chatfold/node`'s `readBackFromFile`) instead of the whole file.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { Message } from '../message/message.ts'
import { decodeJSONLine } from '../history/codec.ts'
import { parseJsonText } from '../internal/json.ts'
import { isObject } from '../internal/object.ts'
import { outputKey } from './history-index.ts'
import { readBack, type ReadBackFailure, type ReadBackOptions, type ReadBackPage } from './read-back.ts'
import type { PointerRef } from './pointer-ref.ts'

// --- model ---

/**
 * The byte ranges of a JSONL history's lines that hold tool outputs (see {@link indexJSONL}):
 * under each `toolCallId\0side`, the `[start, end)` of every line holding a tool call (its
 * arguments) or a tool result of that id, in file order; `bytes`, how many bytes of the file it
 * covers (up to the end of its last complete line: an index of a file that grew is extended from
 * there); `lines`, the lines read; `unreadable`, the 1-based numbers of the lines that are not a
 * message's JSON (passed over, as `readBackFromJSONL` passes them over).
 *
 * @example
 * import { indexJSONL, type JSONLIndex } from 'chatfold/readback'
 * const index: JSONLIndex = indexJSONL(new Uint8Array())
 * index.bytes // 0
 *
 * @since 0.1.0
 * @category read-back
 */
export type JSONLIndex = {
  readonly _tag: 'JSONLIndex'
  readonly outputs: ReadonlyMap<string, ReadonlyArray<readonly [number, number]>>
  readonly bytes: number
  readonly lines: number
  readonly unreadable: ReadonlyArray<number>
}

// --- building ---

const NEWLINE = 0x0a
const decoder = new TextDecoder()

/** The output keys a line's JSON holds (a tool call's arguments, a tool result), as the JSONL codec writes parts (`{ type, data }`). */
const keysOf = (u: unknown): ReadonlyArray<string> | undefined => {
  if (!isObject(u) || !Array.isArray(u['parts'])) return undefined
  const keys: string[] = []
  for (const p of u['parts'] as ReadonlyArray<unknown>) {
    if (!isObject(p) || !isObject(p['data'])) continue
    const d = p['data']
    if (p['type'] === 'tool_call' && typeof d['id'] === 'string') keys.push(outputKey(d['id'], 'arguments'))
    else if (p['type'] === 'tool_result' && typeof d['toolCallId'] === 'string') keys.push(outputKey(d['toolCallId'], 'result'))
  }
  return keys
}

/**
 * Indexes a history kept as JSONL (its bytes, as `saveHistory` and `appendHistory` of
 * `chatfold/node` write it): the byte range of every line holding a tool output, under the tool
 * call's id and side. To extend `previous`, an index of the same file made before it grew, give
 * only the bytes from its `bytes` on (what was written since, and a last line it found unfinished):
 * the ranges are kept as the file's offsets. Each line is parsed
 * once, as JSON (not decoded as a message); a line that does not parse is named in `unreadable`.
 *
 * @example
 * import { toJSONL } from 'chatfold/history'
 * import { makeMessage, toolResult } from 'chatfold/message'
 * import { indexJSONL } from 'chatfold/readback'
 * const file = new TextEncoder().encode(toJSONL([makeMessage({ id: 't1', role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: 'done' })] })]))
 * indexJSONL(file).outputs.get('c1\u0000result') // [[0, 134]]
 *
 * @since 0.1.0
 * @category read-back
 */
export const indexJSONL = (file: Uint8Array, previous?: JSONLIndex): JSONLIndex => {
  // the file's offset of file[0]
  const base = previous?.bytes ?? 0
  const outputs = new Map<string, Array<readonly [number, number]>>()
  // what the previous index read of an unterminated last line is read again, whole
  if (previous !== undefined) { for (const [k, v] of previous.outputs) outputs.set(k, v.filter(([s]) => s < base)) }
  const unreadable = previous === undefined ? [] : [...previous.unreadable]
  const add = (start: number, end: number): boolean => {
    const text = decoder.decode(file.subarray(start, end)).replace(/^\uFEFF/, '')
    if (text.trim() === '') return true
    const parsed = parseJsonText(text)
    const keys = E.isRight(parsed) ? keysOf(parsed.right) : undefined
    if (keys === undefined) return false
    for (const k of keys) {
      const xs = outputs.get(k)
      const range = [base + start, base + end] as const
      if (xs === undefined) outputs.set(k, [range])
      else if (xs[xs.length - 1]?.[0] !== range[0]) xs.push(range)
    }
    return true
  }
  let line = previous?.lines ?? 0
  let start = 0
  for (let nl = file.indexOf(NEWLINE, start); nl >= 0; nl = file.indexOf(NEWLINE, start)) {
    line++
    if (!add(start, nl)) unreadable.push(line)
    start = nl + 1
  }
  // a last line without its newline (a write under way, or a file written so) is indexed when it
  // parses, but not covered: an extension reads it again whole
  if (start < file.length) add(start, file.length)
  return { _tag: 'JSONLIndex', outputs, bytes: base + start, lines: line, unreadable }
}

// --- reading back ---

/**
 * `readBack` over the lines of a JSONL history that hold a tool call's outputs (as
 * {@link indexJSONL} finds them), in file order: each line decoded as a message (a line that does
 * not decode is passed over), the output then found and checked against the pointer's hash as
 * `readBack` does.
 *
 * @example
 * import { toJSONL } from 'chatfold/history'
 * import { makeMessage, toolResult } from 'chatfold/message'
 * import { readBackFromLines } from 'chatfold/readback'
 * const [line] = toJSONL([makeMessage({ id: 't1', role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: 'done' })] })]).split('\n')
 * readBackFromLines({ toolCallId: 'c1', part: 'result', hash: '0000000000000000' })([line!])._tag // 'Left'
 *
 * @since 0.1.0
 * @category read-back
 */
export const readBackFromLines = (pointer: PointerRef | string, opts: ReadBackOptions = {}) =>
(
  lines: ReadonlyArray<string>,
): E.Either<ReadBackFailure, ReadBackPage> => {
  const messages: Message[] = []
  lines.forEach((line, i) => {
    const d = decodeJSONLine(line, i + 1)
    if (E.isRight(d)) messages.push(d.right)
  })
  return readBack(pointer, opts)(messages)
}
