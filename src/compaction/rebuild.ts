/**
 * The history after a compaction: system prompt, summary, preserved tail; the rest archived.
 *
 * @module
 */
import type { Message, Messages } from '../message.ts'
import { type CompactionInfo, COMPACTION_KEY } from './summary.ts'
import { systemPrefix } from './shared.ts'

/**
 * The result of {@link rebuildAfterCompaction}: the new history and the messages it no longer
 * holds, in their original order.
 *
 * @since 0.1.0
 * @category compaction
 */
export type RebuildResult = { readonly messages: Messages; readonly archive: Messages }

/**
 * Replaces a history with its compaction (seed 003 `RebuildAfterCompaction`): the system prompt
 * (the leading system messages) kept first, then the summary, then the preserved messages. Every
 * other input message is returned, in order, as the archive, so that nothing is lost unless the
 * caller drops it (a preserved message that compaction changed, a result cut to fit, archives its
 * original).
 *
 * The summary is one message of its own: a `normal` user message (so every view that feeds a
 * model, `forLLM` and `forPreservation` included, keeps it, and the next compaction can find and
 * extend it) whose metadata has a `compaction` record `{ summarised, through }` that
 * `isCompactionSummary` recognises, and whose `tokens.total` is `summaryTokens` when positive. Its
 * id is derived from the newest message it replaces, so rebuilding the same input twice gives the
 * same history (builders replay their inputs).
 *
 * @example
 * import { rebuildAfterCompaction, textMessage } from 'chatfold'
 * const history = [textMessage('system', 'Be brief.'), textMessage('user', 'old'), textMessage('user', 'recent')]
 * const { messages, archive } = rebuildAfterCompaction('## Goal\n…', 12, [history[2]!])(history)
 * // messages: system prompt, summary, 'recent'; archive: 'old'
 *
 * @since 0.1.0
 * @category compaction
 */
export const rebuildAfterCompaction =
  (summary: string, summaryTokens: number, preserved: Messages) =>
  (ms: Messages): RebuildResult => {
    const sys = systemPrefix(ms)
    const kept = new Set<Message>(preserved)
    const archive: Message[] = []
    for (let i = sys; i < ms.length; i++) {
      const m = ms[i] as Message
      if (!kept.has(m)) archive.push(m)
    }
    const through = archive.length === 0 ? undefined : (archive[archive.length - 1] as Message)
    const info: CompactionInfo = { summarised: archive.length, ...(through === undefined ? {} : { through: through.id }) }
    const tokens = Number.isFinite(summaryTokens) && summaryTokens > 0 ? { tokens: { total: Math.floor(summaryTokens) } } : {}
    const summaryMessage: Message = {
      id: `compaction-${through?.id ?? preserved[0]?.id ?? 'start'}`,
      role: 'user',
      kind: 'normal',
      parts: [{ type: 'text', text: summary }],
      ...(through?.createdAt === undefined ? {} : { createdAt: through.createdAt }),
      ...tokens,
      metadata: { [COMPACTION_KEY]: info },
    }
    return { messages: [...ms.slice(0, sys), summaryMessage, ...preserved], archive }
  }
