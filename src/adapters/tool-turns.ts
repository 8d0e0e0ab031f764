/**
 * Tool calls across a history, as the writers need them: JSON text parsed without throwing, each
 * call's name by id, and a system message moved out from between a call and its results. Not
 * exported from the package.
 *
 * @module
 */
import { isToolCall, isToolResult } from '../message/part-make.ts'
import { type Message, type Messages } from '../message/message.ts'

/** Parses raw JSON text; `undefined` when it is not JSON. */
export const parseJson = (s: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(s) as unknown }
  } catch {
    return undefined
  }
}

/** The name of each tool call of a history, by id (for results that do not carry it). */
export const callNames = (ms: Messages): ReadonlyMap<string, string> => {
  const names = new Map<string, string>()
  for (const m of ms) for (const p of m.parts) if (isToolCall(p)) names.set(p.id, p.name)
  return names
}

/**
 * Moves a system message that falls between a tool call and its results to right after those
 * results, for targets whose tool results must follow their call directly (the history core lets a
 * system message sit inside a tool turn). Returns the input when nothing moves; `onMove` hears of
 * each message moved.
 */
export const systemAfterResults = (ms: Messages, onMove?: (m: Message) => void): Messages => {
  const out: Message[] = []
  let held: Message[] = []
  const open = new Set<string>()
  let moved = false
  const release = (): void => {
    out.push(...held)
    held = []
  }
  for (const m of ms) {
    if (m.role === 'system' && open.size > 0) {
      held.push(m)
      onMove?.(m)
      moved = true
      continue
    }
    if (m.role === 'tool') {
      out.push(m)
      for (const p of m.parts) if (isToolResult(p)) open.delete(p.toolCallId)
      if (open.size === 0) release()
      continue
    }
    release()
    open.clear()
    if (m.role === 'assistant') { for (const p of m.parts) if (isToolCall(p)) open.add(p.id) }
    out.push(m)
  }
  release()
  return moved ? out : ms
}
