/**
 * A compaction summariser that calls a model through the official OpenAI SDK client (Chat
 * Completions, or the Responses API), and one that has OpenAI compact the history itself
 * (`openAICompaction`). Needs the optional peer dependency `openai`.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { Summarizer } from '../compaction/compact.ts'
import { toOpenAIChatRequest, toOpenAIResponsesRequest } from '../adapters/openai/request.ts'
import { fromOpenAIResponses } from '../adapters/openai/responses-from.ts'
import { formatAdapterFailure } from '../adapters/types.ts'
import { formatDecodeFailure } from '../message/failure.ts'
import { isCompactionBoundary } from '../message/part-make.ts'
import { lastCompactionBoundary } from '../history/views.ts'
import { modelSummarizer, type ModelSummarizerOptions, prefixMessages, requestTools } from './check.ts'
import { answerOfOpenAIUsage } from './_usage.ts'

export { type AskModel, modelSummarizer, type ModelSummarizerOptions, PREFIX_INSTRUCTION, type SummaryTurn } from './check.ts'

/**
 * The part of an OpenAI SDK client (`new OpenAI()`) that `openAISummarizer` uses:
 * `chat.completions.create`, or `responses.create` with `api: 'responses'`, typed by what it reads
 * (the body it sends is a request chatfold writes, named by its `model`). Any object of this shape goes, the SDK's client first; typed structurally rather than
 * as the SDK's class, so that an `openai` package TypeScript sees twice (as CommonJS and as ESM)
 * still fits (two declarations of one class, with private members, never fit each other: TS2719).
 *
 * @example
 * import OpenAI from 'openai'
 * import type { OpenAISummarizerClient } from 'chatfold/summarize/openai'
 * const client: OpenAISummarizerClient = new OpenAI({ apiKey: 'sk-…' })
 *
 * @since 0.1.0
 * @category compaction
 */
export type OpenAISummarizerClient = {
  readonly chat: {
    readonly completions: {
      create(
        body: { readonly model: string },
        options?: { readonly signal?: AbortSignal },
      ): PromiseLike<{ readonly choices: ReadonlyArray<{ readonly message: { readonly content: string | null } }>; readonly usage?: unknown }>
    }
  }
  readonly responses: {
    create(
      body: { readonly model: string },
      options?: { readonly signal?: AbortSignal },
    ): PromiseLike<{ readonly output_text: string; readonly usage?: unknown }>
  }
}

/**
 * The part of an OpenAI SDK client (`new OpenAI()`) that `openAICompaction` uses:
 * `responses.compact`, typed structurally as `OpenAISummarizerClient` is (the request is the
 * Responses body `toOpenAIResponsesRequest` writes; the answer's `output` is read by
 * `fromOpenAIResponses`).
 *
 * @example
 * import OpenAI from 'openai'
 * import type { OpenAICompactionClient } from 'chatfold/summarize/openai'
 * const client: OpenAICompactionClient = new OpenAI({ apiKey: 'sk-…' })
 *
 * @since 0.1.0
 * @category compaction
 */
export type OpenAICompactionClient = {
  readonly responses: {
    compact(body: { model: string }, options?: { readonly signal?: AbortSignal }): PromiseLike<{ readonly output: unknown; readonly usage?: unknown }>
  }
}

/**
 * A summariser for `compact` that asks an OpenAI model with the caller's client: by default
 * `client.chat.completions.create`, or `client.responses.create` with `api: 'responses'`. Given the
 * conversation's request (`SummarizerContext.request`, as `contextMiddleware` gives it), it sends
 * that request as `toOpenAIChatRequest` (or `toOpenAIResponsesRequest`) writes it, with the
 * instruction as the last user message, so that its prefix is the conversation's and is read from
 * the prompt cache (use the conversation's model); else (or with `form: 'transcript'`) the prompt as
 * the system message (as `instructions`) and the transcript as the user message. The abort signal is
 * passed as the request's `signal`; the answer must pass `validateSummary` (one retry by default).
 *
 * @example
 * import OpenAI from 'openai'
 * import { compact } from 'chatfold'
 * import { openAISummarizer } from 'chatfold/summarize/openai'
 * declare const history: import('chatfold').Messages
 * const summarize = openAISummarizer({ client: new OpenAI(), model: 'gpt-5-mini' })
 * const { messages } = await compact({ summarize })(history)
 *
 * @since 0.1.0
 * @category compaction
 */
