/**
 * A history prepared once for reading back and searching: its tool outputs by call id and side,
 * its message positions by id, and its searchable parts with their text lower-cased, so that
 * `readBack` and `searchHistory` over it cost a lookup, not a pass over every message.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import type { Part, ToolCallPart, ToolResultPart } from '../message/part-model.ts'
import { toolResultText } from '../message/tool-result-content.ts'
import { pointersOf } from '../history/pointer.ts'

// --- model ---

/** A tool output of a history: its message, the message's position, and its text as a pointer hashes it. */
export type IndexedOutput = { readonly message: Message; readonly at: number; readonly text: string }

/** A searchable part: its message, where its text is, the text, the tool call's id and tool name. */
export type IndexedPart = {
  readonly message: Message
  readonly where: 'text' | 'result' | 'arguments'
  readonly text: string
  readonly call?: string
  readonly tool?: string
}

/**
 * A history prepared for `readBack` and `searchHistory` (see {@link indexHistory}): the messages
 * as given, the outputs under each `toolCallId\0side` in history order, the first position of each
 * message id, the searchable parts in history order, and their texts lower-cased end to end in
 * `segments` (each text followed by a NUL; the `k`th begins at `starts[k]` and is part `parts[k]`):
 * one segment for the texts of Latin-1 only, one for the others, so that the first is searched a
 * byte a character. Immutable: a new history is a new index.
 *
 * @example
 * import { indexHistory, type HistoryIndex } from 'chatfold/readback'
 * const index: HistoryIndex = indexHistory([])
 * index.messages.length // 0
 *
 * @since 0.1.0
 * @category read-back
 */
export type HistoryIndex = {
  readonly _tag: 'HistoryIndex'
  readonly messages: Messages
  readonly outputs: ReadonlyMap<string, ReadonlyArray<IndexedOutput>>
  readonly positions: ReadonlyMap<string, number>
  readonly parts: ReadonlyArray<IndexedPart>
  readonly segments: ReadonlyArray<LowerSegment>
}

/** Lower-cased texts end to end, each followed by a NUL: where each begins, and whose part it is. */
export type LowerSegment = { readonly lower: string; readonly starts: ReadonlyArray<number>; readonly parts: ReadonlyArray<number> }

/**
 * What `readBack`, `searchHistory` and the read-back tools read from: a history, or a history
 * prepared once by {@link indexHistory} (the same answers, without a pass over every message).
 *
 * @example
 * import { indexHistory, type ReadBackSource } from 'chatfold/readback'
 * const sources: ReadonlyArray<ReadBackSource> = [[], indexHistory([])]
 *
 * @since 0.1.0
 * @category read-back
 */
export type ReadBackSource = Messages | HistoryIndex

/** Whether a source is a prepared index (else a history). */
export const isHistoryIndex = (s: ReadBackSource): s is HistoryIndex => !Array.isArray(s)

// --- building ---

/** The key of a tool output: its call id and side. */
export const outputKey = (toolCallId: string, side: 'result' | 'arguments'): string => `${toolCallId}\u0000${side}`

/** A character past Latin-1 (a string holding one takes two bytes a character). */
const WIDE = /[\u0100-\uffff]/

/** The outputs taken from `m` by a prune or a clearing (its `metadata.pointers`), as output keys; `undefined` when none. */
const takenFrom = (m: Message): ReadonlySet<string> | undefined => {
  if (m.metadata === undefined) return undefined
  const ps = pointersOf(m)
  return ps.length === 0 ? undefined : new Set(ps.map((p) => outputKey(p.toolCallId, p.part)))
}

/**
 * The searchable parts of a history in order (text parts, tool results, tool-call arguments; not
 * placeholders, whose outputs a message's `metadata.pointers` lists), each given to `visit` with
 * its tool's name as known at that point of the history (a result without a name takes its
 * call's).
 */
