/**
 * The system prompt's extent: the leading system messages that every compaction keeps first.
 * A public file of the folder: `chatfold/ai-sdk` keeps the same prefix.
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
