/**
 * Where a turn starts: the user message that opens one.
 *
 * @module
 */
import { type Part } from '../message/part-model.ts'
import type { Message } from '../message/message.ts'
import { isCompactionSummary } from '../message/compaction-mark.ts'

/**
 * Whether a message starts a turn: a user message of kind `normal` with something of its own to
 * say (not only tool results, which answer the turn before), and not a compaction summary.
 *
 * @example
 * import { startsTurn } from './_turn.ts'
 * startsTurn({ id: 'u', role: 'user', kind: 'normal', parts: [{ type: 'text', text: 'hi' }] }) // true
 */
export const startsTurn = (m: Message): boolean => m.role === 'user' && m.kind === 'normal' && !isCompactionSummary(m) && !onlyResults(m.parts)

/** Whether there are parts and every one is a tool result. */
const onlyResults = (ps: ReadonlyArray<Part>): boolean => {
  for (let i = 0; i < ps.length; i++) if ((ps[i] as Part).type !== 'tool_result') return false
  return ps.length > 0
}
