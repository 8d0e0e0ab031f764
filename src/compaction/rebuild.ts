/**
 * The history after a compaction: system prompt, summary, preserved tail; the rest archived.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import type { ProviderPart } from '../message/part-model.ts'
import type { CompactionInfo } from './summary.ts'
import { COMPACTION_KEY } from '../message/compaction-mark.ts'
import { systemPrefix } from './system-prefix.ts'

/**
 * The result of {@link rebuildAfterCompaction}: the new history and the messages it no longer
 * holds, in their original order.
 *
 * @since 0.1.0
 * @category compaction
 */
export type RebuildResult = { readonly messages: Messages; readonly archive: Messages }

/**
 * A summary a provider wrote: its compaction boundary (a provider part of kind `compaction`, such
 * as Anthropic's `compaction` block or OpenAI's `compaction` item), opaque and kept byte for byte.
 *
 * @example
 * import { providerPart } from 'chatfold/message'
 * import { type ProviderSummary } from 'chatfold/compaction'
 * const summary: ProviderSummary = { boundary: providerPart('anthropic', 'compaction', { type: 'compaction', content: '## Goal…' }) }
 *
 * @since 0.1.0
 * @category compaction
 */
export type ProviderSummary = { readonly boundary: ProviderPart }

/**
 * Whether a summariser's answer is a provider's compaction boundary rather than text.
 *
 * @example
 * import { isProviderSummary } from 'chatfold/compaction'
 * import { providerPart } from 'chatfold/message'
 * isProviderSummary({ boundary: providerPart('openai', 'compaction', { type: 'compaction', encrypted_content: 'gAAA…' }) }) // true
 * isProviderSummary('## Goal…') // false
 *
 * @since 0.1.0
 * @category compaction
 */
export const isProviderSummary = (u: unknown): u is ProviderSummary => {
  if (typeof u !== 'object' || u === null || !('boundary' in u)) return false
  const b: unknown = u.boundary
  return typeof b === 'object' && b !== null && 'type' in b && b.type === 'provider' && 'kind' in b && b.kind === 'compaction' && 'provider' in b &&
    typeof b.provider === 'string'
}

/**
 * Replaces a history with its compaction: the system prompt
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
 * A provider's summary (`ProviderSummary`) is instead an `assistant` message holding its boundary
 * alone, byte for byte, as the provider returned it (Anthropic answers a compaction with an
 * assistant message holding the block; OpenAI's compacted window ends with the item), with the
 * same `compaction` record: `forLLM` sends it first after the system prompt, and the provider's
 * writer sends the block or item back unchanged.
 *
 * @example
 * import { rebuildAfterCompaction } from 'chatfold/compaction'
 * import { textMessage } from 'chatfold/message'
 * const history = [textMessage('system', 'Be brief.'), textMessage('user', 'old'), textMessage('user', 'recent')]
 * const { messages, archive } = rebuildAfterCompaction('## Goal\n…', 12, [history[2]!])(history)
 * // messages: system prompt, summary, 'recent'; archive: 'old'
 *
 * @since 0.1.0
 * @category compaction
 */
export const rebuildAfterCompaction = (summary: string | ProviderSummary, summaryTokens: number, preserved: Messages) => (ms: Messages): RebuildResult => {
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
    ...(typeof summary === 'string'
      ? { role: 'user' as const, parts: [{ type: 'text' as const, text: summary }] }
      : { role: 'assistant' as const, parts: [summary.boundary], provider: summary.boundary.provider }),
    kind: 'normal',
    ...(through?.createdAt === undefined ? {} : { createdAt: through.createdAt }),
    ...tokens,
    metadata: { [COMPACTION_KEY]: info },
  }
  return { messages: [...ms.slice(0, sys), summaryMessage, ...preserved], archive }
}
