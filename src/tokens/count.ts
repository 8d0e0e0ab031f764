/**
 * Per-message token counts with the seed-002 breakdown, cached by message identity per estimator.
 *
 * @module
 */
import type { Message, Messages } from '../message.ts'
import { cacheOf } from './cache.ts'
import { type Estimator, IMAGE_TOKENS, MESSAGE_OVERHEAD, type TokenBreakdown, tokenBreakdown } from '../messages/message-tokens.ts'

// The definition of a message's tokens lives with the history functions that count with it
// (pruning); this module caches it. The constants and the breakdown type are public from here.
export { IMAGE_TOKENS, MESSAGE_OVERHEAD, type TokenBreakdown }

// --- counting ---

/**
 * Counts a message: text and tool results as content, reasoning as thinking, tool calls (name and
 * arguments) as tools, images at `IMAGE_TOKENS`, plus `MESSAGE_OVERHEAD`. Messages are
 * immutable, so the count is cached by message identity for each estimator: counting a history
 * again after a new turn estimates only the new messages. A file with textual data is counted on
 * its text, any other file as an image. Counts are estimates: a message's stored `tokens` (often
 * provider-reported) is not read.
 *
 * @example
 * import { countMessage, heuristic, textMessage } from 'chatfold'
 * countMessage(heuristic)(textMessage('user', 'Hello, world!')) // { total: 8, content: 4, thinking: 0, tools: 0 }
 *
 * @since 0.1.0
 * @category tokens
 */
export const countMessage = (estimate: Estimator): ((m: Message) => TokenBreakdown) => {
  const cache = cacheOf(estimate)
  return (m) => {
    let b = cache.get(m)
    if (b === undefined) cache.set(m, (b = tokenBreakdown(estimate, m)))
    return b
  }
}

/**
 * The total tokens of the messages given (each `countMessage(estimate)(m).total`, cached by
 * message). It counts every message it is given: pass `forLLM(ms)` to count what a model will
 * see. After a turn only the new messages are estimated; the others are a cache lookup each.
 *
 * @example
 * import { countMessages, heuristic, textMessage } from 'chatfold'
 * countMessages(heuristic)([textMessage('user', 'Hi'), textMessage('assistant', 'Hello!')]) // 12
 *
 * @since 0.1.0
 * @category tokens
 */
export const countMessages = (estimate: Estimator): ((ms: Messages) => number) => {
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
 * itself when every message has counts.
 *
 * @example
 * import { heuristic, textMessage, withTokens } from 'chatfold'
 * withTokens(heuristic)([textMessage('user', 'Hello, world!')])[0]?.tokens // { total: 8, content: 4, thinking: 0, tools: 0 }
 *
 * @since 0.1.0
 * @category tokens
 */
export const withTokens = (estimate: Estimator): ((ms: Messages) => Messages) => {
  const cache = cacheOf(estimate)
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
      const tokens = count(m)
      const filled: Message = { ...m, tokens }
      cache.set(filled, tokens) // the parts did not change, nor did the count
      out.push(filled)
    }
    return out ?? ms
  }
}
