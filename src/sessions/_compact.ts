/**
 * A compaction a session file recorded, applied: the history so far replaced by its summary, what
 * it replaced returned as the archive.
 *
 * @module
 */
import type { Messages } from '../message/message.ts'
import { rebuildAfterCompaction } from '../compaction/rebuild.ts'
import { type Draft, draftOf, messagesOf } from './_draft.ts'

/**
 * Applies a compaction a file recorded: the history so far becomes its leading system messages, a
 * summary message with the text (timed when the compaction was), then `after`; what it replaced is
 * returned as the archive.
 */
export const compactHistory = (
  history: ReadonlyArray<Draft>,
  summary: string,
  after: ReadonlyArray<Draft>,
  createdAt: string | undefined,
): { readonly history: Draft[]; readonly archive: Messages } => {
  const r = rebuildAfterCompaction(summary, 0, [])(messagesOf(history))
  const kept = r.messages.map((m) => draftOf(m.metadata !== undefined && 'compaction' in m.metadata && createdAt !== undefined ? { ...m, createdAt } : m))
  return { history: [...kept, ...after], archive: r.archive }
}