export const openAISummarizer = (
  options: ModelSummarizerOptions & { readonly client: OpenAISummarizerClient; readonly model: string; readonly api?: 'chat' | 'responses' },
): Summarizer =>
  modelSummarizer(async ({ system, turns, signal, maxOutputTokens, conversation, onAnswer }) => {
    const request = signal === undefined ? {} : { signal }
    // each answer's usage, told to the caller for the compaction's cost
    const heard = <R extends { readonly usage?: unknown }>(r: R): R => (onAnswer?.(answerOfOpenAIUsage(options.model, r.usage)), r)
    if (conversation !== undefined) {
      const chat = {
        model: options.model,
        messages: prefixMessages(conversation, turns),
        ...requestTools(conversation),
        settings: { maxOutputTokens },
      }
      if (options.api === 'responses') {
        const written = toOpenAIResponsesRequest()(chat)
        if (E.isLeft(written)) throw new Error(`Cannot summarise with OpenAI: ${formatAdapterFailure(written.left)}`)
        const body = { ...written.right.request, model: options.model, stream: false }
        return heard(await options.client.responses.create(body, request)).output_text
      }
      const written = toOpenAIChatRequest()(chat)
      if (E.isLeft(written)) throw new Error(`Cannot summarise with OpenAI: ${formatAdapterFailure(written.left)}`)
      const body = { ...written.right.request, model: options.model, stream: false }
      return heard(await options.client.chat.completions.create(body, request)).choices[0]?.message.content ?? ''
    }
    if (options.api === 'responses') {
      const body = {
        model: options.model,
        instructions: system,
        input: turns.map((t) => ({ role: t.role, content: t.content })),
        max_output_tokens: maxOutputTokens,
      }
      return heard(await options.client.responses.create(body, request)).output_text
    }
    const body = {
      model: options.model,
      messages: [{ role: 'system', content: system }, ...turns.map((t) => ({ role: t.role, content: t.content }))],
      max_completion_tokens: maxOutputTokens,
    }
    return heard(await options.client.chat.completions.create(body, request)).choices[0]?.message.content ?? ''
  }, options)

// --- provider compaction ---

/**
 * Options of {@link openAICompaction}.
 *
 * @since 0.1.0
 * @category compaction
 */
export type OpenAICompactionOptions = {
  readonly client: OpenAICompactionClient
  readonly model: string
  /** Sent as the request's `instructions`, with the history's own; by default only the history's. */
  readonly instructions?: string
}

/**
 * A summariser for `compact` that has OpenAI compact the history itself with
 * `client.responses.compact`: the system prompt (as `instructions`) and the head (from the last
 * compaction boundary on, which goes first) written by `toOpenAIResponsesRequest`. The compacted
 * window it answers (the user messages, then one `compaction` item with encrypted content) is read
 * by `fromOpenAIResponses`; its `compaction` item, kept as it came, becomes the history's
 * compaction boundary, which the Responses writer sends back first. The user messages before the
 * item are the head's own, kept in the archive: OpenAI's guide lets what precedes the latest
 * compaction item be dropped, as `forLLM` does. The usage it answers is told to the caller
 * (`SummarizerContext.onAnswer`, under `model`), for the compaction's cost. Rejects when `compact` gave no history, when the
 * history cannot be written, and when the answer holds no compaction item.
 *
 * @example
 * import OpenAI from 'openai'
 * import { compact } from 'chatfold'
 * import { openAICompaction } from 'chatfold/summarize/openai'
 * declare const history: import('chatfold').Messages
 * const { messages } = await compact({ summarize: openAICompaction({ client: new OpenAI(), model: 'gpt-5.4' }) })(history)
 *
 * @since 0.1.0
 * @category compaction
 */
export const openAICompaction = (options: OpenAICompactionOptions): Summarizer => async (_transcript, context) => {
  if (context.history === undefined) throw new Error('Cannot compact with OpenAI: the summariser needs the messages, as compact gives them')
  const written = toOpenAIResponsesRequest()({ model: options.model, messages: [...context.history.system, ...context.history.head] })
  if (E.isLeft(written)) throw new Error(`Cannot compact with OpenAI: ${formatAdapterFailure(written.left)}`)
  const { request } = written.right
  const instructions = [request.instructions, options.instructions].filter((s): s is string => s !== undefined && s !== '').join('\n\n')
  const body = { ...request, model: options.model, ...(instructions === '' ? {} : { instructions }) }
  const compacted = await options.client.responses.compact(body, context.signal === undefined ? {} : { signal: context.signal })
  context.onAnswer?.(answerOfOpenAIUsage(options.model, compacted.usage))
  const window = fromOpenAIResponses({ input: compacted.output })
  if (E.isLeft(window)) throw new Error(`Cannot compact with OpenAI: ${formatDecodeFailure(window.left)}`)
  const at = lastCompactionBoundary(window.right)
  const boundary = at === undefined ? undefined : window.right[at.message]?.parts[at.part]
  if (boundary === undefined || !isCompactionBoundary(boundary)) throw new Error('Cannot compact with OpenAI: the compacted window holds no compaction item')
  return { boundary }
}
