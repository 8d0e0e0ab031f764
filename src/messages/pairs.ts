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
import { isToolCall, isToolResult, type Part } from '../part.ts'
import type { Message, Messages } from '../message.ts'
import { hasSubstance } from './shared.ts'

// --- model ---

/**
 * One pairing problem, located by message index and id:
 * - `missing_result`: a call with no result in the turn that follows it (at the call's message);
 * - `orphan_result`: a result with no call in its turn (at the result's message);
 * - `duplicate_id`: a call id used before, or a second result for one call (at the repeat);
 * - `reasoning_only`: an assistant message with nothing but reasoning.
 *
 * @example
 * import { validateToolPairs, type ToolPairIssue } from 'chatfold'
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
 * import { validateToolPairs, type ToolPairReport } from 'chatfold'
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
 * import { repairToolPairs, type RepairReport } from 'chatfold'
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
  /** Whether anything changed (duplicate call ids are renamed, which only this flag reports). */
  readonly changed: boolean
}

// --- analysis ---

type Call = { readonly id: string; readonly name: string; answered: boolean; readonly renamed: string | undefined }

type Turn = { readonly index: number; readonly message: Message; readonly calls: Call[]; last: number; byId?: Map<string, Call[]> }

/** The first unanswered call of the turn with this id, else `true` when one exists but all are answered, else `undefined`. */
const findCall = (turn: Turn, id: string): Call | true | undefined => {
  let same: ReadonlyArray<Call> = turn.calls
  if (turn.calls.length > 16) {
    // a turn with many calls: index them once, so matching stays linear
    if (turn.byId === undefined) {
      turn.byId = new Map()
      for (const c of turn.calls) {
        const list = turn.byId.get(c.id)
        if (list === undefined) turn.byId.set(c.id, [c])
        else list.push(c)
      }
    }
    same = turn.byId.get(id) ?? []
  }
  let seen = false
  for (const c of same) {
    if (c.id !== id) continue
    if (!c.answered) return c
    seen = true
  }
  return seen ? true : undefined
}

/** What to do to one part: drop it, or give it a new call id. */
type PartEdit = { readonly part: number; readonly rename: string | undefined }

type Plan = {
  readonly issues: ToolPairIssue[]
  readonly edits: Map<number, PartEdit[]>
  readonly dropped: Set<number>
  readonly inserts: Map<number, Message[]>
  readonly droppedResults: string[]
}

const interrupted = (turn: Turn, call: Call): Message => {
  const id = call.renamed ?? call.id
  return {
    id: `interrupted-${id}`,
    role: 'tool',
    kind: 'normal',
    parts: [
      {
        type: 'tool_result',
        toolCallId: id,
        name: call.name,
        content: `The tool call ${call.name} (${id}) was interrupted before a result was recorded.`,
        isError: true,
      },
    ],
    ...(turn.message.conversationId === undefined ? {} : { conversationId: turn.message.conversationId }),
    metadata: { repaired: true },
  }
}

/** One walk over the history: every issue, and the edits that would fix them. */
const analyse = (ms: Messages): Plan => {
  const plan: Plan = { issues: [], edits: new Map(), dropped: new Set(), inserts: new Map(), droppedResults: [] }
  const seen = new Set<string>()
  let allIds: Set<string> | undefined
  let turn: Turn | undefined

  const edit = (i: number, e: PartEdit): void => {
    const list = plan.edits.get(i)
    if (list === undefined) plan.edits.set(i, [e])
    else list.push(e)
  }
  const fresh = (id: string): string => {
    if (allIds === undefined) {
      allIds = new Set()
      for (const m of ms) if (m.role === 'assistant') for (const p of m.parts) if (isToolCall(p)) allIds.add(p.id)
    }
    let k = 2
    while (allIds.has(`${id}_${k}`) || seen.has(`${id}_${k}`)) k++
    return `${id}_${k}`
  }
  const close = (): void => {
    if (turn === undefined) return
    let added: Message[] | undefined
    for (const call of turn.calls) {
      if (call.answered) continue
      plan.issues.push({ kind: 'missing_result', index: turn.index, messageId: turn.message.id, toolCallId: call.id, name: call.name })
      ;(added ??= []).push(interrupted(turn, call))
    }
    if (added !== undefined) plan.inserts.set(turn.last, added)
    turn = undefined
  }
  const orphan = (i: number, m: Message, j: number, id: string): void => {
    plan.issues.push({ kind: 'orphan_result', index: i, messageId: m.id, toolCallId: id })
    plan.droppedResults.push(id)
    edit(i, { part: j, rename: undefined })
  }

  for (let i = 0; i < ms.length; i++) {
    const m = ms[i] as Message
    if (m.role === 'assistant') {
      close()
      const t: Turn = { index: i, message: m, calls: [], last: i }
      let reasoning = false
      let substance = false // set by any part but text, reasoning and finish; text is read only if it matters
      for (let j = 0; j < m.parts.length; j++) {
        const p = m.parts[j] as Part
        const type = p.type
        if (type === 'reasoning') {
          reasoning = true
          continue
        }
        if (type !== 'text' && type !== 'finish') substance = true
        if (isToolResult(p)) orphan(i, m, j, p.toolCallId)
        if (!isToolCall(p)) continue
        let renamed: string | undefined
        if (seen.has(p.id)) {
          plan.issues.push({ kind: 'duplicate_id', index: i, messageId: m.id, toolCallId: p.id })
          renamed = fresh(p.id)
          seen.add(renamed)
          edit(i, { part: j, rename: renamed })
        }
        seen.add(p.id)
        t.calls.push({ id: p.id, name: p.name, answered: false, renamed })
      }
      if (reasoning && !substance && !hasSubstance(m.parts)) {
        // nothing but reasoning (so no call was registered above)
        plan.issues.push({ kind: 'reasoning_only', index: i, messageId: m.id })
        plan.dropped.add(i)
        continue
      }
      turn = t
    } else {
      if (m.role === 'user') close()
      const isToolMessage = m.role === 'tool'
      for (let j = 0; j < m.parts.length; j++) {
        const p = m.parts[j] as Part
        if (!isToolResult(p)) continue
        const call = isToolMessage && turn !== undefined ? findCall(turn, p.toolCallId) : undefined
        if (call === undefined) {
          orphan(i, m, j, p.toolCallId)
          continue
        }
        if (call === true) {
          plan.issues.push({ kind: 'duplicate_id', index: i, messageId: m.id, toolCallId: p.toolCallId })
          plan.droppedResults.push(p.toolCallId)
          edit(i, { part: j, rename: undefined })
          continue
        }
        call.answered = true
        if (call.renamed !== undefined) edit(i, { part: j, rename: call.renamed })
      }
      if (isToolMessage && turn !== undefined) turn.last = i
    }
  }
  close()
  return plan
}

// --- pairing ---

/**
 * Checks that every tool call is answered exactly once, right after it, and reports each problem
 * (seed 002 leaves this to providers, which reject the request; see the module notes).
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
 * leaves with nothing to say, are removed. A valid history comes back as the very same array.
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
export const repairToolPairs = (ms: Messages): { readonly messages: Messages; readonly report: RepairReport } => {
  const plan = analyse(ms)
  if (plan.issues.length === 0) return { messages: ms, report: { addedResults: [], droppedResults: [], droppedMessages: [], changed: false } }
  const out: Message[] = []
  const addedResults: string[] = []
  const droppedMessages: string[] = []
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
  return { messages: out, report: { addedResults, droppedResults: plan.droppedResults, droppedMessages, changed: true } }
}
