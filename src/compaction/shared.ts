/**
 * Private helpers of the compaction modules (not exported from the package).
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'

/** The number of leading system messages: the system prompt, kept first by every compaction. */
export const systemPrefix = (ms: Messages): number => {
  let i = 0
  while (i < ms.length && (ms[i] as Message).role === 'system') i++
  return i
}

/** The label of a previous summary in a transcript. */
export const PREVIOUS_SUMMARY = '[Previous summary]:'
