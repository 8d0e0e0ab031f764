/**
 * Views of a history: which messages go to the model, the UI, an export, a session
 * file, or survive a compaction. Each view is one pass, never mutates its input, keeps untouched
 * messages by identity and returns the input array itself when it keeps everything.
 *
 * Views that feed a model or a file (all but `forDisplay`) are pair-safe: when they drop a message
 * holding a tool call or result, they also remove its partner from the messages they keep (and a
 * kept message left with nothing but reasoning goes too), so a view never creates an orphan that a
 * provider would reject.
 *
 * | view | keeps |
 * | --- | --- |
 * | `forLLM` | normal, synthetic, ephemeral |
 * | `forDisplay` | normal, display, bookmark; never system- or tool-role messages |
 * | `forExport` | normal, display, bookmark |
 * | `forExportStructured` | normal, display, bookmark, metadata |
 * | `forSave` | all but ephemeral |
 * | `forPreservation` | normal |
 * | `forCompaction(n)` | normal, without reasoning, tool results cut to `n` characters |
 *
 * @module
 */
import { isInternal } from '../message/accessors.ts'
import { makeMessage, type Message, type Messages } from '../message/message.ts'
import { boundaryPart, isForLLM } from './_for-llm.ts'
import { compactMessage, stripReasoning } from './_lighten.ts'
import { cuttingResults } from './_truncate.ts'
import { filterSame, mapSame } from './_same.ts'
import { selectPaired } from './_select-paired.ts'
import { startsTurn } from './_turn.ts'

// --- views ---

/**
 * The messages to send to the model: normal, synthetic (one-turn guidance) and
 * ephemeral (one-turn error feedback); never display-only, bookmark or metadata messages. After a
 * provider's compaction boundary (`lastCompactionBoundary`), only system messages, the boundary
 * and what follows it.
 *
 * @example
 * import { forLLM, textMessage } from 'chatfold'
 * forLLM([textMessage('user', 'hi'), textMessage('assistant', 'Saved.', { kind: 'display' })]).length // 1
 *
 * @since 0.1.0
 * @category views
 */
export const forLLM = (ms: Messages): Messages => {
  // one walk: the selection notes the last compaction boundary as it passes (as
  // `lastCompactionBoundary` finds it), and only a history that has one is selected again, from it
  let at = -1
  let part = -1
  const plain = selectPaired(ms, (m, i) => {
    if (!isForLLM(m)) return false
    const j = boundaryPart(m)
    if (j >= 0) {
      at = i
      part = j
    }
    return true
  })
  if (at < 0) return plain
  const boundary = ms[at] as Message
  const from = at
  const cut = part
  return selectPaired(
    ms,
    (m, i) => isForLLM(m) && (i >= from || m.role === 'system'),
    (m) => (m === boundary ? makeMessage({ ...m, parts: m.parts.slice(cut) }) : m),
  )
}

/**
 * Where the history's last provider compaction boundary stands (see `isCompactionBoundary`): the
 * index of its message and of the part in it, or `undefined` when there is none. A provider reads
 * such a boundary as the start of the history, so the views that build a request (`forLLM`) send
 * the boundary and what follows it, and system messages, never what it replaced; the others keep
 * everything, and pruning and compaction planning start there.
 *
 * @example
 * import { lastCompactionBoundary } from 'chatfold/history'
 * import { makeMessage, providerPart, textMessage } from 'chatfold/message'
 * const summary = makeMessage({ role: 'assistant', parts: [providerPart('anthropic', 'compaction', { type: 'compaction', content: 'Summary…' })] })
 * lastCompactionBoundary([textMessage('user', 'old'), summary, textMessage('user', 'new')]) // { message: 1, part: 0 }
 *
 * @since 0.1.0
 * @category views
 */
export const lastCompactionBoundary = (ms: Messages): { readonly message: number; readonly part: number } | undefined => {
  for (let i = ms.length - 1; i >= 0; i--) {
    const j = boundaryPart(ms[i] as Message)
    if (j >= 0) return { message: i, part: j }
  }
  return undefined
}

/**
 * The messages a UI shows when a session is restored: normal user and assistant
 * messages, display-only notices and bookmarks. System prompts, tool-role messages, metadata and
 * the one-turn kinds (synthetic, ephemeral) are left out. Assistant tool calls are kept as they are
 * (a UI shows them even though their results are hidden).
 *
 * @example
 * import { forDisplay, textMessage } from 'chatfold'
 * forDisplay([textMessage('system', 'Be brief.'), textMessage('user', 'hi')]).length // 1
 *
 * @since 0.1.0
 * @category views
 */
export const forDisplay = (ms: Messages): Messages =>
  filterSame(ms, (m) => m.role !== 'system' && m.role !== 'tool' && (m.kind === 'normal' || m.kind === 'display' || m.kind === 'bookmark'))

/**
 * The messages of a human-readable export, plain text or Markdown: normal,
 * display-only and bookmark messages; no synthetic, ephemeral or metadata ones.
 *
 * @example
 * import { forExport, textMessage } from 'chatfold'
 * forExport([textMessage('user', 'hi'), textMessage('user', 'Reminder', { kind: 'synthetic' })]).length // 1
 *
 * @since 0.1.0
 * @category views
 */
export const forExport = (ms: Messages): Messages => selectPaired(ms, (m) => m.kind === 'normal' || m.kind === 'display' || m.kind === 'bookmark')

