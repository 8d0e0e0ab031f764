/**
 * A compaction summariser that calls a model through the AI SDK (`generateText`), any provider.
 * Needs the optional peer dependency `ai`.
 *
 * @module
 */
import { generateText, type LanguageModel } from 'ai'
import type { Summarizer } from '../compaction/compact.ts'
import { modelSummarizer, type ModelSummarizerOptions } from './check.ts'

export { modelSummarizer, type AskModel, type ModelSummarizerOptions, type SummaryTurn } from './check.ts'

/**
 * A summariser for `compact` that asks an AI SDK model with `generateText`: the prompt as `system`,
 * the transcript as the user message, `abortSignal` passed on; the answer must pass `validateSummary`
 * (one retry by default, naming the missing sections).
 *
 * @example
 * import type { LanguageModel } from 'ai'
 * import { compact } from 'chatfold'
 * import { aiSdkSummarizer } from 'chatfold/summarize/ai-sdk'
 * declare const model: LanguageModel // e.g. openai('gpt-5-mini') from @ai-sdk/openai
 * declare const history: import('chatfold').Messages
 * const { messages } = await compact({ summarize: aiSdkSummarizer({ model }) })(history)
 *
 * @since 0.1.0
 * @category compaction
 */
export const aiSdkSummarizer = (options: ModelSummarizerOptions & { readonly model: LanguageModel }): Summarizer =>
  modelSummarizer(async ({ system, turns, signal, maxOutputTokens }) => {
    const r = await generateText({
      model: options.model,
      system,
      messages: turns.map((t) => ({ role: t.role, content: t.content })),
      maxOutputTokens,
      ...(signal === undefined ? {} : { abortSignal: signal }),
    })
    return r.text
  }, options)
