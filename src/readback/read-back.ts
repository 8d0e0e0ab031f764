/**
 * Reading a pruned or cleared tool output back through its pointer: found by its tool call's id
 * (in its message first, when the pointer names one) in a history that still holds it — the
 * history before pruning, the archive a compaction returns, the history of a framework session
 * kept in the chat store —
 * checked against the pointer's hash, and answered a page at a time within a byte budget, so that
 * the pages put together are the original, byte for byte.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import type { Message, Messages } from '../message/message.ts'
import type { ToolCallPart, ToolResultPart } from '../message/part-model.ts'
import { toolResultText } from '../message/tool-result-content.ts'
import { utf8Hash } from '../internal/content-hash.ts'
import { nonNegativeInt } from '../internal/number.ts'
import { pointersOf, refOf } from '../history/pointer.ts'
import { fromPointerRef, type PointerRef } from './pointer-ref.ts'
import { type HistoryIndex, type IndexedOutput, isHistoryIndex, outputKey, type ReadBackSource } from './history-index.ts'

// --- model ---

/**
 * Options of {@link readBack}: the most UTF-8 bytes one answer holds (default 16,000), and the byte
 * offset to start at (default 0; a page's `next`).
 *
 * @example
 * import type { ReadBackOptions } from 'chatfold/readback'
 * const second: ReadBackOptions = { maxBytes: 8_000, offset: 8_000 }
 *
 * @since 0.1.0
 * @category read-back
 */
export type ReadBackOptions = { readonly maxBytes?: number; readonly offset?: number }

/**
 * One page of an output read back: where it was (message, call, side), the reference, the text of
 * bytes `[offset, offset + bytes)` of the original's UTF-8, the original's size in bytes, and
 * `next`, the offset of the next page (absent on the last).
 *
 * @example
 * import type { ReadBackPage } from 'chatfold/readback'
 * const page: ReadBackPage = { ref: 'call_1@0f3a9c21d4e5b687', messageId: 'm7', toolCallId: 'call_1', part: 'result', text: 'ok', offset: 0, bytes: 2, totalBytes: 2 }
 *
 * @since 0.1.0
 * @category read-back
 */
export type ReadBackPage = {
  readonly ref: string
  readonly messageId: string
  readonly toolCallId: string
  readonly part: 'result' | 'arguments'
  readonly text: string
  readonly offset: number
  readonly bytes: number
  readonly totalBytes: number
  readonly next?: number
}

/**
 * Why an output could not be read back: `bad_ref` (not a reference `toPointerRef` writes),
 * `not_found` (no message of the source holds the call's output), `changed` (the outputs found under
 * that call id are not the one pointed to: `found` says what each is, `pruned` when it is a
 * placeholder, i.e. the source is itself pruned), `bad_offset` (past the end, or inside a
 * character).
 *
 * @example
 * import type { ReadBackFailure } from 'chatfold/readback'
 * const f: ReadBackFailure = { kind: 'not_found', ref: 'call_9@0f3a9c21d4e5b687' }
 *
 * @since 0.1.0
 * @category read-back
 */
export type ReadBackFailure =
  | { readonly kind: 'bad_ref'; readonly ref: string }
  | { readonly kind: 'not_found'; readonly ref: string }
  | { readonly kind: 'changed'; readonly ref: string; readonly found: ReadonlyArray<{ readonly messageId: string; readonly state: 'pruned' | 'different' }> }
  | { readonly kind: 'bad_offset'; readonly ref: string; readonly offset: number; readonly totalBytes: number }

/**
 * A read-back failure as one line for people (and for the model that asked).
 *
 * @example
 * import { formatReadBackFailure } from 'chatfold/readback'
 * formatReadBackFailure({ kind: 'not_found', ref: 'call_9@0f3a9c21d4e5b687' })
 * // 'Cannot read back call_9@0f3a9c21d4e5b687: no message of this history holds that tool output'
 *
 * @since 0.1.0
 * @category read-back
 */
