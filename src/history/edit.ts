/**
 * Edits of a history, pure and data-last: append,
 * clear, drop, deduplicate, eject one-turn messages, truncate tool results.
 *
 * Every edit returns a new array (the input itself when nothing changes) and keeps untouched
 * messages by identity. Edits that remove messages are pair-safe, like the views: a tool call
 * whose result goes loses its call too (and the other way round), and an assistant message left
 * with nothing to say goes as well, so an edit never turns a valid history (see
 * `validateToolPairs`) into an invalid one.
 *
 * @module
 */
import type { Role } from '../message/role.ts'
import { isEmpty } from '../message/accessors.ts'
import { type Message, type Messages } from '../message/message.ts'
import { cuttingResults } from './_truncate.ts'
import { filterSame, mapSame } from './_same.ts'
import { selectPaired } from './_select-paired.ts'
import { truncateResultsOf } from './_lighten.ts'
import { nonNegativeInt } from '../internal/number.ts'

// --- edits ---

/**
 * Appends messages at the end; the history itself when there are none.
 *
 * @example
 * import { append } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * append([textMessage('user', 'next question')])([textMessage('system', 'Be brief.')]).length // 2
 *
 * @since 0.1.0
 * @category edits
 */
export const append = (added: Messages) => (ms: Messages): Messages => added.length === 0 ? ms : ms.concat(added)

/**
 * Keeps only the first message, the system prompt; a history of at most one message
 * comes back as is. Should the first message hold tool calls, they go with their results.
 *
 * @example
 * import { clear } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * clear([textMessage('system', 'Be brief.'), textMessage('user', 'hi')]).length // 1
 *
 * @since 0.1.0
 * @category edits
 */
export const clear = (ms: Messages): Messages => {
  if (ms.length <= 1) return ms
  const first = ms[0] as Message
  if (!first.parts.some((p) => p.type === 'tool_call' || p.type === 'tool_result')) return [first]
  // only the first message's own turn can hold its partners
  let end = 2
  while (end < ms.length && (ms[end] as Message).role !== 'user' && (ms[end] as Message).role !== 'assistant') end++
  return selectPaired(ms.slice(0, end), (_, i) => i === 0)
}

/**
 * Drops the `n` newest messages, undoing the last steps;
 * `n` is normalised to a non-negative integer, and all go when `n` reaches the length. A call
 * left behind whose result was dropped goes too, so the turn that remains is still valid.
 *
 * @example
 * import { dropN } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * dropN(1)([textMessage('user', 'hi'), textMessage('assistant', 'Hello')]).length // 1
 *
 * @since 0.1.0
 * @category edits
 */
export const dropN = (n: number) => (ms: Messages): Messages => {
  const k = nonNegativeInt(n)
  if (k === 0) return ms
  if (k >= ms.length) return ms.length === 0 ? ms : []
  const cut = ms.length - k
  return selectPaired(ms, (_, i) => i < cut)
}

/**
 * Keeps the first message of `role` and removes every later one of that role;
 * messages of other roles stay. Pair-safe.
 *
 * @example
 * import { keepFirstByRole } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * keepFirstByRole('system')([textMessage('system', 'A'), textMessage('user', 'hi'), textMessage('system', 'B')]).length // 2
 *
 * @since 0.1.0
 * @category edits
 */
export const keepFirstByRole = (role: Role) => (ms: Messages): Messages => {
  const first = ms.findIndex((m) => m.role === role)
  return first < 0 ? ms : selectPaired(ms, (m, i) => m.role !== role || i === first)
}

/**
 * Keeps the first system message and removes the others: `keepFirstByRole('system')`.
 *
 * @example
 * import { deduplicateSystem } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * deduplicateSystem([textMessage('system', 'A'), textMessage('system', 'A')]).length // 1
 *
 * @since 0.1.0
 * @category edits
 */
export const deduplicateSystem: (ms: Messages) => Messages = keepFirstByRole('system')

/**
 * Removes assistant messages that say nothing: no text, reasoning, tool call or media.
 *
 * @example
 * import { pruneEmptyAssistant } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * pruneEmptyAssistant([textMessage('user', 'hi'), textMessage('assistant', '')]).length // 1
 *
 * @since 0.1.0
 * @category edits
 */
export const pruneEmptyAssistant = (ms: Messages): Messages => filterSame(ms, (m) => m.role !== 'assistant' || !isEmpty(m))

const bytesAware = (_: string, v: unknown): unknown => (v instanceof Uint8Array ? `bytes:${v.join(',')}` : v)

/** What makes two synthetic messages copies of each other: role and parts. */
const syntheticKey = (m: Message): string => `${m.role}\u0000${JSON.stringify(m.parts, bytesAware)}`

/**
 * Keeps only the newest copy of each synthetic message (same role and parts), removing older
 * copies; other messages always stay. Pair-safe.
 *
 * @example
 * import { textMessage } from 'chatfold/message'
 * import { trimDuplicateSynthetics } from 'chatfold/history'
 * const r = textMessage('user', 'Run the tests.', { kind: 'synthetic' })
 * const ok = textMessage('user', 'ok', { id: 'ok' })
 * trimDuplicateSynthetics([r, ok, { ...r, id: 'again' }]).map((m) => m.id) // ['ok', 'again']
 *
 * @since 0.1.0
 * @category edits
 */
export const trimDuplicateSynthetics = (ms: Messages): Messages => {
  let seen: Set<string> | undefined
  let older: Uint8Array | undefined
  for (let i = ms.length - 1; i >= 0; i--) {
    const m = ms[i] as Message
    if (m.kind !== 'synthetic') continue
    const key = syntheticKey(m)
    seen ??= new Set()
    if (seen.has(key)) (older ??= new Uint8Array(ms.length))[i] = 1
    else seen.add(key)
  }
  return older === undefined ? ms : selectPaired(ms, (_, i) => older[i] !== 1)
}

/**
 * Cuts every tool result to at most `maxLen` characters, ending with a
 * `[truncated …]` marker when it fits; `maxLen` is normalised to a non-negative integer.
 *
 * @example
 * import { makeMessage, toolResult } from 'chatfold/message'
 * import { truncateResults } from 'chatfold/history'
 * truncateResults(100)([makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: 'x'.repeat(1000) })] })])
 *
 * @since 0.1.0
 * @category edits
 */
export const truncateResults = (maxLen: number): (ms: Messages) => Messages => {
  const truncate = cuttingResults(maxLen, truncateResultsOf)
  return (ms) => mapSame(ms, truncate)
}

/**
 * The history without ephemeral messages (pair-safe, as `forSave`) and with tool results
 * cut to `maxLen` characters, in one pass.
 *
 * @example
 * import { truncated } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * truncated(2000)([textMessage('user', 'hi')])
 *
 * @since 0.1.0
 * @category edits
 */
export const truncated = (maxLen: number): (ms: Messages) => Messages => {
  const truncate = cuttingResults(maxLen, truncateResultsOf)
  return (ms) => selectPaired(ms, (m) => m.kind !== 'ephemeral', truncate)
}
