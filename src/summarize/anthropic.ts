/**
 * A compaction summariser that calls a Claude model through the official Anthropic SDK client, and
 * one that has Anthropic compact the history itself (`anthropicCompaction`).
 * Needs the optional peer dependency `@anthropic-ai/sdk`.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { Summarizer } from '../compaction/compact.ts'
import { toAnthropicRequest } from '../adapters/anthropic/request.ts'
import { fromAnthropicMessage } from '../adapters/anthropic/messages-from.ts'
import { formatAdapterFailure } from '../adapters/types.ts'
import { formatDecodeFailure } from '../message/failure.ts'
import { isCompactionBoundary } from '../message/part-make.ts'
import { wholeOption } from '../internal/number.ts'
import { modelSummarizer, type ModelSummarizerOptions, prefixMessages, requestTools } from './check.ts'
import { answerOfAnthropicUsage } from './_usage.ts'

export { type AskModel, modelSummarizer, type ModelSummarizerOptions, PREFIX_INSTRUCTION, type SummaryTurn } from './check.ts'

/**
 * The part of an Anthropic SDK client (`new Anthropic()`) that `anthropicSummarizer` uses:
 * `messages.create`, typed by what it reads (the body it sends is a Messages request chatfold writes,
 * named by its `model`). Any object of this shape goes, the SDK's
 * client first; typed structurally rather than as the SDK's class, so that an
 * `@anthropic-ai/sdk` package TypeScript sees twice (as CommonJS and as ESM) still fits (two
 * declarations of one class, with private members, never fit each other: TS2719).
 *
 * @example
 * import Anthropic from '@anthropic-ai/sdk'
 * import type { AnthropicSummarizerClient } from 'chatfold/summarize/anthropic'
 * const client: AnthropicSummarizerClient = new Anthropic({ apiKey: 'sk-ant-…' })
 *
 * @since 0.1.0
 * @category compaction
 */
export type AnthropicSummarizerClient = {
  readonly messages: {
    create(
      body: { readonly model: string },
      options?: { readonly signal?: AbortSignal },
    ): PromiseLike<{ readonly content: ReadonlyArray<{ readonly type: string; readonly text?: unknown }>; readonly usage?: unknown }>
  }
}

/**
 * The part of an Anthropic SDK client (`new Anthropic()`) that `anthropicCompaction` uses:
 * `beta.messages.create`, typed structurally as `AnthropicSummarizerClient` is (the request is the
 * body `toAnthropicRequest` writes, with the compaction parameters; the answer is read by
 * `fromAnthropicMessage`).
 *
 * @example
 * import Anthropic from '@anthropic-ai/sdk'
 * import type { AnthropicCompactionClient } from 'chatfold/summarize/anthropic'
 * const client: AnthropicCompactionClient = new Anthropic({ apiKey: 'sk-ant-…' })
 *
 * @since 0.1.0
 * @category compaction
 */
export type AnthropicCompactionClient = {
  readonly beta: {
    readonly messages: {
      create(body: { model: string }, options?: { readonly signal?: AbortSignal }): PromiseLike<{ readonly stop_reason?: unknown; readonly usage?: unknown }>
    }
  }
}

/**
 * A summariser for `compact` that asks a Claude model with the caller's client
 * (`client.messages.create`): given the conversation's request (`SummarizerContext.request`, as
 * `contextMiddleware` gives it), that request written by `toAnthropicRequest` (system, tools, tool
 * choice and messages as the conversation sends them) with the instruction as the last user turn and
 * cache breakpoints (`cache: {}`: the last tool, the system prompt, the instruction), so that it is
 * read from the prompt cache (use the conversation's model: a cache is per model);
 * else (or with `form: 'transcript'`) the prompt as `system` and the transcript as the user
 * message. The abort signal goes as the request's `signal`; the text blocks of the answer are the
 * summary, which must pass `validateSummary` (one retry by default).
 *
 * @example
 * import Anthropic from '@anthropic-ai/sdk'
 * import { compact } from 'chatfold'
 * import { anthropicSummarizer } from 'chatfold/summarize/anthropic'
 * declare const history: import('chatfold').Messages
 * const summarize = anthropicSummarizer({ client: new Anthropic(), model: 'claude-haiku-4-5' })
 * const { messages } = await compact({ summarize })(history)
 *
 * @since 0.1.0
 * @category compaction
 */
