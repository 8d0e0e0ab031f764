/**
 * A compaction summariser that calls a Claude model through the official Anthropic SDK client.
 * Needs the optional peer dependency `@anthropic-ai/sdk`.
 *
 * @module
 */
import type Anthropic from '@anthropic-ai/sdk'
import type { Summarizer } from '../compaction/compact.ts'
import { modelSummarizer, type ModelSummarizerOptions } from './check.ts'

export { modelSummarizer, type AskModel, type ModelSummarizerOptions, type SummaryTurn } from './check.ts'

/**
 * A summariser for `compact` that asks a Claude model with the caller's client
 * (`client.messages.create`): the prompt as `system`, the transcript as the user message, the abort
 * signal as the request's `signal`; the text blocks of the answer are the summary, which must pass
 * `validateSummary` (one retry by default).
 *
 * @example
 * import Anthropic from '@anthropic-ai/sdk'
 * import { compact } from 'chatfold'
 * import { anthropicSummarizer } from 'chatfold/summarize/anthropic'
 * declare const history: import('chatfold').Messages
 * const summarize = anthropicSummarizer({ client: new Anthropic(), model: 'claude-haiku-4-5' })
 * const { messages } = await compact({ summarize })(history)
 *
 * @since 0.2.0
 * @category compaction
 */
export const anthropicSummarizer = (options: ModelSummarizerOptions & { readonly client: Anthropic; readonly model: string }): Summarizer =>
  modelSummarizer(async ({ system, turns, signal, maxOutputTokens }) => {
    const r = await options.client.messages.create(
      { model: options.model, system, messages: turns.map((t) => ({ role: t.role, content: t.content })), max_tokens: maxOutputTokens },
      signal === undefined ? {} : { signal },
    )
    return r.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
  }, options)
