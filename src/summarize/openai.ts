/**
 * A compaction summariser that calls a model through the official OpenAI SDK client (Chat
 * Completions, or the Responses API). Needs the optional peer dependency `openai`.
 *
 * @module
 */
import type OpenAI from 'openai'
import type { Summarizer } from '../compaction/compact.ts'
import { modelSummarizer, type ModelSummarizerOptions } from './check.ts'

export { modelSummarizer, type AskModel, type ModelSummarizerOptions, type SummaryTurn } from './check.ts'

/**
 * A summariser for `compact` that asks an OpenAI model with the caller's client: by default
 * `client.chat.completions.create` (the prompt as the system message), or `client.responses.create`
 * with `api: 'responses'` (the prompt as `instructions`); the abort signal is passed as the request's
 * `signal`; the answer must pass `validateSummary` (one retry by default).
 *
 * @example
 * import OpenAI from 'openai'
 * import { compact } from 'chatfold'
 * import { openAISummarizer } from 'chatfold/summarize/openai'
 * declare const history: import('chatfold').Messages
 * const summarize = openAISummarizer({ client: new OpenAI(), model: 'gpt-5-mini' })
 * const { messages } = await compact({ summarize })(history)
 *
 * @since 0.2.0
 * @category compaction
 */
export const openAISummarizer = (options: ModelSummarizerOptions & { readonly client: OpenAI; readonly model: string; readonly api?: 'chat' | 'responses' }): Summarizer =>
  modelSummarizer(async ({ system, turns, signal, maxOutputTokens }) => {
    const request = signal === undefined ? {} : { signal }
    if (options.api === 'responses') {
      const r = await options.client.responses.create(
        { model: options.model, instructions: system, input: turns.map((t) => ({ role: t.role, content: t.content })), max_output_tokens: maxOutputTokens },
        request,
      )
      return r.output_text
    }
    const r = await options.client.chat.completions.create(
      { model: options.model, messages: [{ role: 'system', content: system }, ...turns.map((t) => ({ role: t.role, content: t.content }))], max_completion_tokens: maxOutputTokens },
      request,
    )
    return r.choices[0]?.message.content ?? ''
  }, options)
