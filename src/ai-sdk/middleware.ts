/**
 * A language-model middleware that keeps every call of a model within its context window:
 * `wrapLanguageModel({ model, middleware: contextMiddleware({ contextWindow }) })`.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { LanguageModelMiddleware } from 'ai'
import { formatAdapterFailure } from '../adapters/types.ts'
import { type ContextOptions, conversationKeyOf, createContextKeeper, type SentPrompt } from './context.ts'
import { type ContextRecord, notesOf } from './_context-record.ts'
import { withCacheHints } from './_cache-hints.ts'
import { inputTokensOf } from './_anchor.ts'
import {
  fromLanguageModelPrompt,
  type LanguageModelCallOptions,
  type LanguageModelPrompt,
  providerOfModel,
  toLanguageModelPrompt,
  toolChoiceOf,
  toolDefinitionsOf,
} from './prompt.ts'
import { ContextError } from './errors.ts'
import { isSpecificationV4, promptToV3, promptToV4 } from './_specification.ts'
import { type CallCostLine, callCostLineOf } from '../cost/call-cost.ts'
import { answerOfModelUsage } from './_model-usage.ts'

/**
 * Options of {@link contextMiddleware}: those of the context kept (`ContextOptions`), the key
 * that tells conversations apart (default: the text of the prompt's first user message), and
 * whether to write the provider's prompt-cache hints into each call (`cache`, default `auto`: for
 * Anthropic, `providerOptions.anthropic.cacheControl` breakpoints on the last message, the system
 * prompt and the last tool, at most four in a call with those it holds; for OpenAI, the
 * conversation's `providerOptions.openai.promptCacheKey`; `off`: none). `onCall` hears every call
 * once the model has answered: its modelled cost (`CallCostLine`, priced by `prices`) and the
 * record of what was done to it (`undefined` for a call that went through as it came).
 *
 * @example
 * import type { ContextMiddlewareOptions } from 'chatfold/ai-sdk'
 * const options: ContextMiddlewareOptions = { contextWindow: 128_000, conversationKey: (params) => String(params.headers?.['x-chat-id'] ?? '') }
 *
 * @since 0.1.0
 * @category compaction
 */
export type ContextMiddlewareOptions = ContextOptions & {
  readonly conversationKey?: (params: LanguageModelCallOptions) => string
  readonly cache?: 'auto' | 'off'
  readonly onCall?: (call: { readonly record: ContextRecord | undefined; readonly cost: CallCostLine }) => void
}

/**
 * A middleware (`LanguageModelMiddleware` of the installed `ai`: `ai` 6's `LanguageModelV3`
 * prompts, and `ai` 7's `LanguageModelV4` ones, told apart by the model it is handed and written
 * back in the same specification) that, before each call, keeps the
 * request within `contextWindow − reserveTokens`: it counts the whole request as the model's
 * provider counts it (prompt and tool definitions, `countModelRequest`), and when it is over, prunes
 * old tool output with a pruner kept per conversation, then, if that is not enough, compacts the
 * head of the conversation into a summary (`extractiveSummarize`, or the `summarize` given, such as
 * `aiSdkSummarizer` of `chatfold/summarize/ai-sdk`), which later calls reuse until the next
 * compaction is due. The last user request is sent as it is and no tool call is separated from its
 * result. A call it changed answers with what it did under `providerMetadata.chatfold`
 * (`ContextRecord`: tokens before and after, what was pruned, what was summarised and the
 * summary, and what the prompt could not carry, such as an assistant message of reasoning alone),
 * with its receipt (`receipt`: the messages summarised, each tool output pruned with its call id,
 * tool and tokens, the artifacts only the dropped part held), the call's modelled cost (`cost`,
 * from the usage it reported, cache reads and writes priced apart; a model missing from the price
 * table named, never priced as zero) and the cost of each summariser call of its compaction
 * (`compaction.calls`).
 * A request that fits goes through as it came, but for the prompt-cache hints written into every
 * call (`cache`, on by default: Anthropic breakpoints, OpenAI's `promptCacheKey`). Each decision
 * anchors on the input tokens the model reported for the conversation's previous call
 * (`usage.inputTokens`): when it counted more than the estimate, the next request reads at that
 * ratio (the reported count plus what was added since, raised alike), never less than the
 * estimate. Rejects when not even the system prompt, a summary and the last request fit (a
 * `ContextError`, `code` `too-large`).
 *
 * @example
 * import { generateText, wrapLanguageModel } from 'ai'
 * import { MockLanguageModelV3 } from 'ai/test'
 * import { contextMiddleware } from 'chatfold/ai-sdk'
 * const model = wrapLanguageModel({
 *   model: new MockLanguageModelV3({
 *     doGenerate: { content: [{ type: 'text', text: 'Done.' }], finishReason: { unified: 'stop', raw: undefined }, usage: { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 2, text: 2, reasoning: undefined } }, warnings: [] },
 *   }),
 *   middleware: contextMiddleware({ contextWindow: 200_000, reserveTokens: 16_000 }),
 * })
 * const { text } = await generateText({ model, prompt: 'Fix the failing test.' })
 * text // 'Done.'
 *
 * @since 0.1.0
 * @category compaction
 */
