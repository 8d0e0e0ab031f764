/**
 * The one definition of a message's tokens, used by pruning, compaction planning, the builder,
 * the cached counters of `tokens` and the engine: every text, reasoning, tool call (name and
 * arguments) and tool result estimated, images and non-textual files at a fixed price, plus a
 * per-message overhead. It lives beside the pure history functions because they count with it
 * too; `tokens` adds caching on top (`countMessage`, `countMessages`, `withTokens`).
 *
 * @module
 */
import type { Message } from '../message/message.ts'
import type { Part } from '../message/part-model.ts'

// --- model ---

/**
 * An estimator: how many tokens a text costs.
 *
 * @example
 * import type { Estimator } from 'chatfold'
 * const quarter: Estimator = (text) => Math.ceil(text.length / 4)
 *
 * @since 0.1.0
 * @category tokens
 */
export type Estimator = (text: string) => number

/**
 * The token count of a message with its content, thinking and tools breakdown, every field present:
 * `total = content + thinking + tools + MESSAGE_OVERHEAD`.
 *
 * @example
 * import { countMessage, heuristic, type TokenBreakdown } from 'chatfold/tokens'
 * import { textMessage } from 'chatfold/message'
 * const b: TokenBreakdown = countMessage(heuristic)(textMessage('user', 'Hello, world!'))
 * b.total // 8
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

// --- constants ---

/**
 * The fixed cost of one image, in tokens: 1,600, what Anthropic charges for an image of about
 * 1.2 megapixels (its documented `width × height / 750`, at the size it scales large images down
 * to). OpenAI charges 85–1,105 for a high-detail image and Gemini 258, so the figure errs on the
 * side of a fuller context: budgets trip early rather than late.
 *
 * @example
 * import { IMAGE_TOKENS } from 'chatfold/tokens'
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
 * import { MESSAGE_OVERHEAD } from 'chatfold/tokens'
 * MESSAGE_OVERHEAD // 4
 *
 * @since 0.1.0
 * @category tokens
 */
export const MESSAGE_OVERHEAD = 4

// --- counting ---

const decoder = new TextDecoder()

const isTextual = (mediaType: string): boolean => mediaType.startsWith('text/') || /[/+](json|xml|yaml|csv|javascript)\b/.test(mediaType)

/** A part of a type this module does not know: each of its string fields is estimated. */
const customCost = (estimate: Estimator, p: Part): number => {
  let n = 0
  for (const v of Object.values(p)) if (typeof v === 'string') n += estimate(v)
  return n
}

/** What a part counts as in a breakdown. */
type Share = 'content' | 'thinking' | 'tools'

const shareOf = (p: Part): Share => (p.type === 'reasoning' ? 'thinking' : p.type === 'tool_call' ? 'tools' : 'content')

/**
 * A part's tokens: text, reasoning and tool results estimated, a tool call's name and arguments
 * each estimated, an image at `IMAGE_TOKENS`, a file with textual data on its text (any other
 * file as an image) plus its name, a finish part nothing, a provider part its JSON as sent, a custom
 * part each of its strings.
 */
export const partTokens = (estimate: Estimator, p: Part): number => {
  switch (p.type) {
    case 'text':
    case 'reasoning':
      return estimate(p.text)
    case 'tool_call':
      return estimate(p.name) + estimate(p.arguments)
    case 'tool_result':
      return typeof p.content === 'string' ? estimate(p.content) : p.content.reduce((n, b) => n + partTokens(estimate, b), 0)
    case 'image':
      return IMAGE_TOKENS
    case 'file':
      return (p.filename === undefined ? 0 : estimate(p.filename)) +
        (p.data !== undefined && isTextual(p.mediaType) ? estimate(decoder.decode(p.data)) : IMAGE_TOKENS)
    case 'finish':
      return 0
    case 'provider':
      return estimate(JSON.stringify(p.data) ?? '')
    default:
      return customCost(estimate, p)
  }
}

/**
 * A message's tokens with their breakdown, uncached: each part's {@link partTokens} (reasoning
 * as thinking, tool calls as tools, the rest as content) plus `MESSAGE_OVERHEAD`. A message's
 * stored `tokens` is not read. `countMessage` is the cached form.
 */
export const tokenBreakdown = (estimate: Estimator, m: Message): TokenBreakdown => {
  const shares = { content: 0, thinking: 0, tools: 0 }
  for (const p of m.parts) shares[shareOf(p)] += partTokens(estimate, p)
  return { total: shares.content + shares.thinking + shares.tools + MESSAGE_OVERHEAD, ...shares }
}

/** A message's total tokens, uncached: `tokenBreakdown(estimate, m).total`, without the breakdown. */
export const messageTokens = (estimate: Estimator) => (m: Message): number => {
  let total = MESSAGE_OVERHEAD
  for (const p of m.parts) total += partTokens(estimate, p)
  return total
}

/** What marks a message count as the one definition with an estimator, however it is cached. */
const DEFINITION: unique symbol = Symbol('chatfold.definition')

/**
 * Marks `count` as the one definition with `estimate` (a cached {@link tokenBreakdown}'s total),
 * so that pruning derives a rewritten message's count from its original's (the definition adds up
 * over parts) instead of estimating the parts that stay again, as it does with its default count.
 */
export const definitionCount = (estimate: Estimator, count: (m: Message) => number): (m: Message) => number =>
  Object.defineProperty(count, DEFINITION, { value: estimate })

/** Whether `count` was marked by {@link definitionCount} as the one definition with `estimate`. */
export const isDefinitionOf = (count: unknown, estimate: Estimator): boolean =>
  typeof count === 'function' && (count as { readonly [DEFINITION]?: unknown })[DEFINITION] === estimate

/** The totals of a counter that gives breakdowns (a kept `countMessage(estimate)`), from its cache. */
export const totalOf = (count: (m: Message) => TokenBreakdown) => (m: Message): number => count(m).total
