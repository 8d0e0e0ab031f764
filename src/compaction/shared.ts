/**
 * Private helpers of the compaction modules (not exported from the package).
 *
 * @module
 */
import type { Message, Messages } from '../message.ts'

/** A count option normalised to a non-negative integer; `fallback` when absent. */
export const nonNegative = (n: number | undefined, fallback: number): number =>
  n === undefined ? fallback : Number.isNaN(n) || n <= 0 ? 0 : Math.floor(Math.min(n, Number.MAX_SAFE_INTEGER))

/** Whether a message reaches a model (internal kinds never do). */
export const reachesModel = (m: Message): boolean => m.kind !== 'display' && m.kind !== 'bookmark' && m.kind !== 'metadata'

/** The number of leading system messages: the system prompt, kept first by every compaction. */
export const systemPrefix = (ms: Messages): number => {
  let i = 0
  while (i < ms.length && (ms[i] as Message).role === 'system') i++
  return i
}

/** The label of a previous summary in a transcript. */
export const PREVIOUS_SUMMARY = '[Previous summary]:'