export const formatReadBackFailure = (f: ReadBackFailure): string => {
  const head = `Cannot read back ${f.ref}`
  switch (f.kind) {
    case 'bad_ref':
      return `${head}: not a reference (expected toolCallId@hash, as a placeholder shows it)`
    case 'not_found':
      return `${head}: no message of this history holds that tool output`
    case 'changed':
      return `${head}: the output is no longer there (${
        f.found.map((x) => `message ${JSON.stringify(x.messageId)} holds ${x.state === 'pruned' ? 'a placeholder' : 'a different output'}`).join('; ')
      })`
    case 'bad_offset':
      return `${head}: offset ${f.offset} is ${f.offset > f.totalBytes ? 'past the end' : 'inside a character'} of its ${f.totalBytes} bytes`
  }
}

// --- finding ---

/** A tool output of a history: its message, and its text as a pointer hashes it. */
type Found = { readonly message: Message; readonly text: string }

/** The outputs of message `m` under the pointer's call id and side. */
const outputsIn = (m: Message, p: PointerRef, out: Found[]): void => {
  for (const part of m.parts) {
    if (p.part === 'result' && part.type === 'tool_result' && (part as ToolResultPart).toolCallId === p.toolCallId)
      out.push({ message: m, text: toolResultText(part as ToolResultPart) })
    else if (p.part === 'arguments' && part.type === 'tool_call' && (part as ToolCallPart).id === p.toolCallId)
      out.push({ message: m, text: (part as ToolCallPart).arguments })
  }
}

/** The first found output whose hash is the pointer's (or begins with it: a reference shows the first 8 digits). */
const hashed = (p: PointerRef, found: ReadonlyArray<Found>, from: number): Found | undefined => {
  for (let k = from; k < found.length; k++) if (utf8Hash((found[k] as Found).text).startsWith(p.hash)) return found[k]
  return undefined
}

/** The answer when no output found under the call id is the one pointed to. */
const missing = (p: PointerRef, found: ReadonlyArray<Found>): E.Either<ReadBackFailure, Found> =>
  found.length === 0 ? E.left({ kind: 'not_found', ref: refOf(p) }) : E.left({
    kind: 'changed',
    ref: refOf(p),
    found: found.map((f) => ({ messageId: f.message.id, state: wasPruned(f.message, p) ? 'pruned' : 'different' })),
  })

/**
 * The original text a pointer names in `ms`: its message's first (when the pointer names one and
 * `ms` holds it), else every message's, newest first; the first whose hash is the pointer's (or begins with it: a reference shows the first 8 digits).
 */
const findOutput = (p: PointerRef) => (ms: Messages): E.Either<ReadBackFailure, Found> => {
  const found: Found[] = []
  if (p.messageId !== undefined) {
    const m = ms.find((x) => x.id === p.messageId)
    if (m !== undefined) outputsIn(m, p, found)
    const hit = hashed(p, found, 0)
    if (hit !== undefined) return E.right(hit)
  }
  for (let i = ms.length - 1; i >= 0; i--) {
    const m = ms[i] as Message
    if (m.id === p.messageId) continue
    const before = found.length
    outputsIn(m, p, found)
    const hit = hashed(p, found, before)
    if (hit !== undefined) return E.right(hit)
  }
  return missing(p, found)
}

/** {@link findOutput} over a prepared index: the same outputs in the same order, from its lookup of the call id. */
const findIndexed = (p: PointerRef) => (index: HistoryIndex): E.Either<ReadBackFailure, Found> => {
  const all = index.outputs.get(outputKey(p.toolCallId, p.part)) ?? []
  const found: Found[] = []
  if (p.messageId !== undefined) {
    const at = index.positions.get(p.messageId)
    if (at !== undefined) { for (const o of all) if (o.at === at) found.push(o) }
    const hit = hashed(p, found, 0)
    if (hit !== undefined) return E.right(hit)
  }
  // newest message first, each message's outputs in their order
  for (let end = all.length; end > 0;) {
    const at = (all[end - 1] as IndexedOutput).at
    let start = end - 1
    while (start > 0 && (all[start - 1] as IndexedOutput).at === at) start--
    if ((all[start] as IndexedOutput).message.id !== p.messageId) {
      const before = found.length
      for (let k = start; k < end; k++) found.push(all[k] as IndexedOutput)
      const hit = hashed(p, found, before)
      if (hit !== undefined) return E.right(hit)
    }
    end = start
  }
  return missing(p, found)
}

