/**
 * Tool results recorded after a later turn began, moved back to their call's turn: the first step of
 * `repairToolPairs` (private; `pairs.ts` has the model and the public functions).
 *
 * @module
 */
import { isToolCall, isToolResult } from '../message/part-make.ts'
import { type Part } from '../message/part-model.ts'
import type { Message, Messages } from '../message/message.ts'
import { hasSubstance } from './_substance.ts'

/** The fields of a pairing issue this step reads (a `ToolPairIssue` of `pairs.ts`). */
type PairIssue = { readonly kind: string; readonly index: number; readonly toolCallId?: string }

type Move = { readonly from: number; readonly part: number; readonly id: string; readonly anchor: number }

/**
 * Results recorded after a later turn began (a result with no call in its turn, whose call, used once,
 * is unanswered in an earlier turn) moved back to the end of their call's turn: the whole tool message
 * when it holds nothing else, else the result joins the last tool message of that turn. A result that
 * would need a message of its own split out of another stays where it is (and is treated as an orphan).
 */
export const moveLateResults = (
  ms: Messages,
  issues: ReadonlyArray<PairIssue>,
): { readonly messages: Messages; readonly moved: string[]; readonly emptied: string[] } | undefined => {
  const missingAt = new Map<string, number>()
  for (const i of issues) if (i.kind === 'missing_result' && i.toolCallId !== undefined && !missingAt.has(i.toolCallId)) missingAt.set(i.toolCallId, i.index)
  if (missingAt.size === 0) return undefined
  const uses = new Map<string, number>()
  for (const m of ms) if (m.role === 'assistant') { for (const p of m.parts) if (isToolCall(p)) uses.set(p.id, (uses.get(p.id) ?? 0) + 1) }
  const candidates: Move[] = []
  const taken = new Set<string>()
  for (const i of issues) {
    const id = i.toolCallId
    const at = i.kind === 'orphan_result' && id !== undefined ? missingAt.get(id) : undefined
    const m = ms[i.index] as Message
    if (id === undefined || at === undefined || at >= i.index || taken.has(id) || uses.get(id) !== 1 || m.role !== 'tool') continue
    const part = m.parts.findIndex((p) => isToolResult(p) && p.toolCallId === id)
    let anchor = at
    while ((ms[anchor + 1] as Message | undefined)?.role === 'tool') anchor++
    if (part >= 0) candidates.push({ from: i.index, part, id, anchor })
    taken.add(id)
  }
  const sources = new Set(candidates.map((c) => c.from))
  const whole = new Set<number>()
  const moves = candidates.filter((c) => {
    if (sources.has(c.anchor)) return false
    const m = ms[c.from] as Message
    const mine = candidates.filter((d) => d.from === c.from)
    if (mine.length === m.parts.length && mine.every((d) => d.anchor === c.anchor)) {
      whole.add(c.from)
      return true
    }
    // joins the last tool message of its call's turn, when the turn has one
    return c.anchor !== missingAt.get(c.id)
  })
  if (moves.length === 0) return undefined
  const removed = new Map<number, Set<number>>()
  const joined = new Map<number, Part[]>()
  const after = new Map<number, Message[]>()
  for (const c of moves) {
    if (whole.has(c.from)) {
      const list = after.get(c.anchor) ?? []
      if (!list.includes(ms[c.from] as Message)) list.push(ms[c.from] as Message)
      after.set(c.anchor, list)
      continue
    }
    removed.set(c.from, (removed.get(c.from) ?? new Set()).add(c.part))
    joined.set(c.anchor, [...(joined.get(c.anchor) ?? []), (ms[c.from] as Message).parts[c.part] as Part])
  }
  const out: Message[] = []
  const emptied: string[] = []
  ms.forEach((m, i) => {
    if (!whole.has(i)) {
      const gone = removed.get(i)
      const plus = joined.get(i)
      const parts = [...(gone === undefined ? m.parts : m.parts.filter((_, j) => !gone.has(j))), ...(plus ?? [])]
      if (gone !== undefined && !hasSubstance(parts)) emptied.push(m.id)
      else out.push(gone === undefined && plus === undefined ? m : { ...m, parts })
    }
    out.push(...(after.get(i) ?? []))
  })
  return { messages: out, moved: moves.map((c) => c.id), emptied }
}
