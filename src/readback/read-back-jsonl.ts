/**
 * Reading a pruned output back from a history kept as JSONL (a session file, as `saveHistory` of
 * `chatfold/node` writes it) without decoding the whole file: only the lines that name the pointer's
 * tool call id are decoded.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import type { Message } from '../message/message.ts'
import { fromJSONL } from '../history/codec.ts'
import { refOf } from '../history/pointer.ts'
import { fromPointerRef, type PointerRef } from './pointer-ref.ts'
import { readBack, type ReadBackFailure, type ReadBackOptions, type ReadBackPage } from './read-back.ts'

/**
 * `readBack` over a history written as JSONL, one message a line: the lines holding the tool call's
 * id (as a JSON string) are decoded, the others only searched, so that reading one output back from
 * a large session file costs about a search of its text. Lines that do not decode are passed over
 * (a line is only decoded when it names the id).
 *
 * @example
 * import { toJSONL } from 'chatfold/history'
 * import { makeMessage, toolResult } from 'chatfold/message'
 * import { readBackFromJSONL } from 'chatfold/readback'
 * const file = toJSONL([makeMessage({ id: 't1', role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: 'done' })] })])
 * const page = readBackFromJSONL({ toolCallId: 'c1', part: 'result', hash: '0000000000000000' })(file)
 * page._tag // 'Left'
 *
 * @since 0.1.0
 * @category read-back
 */
export const readBackFromJSONL = (pointer: PointerRef | string, opts: ReadBackOptions = {}) => (jsonl: string): E.Either<ReadBackFailure, ReadBackPage> => {
  const p = typeof pointer === 'string' ? fromPointerRef(pointer) : O.some(pointer)
  if (O.isNone(p)) return E.left({ kind: 'bad_ref', ref: typeof pointer === 'string' ? pointer : refOf(pointer) })
  const needle = JSON.stringify(p.value.toolCallId)
  const lines: string[] = []
  let lastStart = -1
  for (let i = jsonl.indexOf(needle); i >= 0; i = jsonl.indexOf(needle, i + needle.length)) {
    const start = jsonl.lastIndexOf('\n', i) + 1
    if (start === lastStart) continue
    lastStart = start
    const end = jsonl.indexOf('\n', i)
    lines.push(jsonl.slice(start, end < 0 ? jsonl.length : end))
  }
  const messages: Message[] = []
  for (const line of lines) {
    const d = fromJSONL(line)
    if (E.isRight(d)) messages.push(...d.right)
  }
  return readBack(p.value, opts)(messages)
}