export const anthropicSummarizer = (options: ModelSummarizerOptions & { readonly client: AnthropicSummarizerClient; readonly model: string }): Summarizer =>
  modelSummarizer(async ({ system, turns, signal, maxOutputTokens, conversation, onAnswer }) => {
    const request = signal === undefined ? {} : { signal }
    // the answer's text; its usage told to the caller, for the compaction's cost
    const text = (r: Awaited<ReturnType<AnthropicSummarizerClient['messages']['create']>>): string => {
      onAnswer?.(answerOfAnthropicUsage(options.model, r.usage))
      return r.content.map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('')
    }
    if (conversation !== undefined) {
      // with cache breakpoints: the request reads the prefix from the cache only at a breakpoint
      const written = toAnthropicRequest({ cache: {} })({
        model: options.model,
        messages: prefixMessages(conversation, turns),
        ...requestTools(conversation),
        settings: { maxOutputTokens },
      })
      if (E.isLeft(written)) throw new Error(`Cannot summarise with Anthropic: ${formatAdapterFailure(written.left)}`)
      return text(await options.client.messages.create({ ...written.right.request, model: options.model }, request))
    }
    const body = { model: options.model, system, messages: turns.map((t) => ({ role: t.role, content: t.content })), max_tokens: maxOutputTokens }
    return text(await options.client.messages.create(body, request))
  }, options)

// --- provider compaction ---

/**
 * The beta flag of Anthropic's on-demand compaction (the `compaction` request parameter).
 *
 * @example
 * import { ANTHROPIC_COMPACTION_BETA } from 'chatfold/summarize/anthropic'
 * ANTHROPIC_COMPACTION_BETA // 'compact-2026-09-04'
 *
 * @since 0.1.0
 * @category compaction
 */
export const ANTHROPIC_COMPACTION_BETA = 'compact-2026-09-04'

/**
 * Options of {@link anthropicCompaction}.
 *
 * @since 0.1.0
 * @category compaction
 */
export type AnthropicCompactionOptions = {
  readonly client: AnthropicCompactionClient
  readonly model: string
  /** Replaces the server's own summarisation prompt; by default the server's is used, not `compact`'s `prompt`. */
  readonly instructions?: string
  /** The request's `max_tokens`; default 4,096. */
  readonly maxOutputTokens?: number
}

/**
 * A summariser for `compact` that has Anthropic compact the history itself: the system prompt and
 * the head (from the last compaction boundary on, which goes first) written by `toAnthropicRequest`
 * and sent with `client.beta.messages.create` as an on-demand compaction request
 * (`compaction: { type: 'summarize' }`, the `compact-2026-09-04` beta). The API answers with an
 * assistant message holding one `compaction` block (`stop_reason: 'compaction'`); read by
 * `fromAnthropicMessage`, that block becomes the history's compaction boundary, kept as it came
 * (the summary, its encrypted content and signature), and the Anthropic writer sends it back first.
 * Rejects when `compact` gave no history, when the history cannot be written, and when the answer
 * holds no compaction block or one without a summary (a failed compaction).
 *
 * @example
 * import Anthropic from '@anthropic-ai/sdk'
 * import { compact } from 'chatfold'
 * import { anthropicCompaction } from 'chatfold/summarize/anthropic'
 * declare const history: import('chatfold').Messages
 * const { messages } = await compact({ summarize: anthropicCompaction({ client: new Anthropic(), model: 'claude-sonnet-4-6' }) })(history)
 *
 * @since 0.1.0
 * @category compaction
 */
export const anthropicCompaction = (options: AnthropicCompactionOptions): Summarizer => async (_transcript, context) => {
  if (context.history === undefined) throw new Error('Cannot compact with Anthropic: the summariser needs the messages, as compact gives them')
  const written = toAnthropicRequest()({ model: options.model, messages: [...context.history.system, ...context.history.head] })
  if (E.isLeft(written)) throw new Error(`Cannot compact with Anthropic: ${formatAdapterFailure(written.left)}`)
  const body = {
    ...written.right.request,
    model: options.model,
    max_tokens: wholeOption(options.maxOutputTokens, { fallback: 4_096, min: 1 }),
    compaction: { type: 'summarize' as const, ...(options.instructions === undefined ? {} : { instructions: options.instructions }) },
    betas: [ANTHROPIC_COMPACTION_BETA],
  }
  const response = await options.client.beta.messages.create(body, context.signal === undefined ? {} : { signal: context.signal })
  context.onAnswer?.(answerOfAnthropicUsage(options.model, response.usage))
  const message = fromAnthropicMessage(response)
  if (E.isLeft(message)) throw new Error(`Cannot compact with Anthropic: ${formatDecodeFailure(message.left)}`)
  const boundary = message.right.parts.find(isCompactionBoundary)
  if (boundary === undefined)
    throw new Error(`Cannot compact with Anthropic: the answer holds no compaction block (stop_reason ${String(response.stop_reason)})`)
  const data = boundary.data
  if (typeof data !== 'object' || data === null || !('content' in data) || typeof data.content !== 'string' || data.content === '')
    throw new Error('Cannot compact with Anthropic: the compaction block has no summary (the compaction failed)')
  return { boundary }
}
