/**
 * The usage a provider's SDK answers (Anthropic's Messages, OpenAI's Chat Completions and
 * Responses) as a summariser tells it to its caller (`SummarizerContext.onAnswer`), in the AI SDK's
 * shape, under the model the summariser was given.
 *
 * @module
 */
import type { SummarizerContext } from '../compaction/compact.ts'
import { isObject } from '../internal/object.ts'

/** What a summariser tells `onAnswer`. */
export type SummarizerAnswer = Parameters<NonNullable<SummarizerContext['onAnswer']>>[0]

const count = (u: unknown): number | undefined => (typeof u === 'number' && Number.isFinite(u) && u >= 0 ? u : undefined)
const field = (u: Readonly<Record<string, unknown>>, k: string): Readonly<Record<string, unknown>> => {
  const v = u[k]
  return isObject(v) ? v : {}
}

/**
 * OpenAI's usage: the Responses API's (`input_tokens`, `input_tokens_details.cached_tokens`,
 * `output_tokens`, `output_tokens_details.reasoning_tokens`) or Chat Completions' (`prompt_tokens`,
 * `prompt_tokens_details.cached_tokens`, `completion_tokens`, `completion_tokens_details.reasoning_tokens`);
 * the cached tokens are counted inside the input, as OpenAI counts them.
 */
export const answerOfOpenAIUsage = (model: string, u: unknown): SummarizerAnswer => {
  if (!isObject(u)) return { response: { modelId: model } }
  const chat = 'prompt_tokens' in u
  return {
    response: { modelId: model },
    usage: {
      inputTokens: count(u[chat ? 'prompt_tokens' : 'input_tokens']),
      outputTokens: count(u[chat ? 'completion_tokens' : 'output_tokens']),
      inputTokenDetails: { cacheReadTokens: count(field(u, chat ? 'prompt_tokens_details' : 'input_tokens_details')['cached_tokens']) },
      outputTokenDetails: { reasoningTokens: count(field(u, chat ? 'completion_tokens_details' : 'output_tokens_details')['reasoning_tokens']) },
    },
  }
}

/**
 * Anthropic's usage (`input_tokens`, not cached, beside `cache_read_input_tokens` and
 * `cache_creation_input_tokens`; `output_tokens`).
 */
export const answerOfAnthropicUsage = (model: string, u: unknown): SummarizerAnswer => {
  if (!isObject(u)) return { response: { modelId: model } }
  const noCache = count(u['input_tokens'])
  const cacheRead = count(u['cache_read_input_tokens'])
  const cacheWrite = count(u['cache_creation_input_tokens'])
  const parts = [noCache, cacheRead, cacheWrite]
  return {
    response: { modelId: model },
    usage: {
      inputTokens: parts.every((p) => p === undefined) ? undefined : parts.reduce<number>((a, p) => a + (p ?? 0), 0),
      outputTokens: count(u['output_tokens']),
      inputTokenDetails: { noCacheTokens: noCache, cacheReadTokens: cacheRead, cacheWriteTokens: cacheWrite },
    },
  }
}
