/**
 * What a provider reads of a history: the messages that go to the model, and the boundary part
 * its history starts after.
 *
 * @module
 */
import { isCompactionBoundary } from '../message/part-make.ts'
import { type Part } from '../message/part-model.ts'
import type { Message } from '../message/message.ts'

/** Whether a message goes to the model: normal, synthetic (one-turn guidance) or ephemeral (one-turn error feedback). */
export const isForLLM = (m: Message): boolean => m.kind === 'normal' || m.kind === 'synthetic' || m.kind === 'ephemeral'

/**
 * The index of the last provider compaction boundary part (`isCompactionBoundary`) of a message
 * that goes to the model, or -1: where the history a provider reads starts, when it is the last.
 */
export const boundaryPart = (m: Message): number => {
  if (!isForLLM(m)) return -1
  const ps = m.parts
  for (let j = ps.length - 1; j >= 0; j--) if (isCompactionBoundary(ps[j] as Part)) return j
  return -1
}