/**
 * The messages of a machine-readable export, JSON or JSONL: like
 * `forExport`, plus metadata messages.
 *
 * @example
 * import { forExportStructured } from 'chatfold/history'
 * import { makeMessage } from 'chatfold/message'
 * forExportStructured([makeMessage({ role: 'user', kind: 'metadata', metadata: { turn: 1 } })]).length // 1
 *
 * @since 0.1.0
 * @category views
 */
export const forExportStructured = (ms: Messages): Messages => selectPaired(ms, (m) => m.kind !== 'synthetic' && m.kind !== 'ephemeral')

/**
 * The messages to persist in a session file: everything but ephemeral messages,
 * whose paired tool calls go with them.
 *
 * @example
 * import { forSave, textMessage } from 'chatfold'
 * forSave([textMessage('user', 'hi'), textMessage('tool', 'denied', { kind: 'ephemeral' })]).length // 1
 *
 * @since 0.1.0
 * @category views
 */
export const forSave = (ms: Messages): Messages => selectPaired(ms, (m) => m.kind !== 'ephemeral')

/**
 * The messages safe to keep after a compaction: normal ones only. A tool
 * call whose result is dropped (an ephemeral error, say) is dropped too, and the other way round.
 *
 * @example
 * import { forPreservation } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * forPreservation([textMessage('user', 'hi'), textMessage('user', 'Reminder', { kind: 'synthetic' })]).length // 1
 *
 * @since 0.1.0
 * @category views
 */
export const forPreservation = (ms: Messages): Messages => selectPaired(ms, (m) => m.kind === 'normal')

/**
 * The messages to send to a compaction model: normal ones only, without
 * reasoning (signatures included), each tool result cut to at most `maxResultLen` characters
 * (with a `[truncated …]` marker when it fits). Pair-safe like `forPreservation`; a message left
 * with nothing but reasoning is dropped. `maxResultLen` is normalised to a non-negative integer.
 *
 * @example
 * import { forCompaction } from 'chatfold/history'
 * import { makeMessage, toolResult } from 'chatfold/message'
 * const r = makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: 'x'.repeat(5000) })] })
 * forCompaction(2000)([r])
 *
 * @since 0.1.0
 * @category views
 */
export const forCompaction = (maxResultLen: number): (ms: Messages) => Messages => {
  const compact = cuttingResults(maxResultLen, compactMessage)
  return (ms) => selectPaired(ms, (m) => m.kind === 'normal', compact)
}

/**
 * The history without internal messages (display-only, bookmark, metadata), which must never
 * reach a model, pair-safe.
 *
 * @example
 * import { withoutInternal } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * withoutInternal([textMessage('user', 'Milestone 1', { kind: 'bookmark' })]).length // 0
 *
 * @since 0.1.0
 * @category views
 */
export const withoutInternal = (ms: Messages): Messages => selectPaired(ms, (m) => !isInternal(m))

/**
 * The history without synthetic messages, pair-safe.
 *
 * @example
 * import { withoutSynthetic } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * withoutSynthetic([textMessage('user', 'Reminder', { kind: 'synthetic' })]).length // 0
 *
 * @since 0.1.0
 * @category views
 */
export const withoutSynthetic = (ms: Messages): Messages => selectPaired(ms, (m) => m.kind !== 'synthetic')

/**
 * The history without reasoning parts, signatures included. Every message
 * stays (one left without parts included); those without reasoning keep their identity.
 *
 * @example
 * import { withoutThinking } from 'chatfold/history'
 * import { makeMessage, reasoning, text } from 'chatfold/message'
 * withoutThinking([makeMessage({ role: 'assistant', parts: [reasoning('hmm', { signature: 's' }), text('Hi')] })])[0]?.parts.length // 1
 *
 * @since 0.1.0
 * @category views
 */
export const withoutThinking = (ms: Messages): Messages => mapSame(ms, stripReasoning)

/**
 * The last `n` turns of a history, a turn being a user message of kind `normal` and everything
 * after it up to the next one (what `render --last N` shows); a user message that holds only tool
 * results, or a compaction summary, starts none. What comes before the first of them
 * (the system prompt, older turns) is left out, so a history of fewer than `n` turns gives all its
 * turns and one with none gives no message; the input itself when it starts with the first turn
 * kept. `n` is normalised to a whole number ≥ 0 (0: no message).
 *
 * @example
 * import { lastTurns } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * const h = [textMessage('system', 'Be brief.'), textMessage('user', 'hi'), textMessage('assistant', 'Hello!'), textMessage('user', 'bye')]
 * lastTurns(1)(h).length // 1
 * lastTurns(5)(h).length // 3
 *
 * @since 0.1.0
 * @category views
 */
export const lastTurns = (n: number) => (ms: Messages): Messages => {
  const want = Number.isFinite(n) ? Math.max(0, Math.floor(n)) : n > 0 ? Infinity : 0
  if (want === 0) return ms.length === 0 ? ms : []
  // from the last message back: each turn start counted, until the n-th
  let seen = 0
  let start = ms.length
  for (let i = ms.length - 1; i >= 0 && seen < want; i--) {
    const m = ms[i] as Messages[number]
    if (startsTurn(m)) {
      seen++
      start = i
    }
  }
  return start === 0 ? ms : ms.slice(start)
}
