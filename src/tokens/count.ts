/**
 * Per-message token counts with the seed-002 breakdown, cached by message identity per estimator.
 *
 * @module
 */
import type { Message, Messages } from '../message.ts'
import type { Part } from '../part.ts'
import type { Estimator } from '../messages/prune.ts'

// --- constants ---

/**
 * The fixed cost of one image, in tokens: 1,600, what Anthropic charges for an image of about
 * 1.2 megapixels (its documented `width × height / 750`, at the size it scales large images down
 * to). OpenAI charges 85–1,105 for a high-detail image and Gemini 258, so the figure errs on the
 * side of a fuller context: budgets trip early rather than late.
 *
 * @example
 * import { IMAGE_TOKENS } from 'chatfold'
 * IMAGE_TOKENS // 1600
 *
 * @since 0.1.0
 * @category tokens
 */
export const IMAGE_TOKENS = 1_600

/**
 * Tokens added to each message for its framing (role markers, separators): 4, what OpenAI's chat
 * format spends per message (`<|im_start|>`, the role, `<|im_sep|>`, `<|im_end|>`).
 *
 * @example
 * import { MESSAGE_OVERHEAD } from 'chatfold'
 * MESSAGE_OVERHEAD // 4
 *
 * @since 0.1.0
 * @category tokens
 */
export const MESSAGE_OVERHEAD = 4

// --- counting ---

/**
 * The token count of a message with its seed-002 breakdown, every field present:
 * `total = content + thinking + tools + MESSAGE_OVERHEAD`.
 *
 * @since 0.1.0
 * @category tokens
 */
export type TokenBreakdown = {
  /** Everything, the per-message overhead included. */
  readonly total: number
  /** Text, tool-result content, images (`IMAGE_TOKENS` each), files, custom parts. */
  readonly content: number
  /** Reasoning text (redacted reasoning too: it goes back to the provider). */
  readonly thinking: number
  /** Tool calls: name plus raw arguments. */
  readonly tools: number
}

const decoder = new TextDecoder()

const isTextual = (mediaType: string): boolean => mediaType.startsWith('text/') || /[/+](json|xml|yaml|csv|javascript)\b/.test(mediaType)

const customCost = (estimate: Estimator, p: Part): number => {
  let n = 0
  for (const v of Object.values(p)) if (typeof v === 'string') n += estimate(v)
  return n
}

const breakdown = (estimate: Estimator, m: Message): TokenBreakdown => {
  let content = 0
  let thinking = 0
  let tools = 0
  for (const p of m.parts) {
    switch (p.type) {
      case 'text':
        content += estimate(p.text)
        break
      case 'reasoning':
        thinking += estimate(p.text)
        break
      case 'tool_call':
        tools += estimate(p.name) + estimate(p.arguments)
        break
      case 'tool_result':
        content += estimate(p.content)
        break
      case 'image':
        content += IMAGE_TOKENS
        break
      case 'file':
        content +=
          (p.filename === undefined ? 0 : estimate(p.filename)) +
          (p.data !== undefined && isTextual(p.mediaType) ? estimate(decoder.decode(p.data)) : IMAGE_TOKENS)
        break
      case 'finish':
        break
      default:
        content += customCost(estimate, p)
    }
  }
  return { total: content + thinking + tools + MESSAGE_OVERHEAD, content, thinking, tools }
}

const caches = new WeakMap<Estimator, WeakMap<Message, TokenBreakdown>>()

const cacheOf = (estimate: Estimator): WeakMap<Message, TokenBreakdown> => {
  let c = caches.get(estimate)
  if (c === undefined) caches.set(estimate, (c = new WeakMap()))
  return c
}

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
    if (b === undefined) cache.set(m, (b = breakdown(estimate, m)))
    return b
  }
}

/** The last history each estimator summed, held weakly: a history that extends it sums only what it adds. */
type LastSum = { readonly ref: WeakRef<Messages>; readonly length: number; readonly total: number }
const lastSums = new WeakMap<Estimator, LastSum>()
const canRemember = typeof WeakRef === 'function'

/**
 * The total tokens of the messages given (each `countMessage(estimate)(m).total`, cached). It
 * counts every message it is given: pass `forLLM(ms)` to count what a model will see. Beyond the
 * per-message cache, it remembers (weakly) the last history it summed for each estimator: a
 * history that starts with the same message objects costs a pointer comparison per message plus
 * the new ones, which keeps re-estimating after a turn well under a millisecond on 20,000 messages.
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
    let from = 0
    const last = lastSums.get(estimate)
    const prev = last?.ref.deref()
    if (last !== undefined && prev !== undefined && last.length <= ms.length) {
      let i = last.length - 1
      while (i >= 0 && prev[i] === ms[i]) i--
      if (i < 0) {
        from = last.length
        total = last.total
      }
    }
    for (let i = from; i < ms.length; i++) total += count(ms[i] as Message).total
    if (canRemember) lastSums.set(estimate, { ref: new WeakRef(ms), length: ms.length, total })
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
