/**
 * How a compaction summary message is recognised: the metadata key that marks it. Lives with the
 * history functions so that renderers and usage figures below the compaction layer can tell a
 * summary apart; `compaction/summary.ts` exports both names.
 *
 * @module
 */
import type { Message } from './message.ts'

/**
 * The metadata key that marks a compaction summary message; its value is a
 * `CompactionInfo`.
 *
 * @since 0.1.0
 * @category compaction
 */
export const COMPACTION_KEY = 'compaction'

/**
 * Whether a message is a compaction summary: a message whose metadata has a `compaction` record.
 *
 * @example
 * import { isCompactionSummary, textMessage } from 'chatfold/message'
 * import { rebuildAfterCompaction } from 'chatfold/compaction'
 * const { messages } = rebuildAfterCompaction('## Goal\n…', 10, [])([textMessage('user', 'old')])
 * isCompactionSummary(messages[0]!) // true
 *
 * @since 0.1.0
 * @category compaction
 */
export const isCompactionSummary = (m: Message): boolean => {
  const info = m.metadata?.[COMPACTION_KEY]
  return typeof info === 'object' && info !== null && m.metadata !== undefined && Object.prototype.hasOwnProperty.call(m.metadata, COMPACTION_KEY)
}
