/**
 * Tool-call pairing: find and repair what providers reject. A history is valid when every tool
 * call of an assistant message is answered by exactly one tool result in the tool-role messages
 * that directly follow it (before the next user or assistant message), no result lacks such a
 * call, no call id is used twice, and no assistant message holds nothing but reasoning.
 *
 * Only tool calls of assistant messages and tool results of tool-role messages take part in
 * pairing; a result anywhere else is an orphan, and a call anywhere else is ignored. System
 * messages do not end a turn. Message kinds play no part: validate the view you send (`forLLM`).
 *
 * @module
 */
import { isToolCall, isToolResult } from '../message/part-make.ts'
import { type Part, type ToolCallPart, type ToolResultPart } from '../message/part-model.ts'
import type { Message, Messages } from '../message/message.ts'
import { hasSubstance } from './_substance.ts'
import { stringSet } from './_string-set.ts'
import { moveLateResults } from './_pairs-late.ts'

// --- model ---

/**
 * One pairing problem, located by message index and id:
 * - `missing_result`: a call with no result in the turn that follows it (at the call's message);
 * - `orphan_result`: a result with no call in its turn (at the result's message);
 * - `duplicate_id`: a call id used before, or a second result for one call (at the repeat);
 * - `reasoning_only`: an assistant message with nothing but reasoning.
 *
 * @example
 * import { validateToolPairs, type ToolPairIssue } from 'chatfold/history'
 * declare const history: import('chatfold').Messages
 * const missing = validateToolPairs(history).issues.filter((i): i is Extract<ToolPairIssue, { kind: 'missing_result' }> => i.kind === 'missing_result')
 *
 * @since 0.1.0
 * @category edits
 */
export type ToolPairIssue =
  | { readonly kind: 'missing_result'; readonly index: number; readonly messageId: string; readonly toolCallId: string; readonly name: string }
  | { readonly kind: 'orphan_result'; readonly index: number; readonly messageId: string; readonly toolCallId: string }
  | { readonly kind: 'duplicate_id'; readonly index: number; readonly messageId: string; readonly toolCallId: string }
  | { readonly kind: 'reasoning_only'; readonly index: number; readonly messageId: string }

/**
 * What `validateToolPairs` found: `valid` when there is no issue, and every issue in history order.
 *
 * @example
 * import { validateToolPairs, type ToolPairReport } from 'chatfold/history'
 * const report: ToolPairReport = validateToolPairs([])  // { valid: true, issues: [] }
 *
 * @since 0.1.0
 * @category edits
 */
export type ToolPairReport = { readonly valid: boolean; readonly issues: ReadonlyArray<ToolPairIssue> }

/**
 * What `repairToolPairs` changed.
 *
 * @example
 * import { repairToolPairs, type RepairReport } from 'chatfold/history'
 * declare const history: import('chatfold').Messages
 * const report: RepairReport = repairToolPairs(history).report
 * if (report.changed) console.log(`answered ${report.addedResults.length} interrupted calls`)
 *
 * @since 0.1.0
 * @category edits
 */
export type RepairReport = {
  /** Tool call ids given an "interrupted" error result. */
  readonly addedResults: ReadonlyArray<string>
  /** Tool call ids of orphan (or surplus) results removed. */
  readonly droppedResults: ReadonlyArray<string>
  /** Ids of messages removed: reasoning-only assistant messages and messages emptied by the repair. */
  readonly droppedMessages: ReadonlyArray<string>
  /**
   * Tool call ids whose result stood after a later turn and was moved back next to its call (present
   * only when there is one).
   */
  readonly movedResults?: ReadonlyArray<string>
  /** Whether anything changed (duplicate call ids are renamed, which only this flag reports). */
  readonly changed: boolean
}

// --- analysis ---

/** What to do to one part: drop it, or give it a new call id. */
type PartEdit = { readonly part: number; readonly rename: string | undefined }

type Plan = {
  readonly issues: ToolPairIssue[]
  readonly edits: Map<number, PartEdit[]>
  readonly dropped: Set<number>
  readonly inserts: Map<number, Message[]>
  readonly droppedResults: string[]
}

const interrupted = (turn: Message, id: string, name: string): Message => ({
  id: `interrupted-${id}`,
  role: 'tool',
  kind: 'normal',
  parts: [
    {
      type: 'tool_result',
      toolCallId: id,
      name,
      content: `The tool call ${name} (${id}) was interrupted before a result was recorded.`,
      isError: true,
    },
  ],
  ...(turn.conversationId === undefined ? {} : { conversationId: turn.conversationId }),
  metadata: { repaired: true },
})