export const contextMiddleware = (options: ContextMiddlewareOptions): LanguageModelMiddleware => {
  const keeper = createContextKeeper<LanguageModelPrompt[number]>(options, (ws) => fromLanguageModelPrompt([...ws]))
  const records = new WeakMap<object, ContextRecord>()
  const prompts = new WeakMap<object, SentPrompt>()
  const priced = callCostLineOf(options.prices === undefined ? {} : { prices: options.prices })
  /** Tells the keeper the usage of a call, and answers the call's record (if any) with its cost. */
  const heard = (params: object, usage: unknown, modelId: string | undefined): ContextRecord | undefined => {
    const prompt = prompts.get(params)
    const n = inputTokensOf(usage)
    if (prompt !== undefined && n !== undefined) keeper.report(prompt, n)
    const cost = priced(answerOfModelUsage(modelId, usage))
    const found = records.get(params)
    const record = found === undefined ? undefined : { ...found, cost }
    options.onCall?.({ record, cost })
    return record
  }
  return {
    specificationVersion: 'v3',
    transformParams: async ({ params, model }) => {
      // ai 7 hands over V4 prompts: read and written here as V3, the shapes the logic knows
      const v4 = isSpecificationV4(model)
      const wire = v4 ? promptToV3(params.prompt) : params.prompt
      const key = options.conversationKey?.(params) ?? conversationKeyOf(wire)
      const toolChoice = toolChoiceOf(params.toolChoice)
      const provider = options.provider ?? providerOfModel(model)
      const hinted = (p: LanguageModelCallOptions): LanguageModelCallOptions => (options.cache === 'off' ? p : withCacheHints(provider, key, p))
      const fitted = await keeper.fit(key, {
        wire,
        tools: toolDefinitionsOf(params.tools),
        provider,
        ...(toolChoice === undefined ? {} : { toolChoice }),
        ...(params.maxOutputTokens === undefined ? {} : { reserveTokens: params.maxOutputTokens }),
      })
      if (fitted.record === undefined) {
        const passed = hinted(params)
        prompts.set(passed, fitted.sent)
        return passed
      }
      const prompt = toLanguageModelPrompt({ repair: 'repair' })(fitted.messages)
      if (E.isLeft(prompt)) throw new ContextError('unwritable', `Cannot write the prompt: ${formatAdapterFailure(prompt.left)}`)
      const out = hinted({ ...params, prompt: v4 ? promptToV4(prompt.right.request) : prompt.right.request })
      const notes = notesOf(prompt.right.report)
      records.set(out, notes.length === 0 ? fitted.record : { ...fitted.record, notes: [...(fitted.record.notes ?? []), ...notes] })
      prompts.set(out, fitted.sent)
      return out
    },
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const result = await doGenerate()
      const record = heard(params, result.usage, result.response?.modelId ?? model.modelId)
      return record === undefined ? result : { ...result, providerMetadata: { ...result.providerMetadata, chatfold: record } }
    },
    wrapStream: async ({ doStream, params, model }) => {
      const result = await doStream()
      if (!records.has(params) && !prompts.has(params)) return result
      type StreamPart = typeof result.stream extends ReadableStream<infer P> ? P : never
      let modelId = model.modelId
      const stream = result.stream.pipeThrough(
        new TransformStream<StreamPart, StreamPart>({
          transform: (part, controller) => {
            if (part.type === 'response-metadata' && part.modelId !== undefined) modelId = part.modelId
            if (part.type !== 'finish') return controller.enqueue(part)
            const record = heard(params, part.usage, modelId)
            controller.enqueue(record === undefined ? part : { ...part, providerMetadata: { ...part.providerMetadata, chatfold: record } })
          },
        }),
      )
      return { ...result, stream }
    },
  }
}
