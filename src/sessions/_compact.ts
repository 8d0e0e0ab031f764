/**
 * A compaction a session file recorded, applied: the history so far replaced by its summary (or by
 * the replacement history the file gives), what it replaced returned as the archive.
 *
 * @module
 */
import type { Messages } from '../message/message.ts'
import { rebuildAfterCompaction } from '../compaction/rebuild.ts'
import { COMPACTION_KEY } from '../message/compaction-mark.ts'
import { isCompactionBoundary } from '../message/part-make.ts'
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

/**
 * Applies a compaction that recorded the whole history to send from there on (`replacement`, with
 * its own system prompts): every message so far that went to the model is archived, those that
 * never did (metadata) stay. A `summary` the replacement does not hold already opens it. The message
 * holding a compaction boundary, else the summary, else the replacement's last message, is marked as
 * the compaction's summary.
 */
export const replaceHistory = (
  history: ReadonlyArray<Draft>,
  summary: Draft | undefined,
  replacement: ReadonlyArray<Draft>,
): { readonly history: Draft[]; readonly archive: Messages } => {
  const archived = messagesOf(history).filter((m) => m.kind !== 'metadata')
  const kept = history.filter((d) => d.kind === 'metadata')
  const through = archived[archived.length - 1]
  const all = summary === undefined ? replacement : [summary, ...replacement]
  let at = summary === undefined ? all.length - 1 : 0
  for (let i = all.length - 1; i >= 0; i--) {
    if ((all[i] as Draft).parts.some(isCompactionBoundary)) {
      at = i
      break
    }
  }
  const info = { summarised: archived.length, ...(through === undefined ? {} : { through: through.id }) }
  const after = all.map((d, i) => (i === at ? { ...d, metadata: { ...d.metadata, [COMPACTION_KEY]: info } } : d))
  return { history: [...kept, ...after], archive: archived }
}