/** Turns with more calls than this index them by id, so matching results stays linear. */
const INDEX_CALLS = 16

/**
 * One walk over the history: every issue, and the edits that would fix them. A valid history
 * allocates nothing per message: the open turn's calls live in arrays reused from turn to turn,
 * and the plan's maps are only written when something is wrong.
 */
const analyse = (ms: Messages): Plan => {
  const plan: Plan = { issues: [], edits: new Map(), dropped: new Set(), inserts: new Map(), droppedResults: [] }
  const seen = stringSet()
  let allIds: Set<string> | undefined

  // the open turn: its assistant message (index -1: none), the last tool message after it, and its calls
  let turn = -1
  let turnMessage: Message | undefined
  let last = -1
  let calls = 0
  const callIds: string[] = []
  const callNames: string[] = []
  const renamed: Array<string | undefined> = []
  let answered = new Uint8Array(16)
  let byId: Map<string, number[]> | undefined

  /** The first unanswered call of the turn with this id, else -2 when one exists but all are answered, else -1. */
  const findCall = (id: string): number => {
    let seenAnswered = false
    if (calls > INDEX_CALLS) {
      if (byId === undefined) {
        byId = new Map()
        for (let k = 0; k < calls; k++) {
          const list = byId.get(callIds[k] as string)
          if (list === undefined) byId.set(callIds[k] as string, [k])
          else list.push(k)
        }
      }
      for (const k of byId.get(id) ?? []) {
        if (answered[k] === 0) return k
        seenAnswered = true
      }
    } else {
      for (let k = 0; k < calls; k++) {
        if (callIds[k] !== id) continue
        if (answered[k] === 0) return k
        seenAnswered = true
      }
    }
    return seenAnswered ? -2 : -1
  }

  const edit = (i: number, e: PartEdit): void => {
    const list = plan.edits.get(i)
    if (list === undefined) plan.edits.set(i, [e])
    else list.push(e)
  }
  const fresh = (id: string): string => {
    if (allIds === undefined) {
      allIds = new Set()
      for (const m of ms) if (m.role === 'assistant') { for (const p of m.parts) if (isToolCall(p)) allIds.add(p.id) }
    }
    let k = 2
    while (allIds.has(`${id}_${k}`) || seen.has(`${id}_${k}`)) k++
    return `${id}_${k}`
  }
  const close = (): void => {
    if (turn < 0) return
    const m = turnMessage as Message
    let added: Message[] | undefined
    for (let k = 0; k < calls; k++) {
      if (answered[k] === 1) continue
      const id = callIds[k] as string
      const name = callNames[k] as string
      plan.issues.push({ kind: 'missing_result', index: turn, messageId: m.id, toolCallId: id, name })
      ;(added ??= []).push(interrupted(m, renamed[k] ?? id, name))
    }
    if (added !== undefined) plan.inserts.set(last, added)
    turn = -1
    turnMessage = undefined
  }
  const orphan = (i: number, m: Message, j: number, id: string): void => {
    plan.issues.push({ kind: 'orphan_result', index: i, messageId: m.id, toolCallId: id })
    plan.droppedResults.push(id)
    edit(i, { part: j, rename: undefined })
  }

  for (let i = 0; i < ms.length; i++) {
    const m = ms[i] as Message
    const ps = m.parts
    if (m.role === 'assistant') {
      close()
      calls = 0
      byId = undefined
      let reasoning = false
      let substance = false // set by any part but text, reasoning and finish; text is read only if it matters
      for (let j = 0; j < ps.length; j++) {
        const p = ps[j] as Part
        const type = p.type
        if (type === 'reasoning') {
          reasoning = true
          continue
        }
        if (type === 'text' || type === 'finish') continue
        substance = true
        if (type === 'tool_result') orphan(i, m, j, (p as ToolResultPart).toolCallId)
        if (type !== 'tool_call') continue
        const id = (p as ToolCallPart).id
        let rename: string | undefined
        if (!seen.add(id)) {
          plan.issues.push({ kind: 'duplicate_id', index: i, messageId: m.id, toolCallId: id })
          rename = fresh(id)
          seen.add(rename)
          edit(i, { part: j, rename })
        }
        if (calls === answered.length) {
          const grown = new Uint8Array(calls * 2)
          grown.set(answered)
          answered = grown
        }
        callIds[calls] = id
        callNames[calls] = (p as ToolCallPart).name
        renamed[calls] = rename
        answered[calls] = 0
        calls++
      }
      if (reasoning && !substance && !hasSubstance(ps)) {
        // nothing but reasoning (so no call was registered above)
        plan.issues.push({ kind: 'reasoning_only', index: i, messageId: m.id })
        plan.dropped.add(i)
        continue
      }
      turn = i
      turnMessage = m
      last = i
    } else {
      if (m.role === 'user') close()
      const isToolMessage = m.role === 'tool'
      for (let j = 0; j < ps.length; j++) {
        const p = ps[j] as Part
        if (p.type !== 'tool_result') continue
        const id = (p as ToolResultPart).toolCallId
        const k = isToolMessage && turn >= 0 ? findCall(id) : -1
        if (k === -1) {
          orphan(i, m, j, id)
          continue
        }
        if (k === -2) {
          plan.issues.push({ kind: 'duplicate_id', index: i, messageId: m.id, toolCallId: id })
          plan.droppedResults.push(id)
          edit(i, { part: j, rename: undefined })
          continue
        }
        answered[k] = 1
        const r = renamed[k]
        if (r !== undefined) edit(i, { part: j, rename: r })
      }
      if (isToolMessage && turn >= 0) last = i
    }
  }
  close()
  return plan
}