/** Whether `m` records that the output a pointer names was taken from it (its `metadata.pointers`). */
const wasPruned = (m: Message, p: PointerRef): boolean => pointersOf(m).some((q) => q.toolCallId === p.toolCallId && q.part === p.part)

// --- paging ---

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** Whether byte `b` continues a UTF-8 character (so no page starts or ends before it). */
const continues = (b: number | undefined): boolean => b !== undefined && (b & 0xc0) === 0x80

/**
 * Reads back the tool output a pointer names (a `PointerRef`, or its reference as a placeholder
 * shows it) from a history that still holds it: the history before pruning, the archive of a
 * compaction (`compact(…)`'s `archive`), or the history a framework session kept in the chat store
 * gives (`chatStoreSession(…).history()` of `chatfold/openai-agents`, `history(key)` of
 * `chatfold/claude-agent-sdk`'s session store: they keep tool outputs as they came, in message
 * metadata; a conversation's own chat content holds none, `getConversation` gives no tool output
 * to read back), or that history prepared once by `indexHistory` (the same answer, a lookup instead of a pass
 * over every message: give the index when reading back more than once).
 * Answers one page of at most `maxBytes` UTF-8 bytes from `offset`, never inside a character
 * (a page holds at least one character); put the pages together, from `next` to `next`, for the
 * original byte for byte. A pointer whose output is no longer there (only its placeholder, or
 * another output under the same call id) is a `changed` failure, never another text.
 *
 * @example
 * import { pruneToolResults, pointersOf } from 'chatfold/history'
 * import { indexHistory, readBack } from 'chatfold/readback'
 * import { makeMessage, toolCall, toolResult } from 'chatfold/message'
 * const history = [
 *   makeMessage({ id: 'a1', role: 'assistant', parts: [toolCall({ id: 'c1', name: 'read', arguments: '{}' })] }),
 *   makeMessage({ id: 't1', role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: 'x'.repeat(2_000) })] }),
 * ]
 * const pruned = pruneToolResults({ protectTokens: 0, minimumSavings: 0 })(history)
 * const [pointer] = pointersOf(pruned[1]!)
 * const page = readBack(pointer!, { maxBytes: 1_500 })(history)
 * page._tag === 'Right' && page.right.next // 1_500
 * const again = readBack(pointer!, { maxBytes: 1_500 })(indexHistory(history))
 * again._tag === 'Right' && again.right.next // 1_500
 *
 * @since 0.1.0
 * @category read-back
 */
export const readBack = (pointer: PointerRef | string, opts: ReadBackOptions = {}) => (source: ReadBackSource): E.Either<ReadBackFailure, ReadBackPage> => {
  const p = typeof pointer === 'string' ? fromPointerRef(pointer) : O.some(pointer)
  if (O.isNone(p) || !/^(?:[0-9a-f]{8}|[0-9a-f]{16})$/.test(p.value.hash))
    return E.left({ kind: 'bad_ref', ref: typeof pointer === 'string' ? pointer : refOf(pointer) })
  const found = isHistoryIndex(source) ? findIndexed(p.value)(source) : findOutput(p.value)(source)
  return E.isLeft(found) ? found : pageOf(p.value, found.right, opts)
}

/** The page of `f`'s text that `opts` asks for. */
const pageOf = (p: PointerRef, f: Found, opts: ReadBackOptions): E.Either<ReadBackFailure, ReadBackPage> => {
  const ref = refOf(p)
  const bytes = encoder.encode(f.text)
  const total = bytes.length
  const offset = nonNegativeInt(opts.offset, 0)
  if (offset > total || continues(bytes[offset])) return E.left({ kind: 'bad_offset', ref, offset, totalBytes: total })
  let end = Math.min(total, offset + Math.max(1, nonNegativeInt(opts.maxBytes, 16_000)))
  while (end > offset && continues(bytes[end])) end--
  // a budget smaller than the next character still gives that character
  if (end === offset && offset < total) {
    end++
    while (continues(bytes[end])) end++
  }
  const page: ReadBackPage = {
    ref,
    messageId: f.message.id,
    toolCallId: p.toolCallId,
    part: p.part,
    text: decoder.decode(bytes.subarray(offset, end)),
    offset,
    bytes: end - offset,
    totalBytes: total,
  }
  return E.right(end < total ? { ...page, next: end } : page)
}
