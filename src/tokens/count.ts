/**
 * Per-message token counts with the content, thinking and tools breakdown. A counter caches its
 * counts by message identity, in a cache of its own: `countMessage(estimate)` makes a new counter
 * each time, and whoever keeps one (a session, a builder, a loop over turns) counts a growing
 * history again at the cost of its new messages only. Nothing is cached at module scope.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import { type Estimator, IMAGE_TOKENS, MESSAGE_OVERHEAD, type TokenBreakdown, tokenBreakdown } from './message-tokens.ts'

// The definition of a message's tokens lives with the history functions that count with it
// (pruning); this module caches it. The constants and the breakdown type are public from here.
export { IMAGE_TOKENS, MESSAGE_OVERHEAD, type TokenBreakdown }

// --- counting ---

/**
 * Makes a counter, which counts a message (text and tool results as content, reasoning as
 * thinking, tool calls, name and arguments, as tools, images at `IMAGE_TOKENS`, plus
 * `MESSAGE_OVERHEAD`) and remembers the count. Messages are immutable, so the counter caches by message identity, in a
 * cache of its own: keep the counter, and counting a history again after a new turn estimates only
 * the new messages (each call of `countMessage` makes a new counter, with an empty cache). A file
 * with textual data is counted on its text, any other file as an image. Counts are estimates: a
 * message's stored `tokens` (often provider-reported) is not read.
 *
 * @example
 * import { countMessage, heuristic } from 'chatfold/tokens'
 * import { textMessage } from 'chatfold/message'
 * const count = countMessage(heuristic) // keep it: it remembers what it counted
 * count(textMessage('user', 'Hello, world!')) // { total: 8, content: 4, thinking: 0, tools: 0 }
 *
 * @since 0.1.0
 * @category tokens
 */
export const countMessage = (estimate: Estimator): (m: Message) => TokenBreakdown => {
  const cache = new WeakMap<Message, TokenBreakdown>()
  return (m) => {
    let b = cache.get(m)
    if (b === undefined) cache.set(m, b = tokenBreakdown(estimate, m))
    return b
  }
}

/**
 * The total tokens of the messages given (each `countMessage(estimate)(m).total`), with a counter
 * of its own: keep the function, and after a turn only the new messages are estimated, the others
 * being a cache lookup each. It counts every message it is given: pass `forLLM(ms)` to count what
 * a model will see.
 *
 * @example
 * import { countMessages, heuristic } from 'chatfold/tokens'
 * import { textMessage } from 'chatfold/message'
 * const total = countMessages(heuristic) // keep it: it remembers what it counted
 * total([textMessage('user', 'Hi'), textMessage('assistant', 'Hello!')]) // 11
 *
 * @since 0.1.0
 * @category tokens
 */
export const countMessages = (estimate: Estimator): (ms: Messages) => number => {
  const count = countMessage(estimate)
  return (ms) => {
    let total = 0
    for (let i = 0; i < ms.length; i++) total += count(ms[i] as Message).total
    return total
  }
}

/**
 * Fills `tokens` on every message that has none with its estimated breakdown; messages that
 * already carry counts (often exact, from the provider) are kept as they are. Returns the input
 * itself when every message has counts. It counts with a counter of its own: keep the function,
 * and a message without counts given again is not estimated again.
 *
 * @example
 * import { heuristic, withTokens } from 'chatfold/tokens'
 * import { textMessage } from 'chatfold/message'
 * withTokens(heuristic)([textMessage('user', 'Hello, world!')])[0]?.tokens // { total: 8, content: 4, thinking: 0, tools: 0 }
 *
 * @since 0.1.0
 * @category tokens
 */
export const withTokens = (estimate: Estimator): (ms: Messages) => Messages => {
  const count = countMessage(estimate)
  return (ms) => {
    let out: Message[] | undefined
    for (let i = 0; i < ms.length; i++) {
      const m = ms[i] as Message
      if (m.tokens !== undefined) {
        out?.push(m)
        continue
      }
      out ??= ms.slice(0, i)
      out.push({ ...m, tokens: count(m) })
    }
    return out ?? ms
  }
}