// --- pairing ---

/**
 * Checks that every tool call is answered exactly once, right after it, and reports each problem
 * (providers reject such a request; see the module notes).
 *
 * @example
 * import { makeMessage, toolCall, validateToolPairs } from 'chatfold'
 * validateToolPairs([makeMessage({ id: 'a1', role: 'assistant', parts: [toolCall({ id: 'c1', name: 'ls' })] })])
 * // { valid: false, issues: [{ kind: 'missing_result', index: 0, messageId: 'a1', toolCallId: 'c1', name: 'ls' }] }
 *
 * @since 0.1.0
 * @category edits
 */
export const validateToolPairs = (ms: Messages): ToolPairReport => {
  const { issues } = analyse(ms)
  return { valid: issues.length === 0, issues }
}

const applyEdits = (m: Message, edits: ReadonlyArray<PartEdit>): Message => {
  const parts: Part[] = []
  for (let j = 0; j < m.parts.length; j++) {
    const p = m.parts[j] as Part
    const e = edits.find((x) => x.part === j)
    if (e === undefined) parts.push(p)
    else if (e.rename !== undefined) parts.push(isToolCall(p) ? { ...p, id: e.rename } : isToolResult(p) ? { ...p, toolCallId: e.rename } : p)
  }
  return { ...m, parts }
}

/**
 * Makes a history valid and says what it changed: each unanswered call gets a tool-role `normal`
 * message with an error result saying it was interrupted (`metadata: { repaired: true }`, after the
 * turn's existing results); orphan and surplus results are removed; a repeated call id is renamed
 * (`id_2`, …) along with its results; reasoning-only assistant messages, and messages the repair
 * leaves with nothing to say, are removed. A result that exists is never replaced: one recorded after
 * a later turn began is moved back to the end of its call's turn (`movedResults`) before anything is
 * judged missing. A valid history comes back as the very same array.
 *
 * @example
 * import { makeMessage, repairToolPairs, toolCall } from 'chatfold'
 * const { messages, report } = repairToolPairs([makeMessage({ role: 'assistant', parts: [toolCall({ id: 'c1', name: 'ls' })] })])
 * report.addedResults // ['c1']
 * messages.length // 2
 *
 * @since 0.1.0
 * @category edits
 */
export const repairToolPairs = (input: Messages): { readonly messages: Messages; readonly report: RepairReport } => {
  const first = analyse(input)
  if (first.issues.length === 0) return { messages: input, report: { addedResults: [], droppedResults: [], droppedMessages: [], changed: false } }
  const late = moveLateResults(input, first.issues)
  const ms = late === undefined ? input : late.messages
  const plan = late === undefined ? first : analyse(ms)
  const movedResults = late === undefined ? {} : { movedResults: late.moved }
  const out: Message[] = []
  const addedResults: string[] = []
  const droppedMessages: string[] = [...(late?.emptied ?? [])]
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i] as Message
    if (plan.dropped.has(i)) droppedMessages.push(m.id)
    else {
      const edits = plan.edits.get(i)
      const next = edits === undefined ? m : applyEdits(m, edits)
      if (next.parts.length < m.parts.length && !hasSubstance(next.parts)) droppedMessages.push(m.id)
      else out.push(next)
    }
    const added = plan.inserts.get(i)
    if (added === undefined) continue
    for (const a of added) {
      out.push(a)
      const p = a.parts[0]
      if (p !== undefined && isToolResult(p)) addedResults.push(p.toolCallId)
    }
  }
  return { messages: out, report: { addedResults, droppedResults: plan.droppedResults, droppedMessages, ...movedResults, changed: true } }
}