export const forEachSearchable = (ms: Messages, visit: (p: IndexedPart) => void): void => {
  const names = new Map<string, string>()
  for (const m of ms) {
    const taken = takenFrom(m)
    for (const p of m.parts as ReadonlyArray<Part>) {
      if (p.type === 'text') visit({ message: m, where: 'text', text: p.text })
      else if (p.type === 'tool_call') {
        const c = p as ToolCallPart
        names.set(c.id, c.name)
        if (taken?.has(outputKey(c.id, 'arguments')) !== true) visit({ message: m, where: 'arguments', text: c.arguments, call: c.id, tool: c.name })
      } else if (p.type === 'tool_result') {
        const r = p as ToolResultPart
        if (taken?.has(outputKey(r.toolCallId, 'result')) === true) continue
        const tool = r.name ?? names.get(r.toolCallId)
        visit({ message: m, where: 'result', text: toolResultText(r), call: r.toolCallId, ...(tool === undefined ? {} : { tool }) })
      }
    }
  }
}

/**
 * Prepares a history once for reading back and searching: every tool output under its call id and
 * side, the position of each message id, and the searchable text of every part lower-cased, so that
 * each `readBack` is a lookup and each `searchHistory` for a plain text (ASCII, any case) scans
 * only the blocks of lower-cased text that may hold it (a filter of their three-character runs,
 * made on the first such search: 2 bits a character) and counts its matches there, the
 * pattern run only where the lower-cased text cannot tell them. Give the index wherever a history is taken (`readBack(ref)(index)`,
 * `searchHistory(opts)(index)`, the tools' `source`); the answers are the ones the history gives.
 * It holds the history's texts a second time (lower-cased): keep one per history, not one per
 * question.
 *
 * @example
 * import { indexHistory, readBack, searchHistory } from 'chatfold/readback'
 * import { makeMessage, toolCall, toolResult } from 'chatfold/message'
 * const history = [
 *   makeMessage({ id: 'a1', role: 'assistant', parts: [toolCall({ id: 'c1', name: 'bash', arguments: '{"cmd":"npm test"}' })] }),
 *   makeMessage({ id: 't1', role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: 'Error: ENOENT' })] }),
 * ]
 * const index = indexHistory(history)
 * const [hit] = searchHistory({ query: 'enoent' })(index).hits
 * const page = readBack(hit!.ref!)(index)
 * page._tag === 'Right' && page.right.text // 'Error: ENOENT'
 *
 * @since 0.1.0
 * @category read-back
 */
export const indexHistory = (ms: Messages): HistoryIndex => {
  const outputs = new Map<string, IndexedOutput[]>()
  const positions = new Map<string, number>()
  const add = (key: string, o: IndexedOutput): void => {
    const xs = outputs.get(key)
    if (xs === undefined) outputs.set(key, [o])
    else xs.push(o)
  }
  ms.forEach((m, at) => {
    if (!positions.has(m.id)) positions.set(m.id, at)
    for (const p of m.parts as ReadonlyArray<Part>) {
      if (p.type === 'tool_result') add(outputKey((p as ToolResultPart).toolCallId, 'result'), { message: m, at, text: toolResultText(p as ToolResultPart) })
      else if (p.type === 'tool_call') add(outputKey((p as ToolCallPart).id, 'arguments'), { message: m, at, text: (p as ToolCallPart).arguments })
    }
  })
  const parts: IndexedPart[] = []
  const narrow = { lowers: [] as string[], starts: [] as number[], parts: [] as number[], at: 0 }
  const wide = { lowers: [] as string[], starts: [] as number[], parts: [] as number[], at: 0 }
  forEachSearchable(ms, (p) => {
    const lower = p.text.toLowerCase()
    const seg = WIDE.test(lower) ? wide : narrow
    seg.parts.push(parts.push(p) - 1)
    seg.starts.push(seg.at)
    seg.lowers.push(lower)
    seg.at += lower.length + 1
  })
  const segments = [narrow, wide].map((g) => ({ lower: g.lowers.join('\u0000') + '\u0000', starts: g.starts, parts: g.parts }))
  return { _tag: 'HistoryIndex', messages: ms, outputs, positions, parts, segments }
}
