/**
 * The conversation's request a model summariser is given (`SummarizerContext.request`): the
 * messages about to be sent, as long a prefix of them as fits the window with the instruction and
 * the summary (`contextWindow − INSTRUCTION_ALLOWANCE − summaryTokens`; the previous request, which
 * fit `contextWindow − reserveTokens`, whole when the reserve is at least that much) (so
 * that the summariser's request reads from the provider's prompt cache what the conversation's
 * previous request wrote there), with the tool definitions and tool choice of the call.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import type { SummarizerRequest } from '../compaction/compact.ts'
import type { ToolChoice, ToolDefinition } from '../adapters/request.ts'

/** Tokens kept for the summariser's instruction after the prefix. */
export const INSTRUCTION_ALLOWANCE = 1_000

/**
 * The longest prefix of `xs` that ends with no tool call waiting for its result, covers the head
 * (at least `cut` messages) and, with the fixed tokens (`fixed`: tools and the request's framing),
 * fits `budget`; `undefined` when none does (the summariser then reads the transcript).
 */
export const summaryRequestOf = (
  xs: Messages,
  options: {
    readonly cut: number
    readonly budget: number
    readonly fixed: number
    readonly count: (m: Message) => number
    readonly tools: ReadonlyArray<ToolDefinition>
    readonly toolChoice?: ToolChoice
  },
): SummarizerRequest | undefined => {
  const open = new Set<string>()
  let total = options.fixed
  let best = -1
  for (let i = 0; i < xs.length; i++) {
    const m = xs[i] as Message
    total += options.count(m)
    if (total > options.budget) break
    for (const p of m.parts) {
      if (p.type === 'tool_call') open.add(p.id)
      else if (p.type === 'tool_result') open.delete(p.toolCallId)
    }
    if (open.size === 0 && i + 1 >= options.cut) best = i + 1
  }
  if (best < 0) return undefined
  return {
    messages: best === xs.length ? xs : xs.slice(0, best),
    tools: options.tools,
    ...(options.toolChoice === undefined ? {} : { toolChoice: options.toolChoice }),
  }
}
