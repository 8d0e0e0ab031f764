/**
 * The context kept within the window from an agent loop's `prepareStep` (`generateText`,
 * `streamText`, `ToolLoopAgent`): the step's messages replaced by those that fit.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { LanguageModel, ModelMessage } from 'ai'
import { fromModelMessages } from '../adapters/ai-sdk/model-messages-from.ts'
import { toModelMessages } from '../adapters/ai-sdk/model-messages.ts'
import type { ToolDefinition } from '../adapters/request.ts'
import { formatAdapterFailure } from '../adapters/types.ts'
import { type ContextOptions, conversationKeyOf, createContextKeeper, type SentPrompt } from './context.ts'
import { type ContextRecord, notesOf } from './_context-record.ts'
import { inputTokensOf } from './_anchor.ts'
import { providerOfModel } from './prompt.ts'
import { ContextError } from './errors.ts'
import { type CallAnswer, type CallCostLine, callCostLineOf } from '../cost/call-cost.ts'

/**
 * Options of {@link contextPrepareStep}: those of the context kept, and what the step's messages do
 * not show: the `system` prompt and the `tools` the loop sends with them (chatfold's
 * `ToolDefinition`s, counted as the provider counts them), and the key of a conversation (default:
 * the text of its first user message); `onRecord` hears what each step changed (with its receipt,
 * and the cost of its compaction's summariser calls), `onCost` the modelled cost of each step
 * (priced by `prices`) once the loop's next step shows its answer.
 *
 * @example
 * import type { ContextPrepareStepOptions } from 'chatfold/ai-sdk'
 * const options: ContextPrepareStepOptions = {
 *   contextWindow: 200_000,
 *   system: 'You are a coding agent.',
 *   tools: [{ type: 'function', name: 'read_file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }],
 *   onRecord: (record, step) => console.log(step, record.tokensBefore, '→', record.tokensAfter),
 * }
 *
 * @since 0.1.0
 * @category compaction
 */
export type ContextPrepareStepOptions = ContextOptions & {
  readonly system?: string
  readonly tools?: ReadonlyArray<ToolDefinition>
  readonly conversationKey?: (messages: ReadonlyArray<ModelMessage>) => string
  readonly onRecord?: (record: ContextRecord, stepNumber: number) => void
  readonly onCost?: (cost: CallCostLine, stepNumber: number) => void
}

/** The provider ids of a model, a string id (`anthropic/claude-sonnet-4.5`) naming both. */
const idsOf = (
  model: LanguageModel,
): { readonly provider: string; readonly modelId: string } => (typeof model === 'string' ? { provider: model, modelId: model } : model)

/**
 * A `prepareStep` function that keeps each step of an agent loop within `contextWindow −
 * reserveTokens`, as `contextMiddleware` does (prune, then compact, the last user request and tool
 * pairs kept), and returns `{ messages }` for a step it changed (nothing for one that fits). The
 * middleware sees the tool definitions and the answer's metadata; this sees the step's messages
 * only, so give it the `system` prompt and `tools` to count. Each step anchors on the input tokens
 * the previous step reported (`steps[i].usage.inputTokens`), as the middleware does, and tells
 * `onCost` what that step cost (the last step of a loop is priced by no later step: price it, or
 * every step, with `callCostLineOf` over the result's `steps`).
 *
 * @example
 * import { generateText, stepCountIs } from 'ai'
 * import { MockLanguageModelV3 } from 'ai/test'
 * import { contextPrepareStep } from 'chatfold/ai-sdk'
 * const model = new MockLanguageModelV3({
 *   doGenerate: { content: [{ type: 'text', text: 'Done.' }], finishReason: { unified: 'stop', raw: undefined }, usage: { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 2, text: 2, reasoning: undefined } }, warnings: [] },
 * })
 * const { text } = await generateText({
 *   model,
 *   prompt: 'Fix the failing test.',
 *   stopWhen: stepCountIs(20),
 *   prepareStep: contextPrepareStep({ contextWindow: 200_000, reserveTokens: 16_000 }),
 * })
 * text // 'Done.'
 *
 * @since 0.1.0
 * @category compaction
 */
export const contextPrepareStep = (
  options: ContextPrepareStepOptions,
): (
  step: { readonly messages: Array<ModelMessage>; readonly model: LanguageModel; readonly stepNumber: number },
) => Promise<{ messages: Array<ModelMessage> } | undefined> => {
  const keeper = createContextKeeper<ModelMessage>(options, (ws) => fromModelMessages({ messages: ws }))
  const system: ReadonlyArray<ModelMessage> = options.system === undefined ? [] : [{ role: 'system', content: options.system }]
  // the prompt each conversation sent at its last step, to which the next step's `steps` report the usage
  const sent = new Map<string, { readonly prompt: SentPrompt; readonly stepNumber: number }>()
  const priced = callCostLineOf(options.prices === undefined ? {} : { prices: options.prices })
  return async (step: {
    readonly messages: Array<ModelMessage>
    readonly model: LanguageModel
    readonly stepNumber: number
    readonly steps?: ReadonlyArray<CallAnswer & { readonly usage?: unknown }>
  }): Promise<{ messages: Array<ModelMessage> } | undefined> => {
    const key = options.conversationKey?.(step.messages) ?? conversationKeyOf(step.messages)
    const previous = sent.get(key)
    const n = inputTokensOf(step.steps?.at(-1)?.usage)
    const answered = step.steps?.at(-1)
    if (options.onCost !== undefined && answered !== undefined && step.stepNumber > 0) options.onCost(priced(answered), step.stepNumber - 1)
    if (previous !== undefined && previous.stepNumber === step.stepNumber - 1 && n !== undefined) keeper.report(previous.prompt, n)
    const fitted = await keeper.fit(key, {
      wire: [...system, ...step.messages],
      tools: options.tools ?? [],
      provider: options.provider ?? providerOfModel(idsOf(step.model)),
    })
    sent.delete(key)
    sent.set(key, { prompt: fitted.sent, stepNumber: step.stepNumber })
    if (sent.size > (options.maxConversations ?? 64)) sent.delete(sent.keys().next().value ?? key)
    if (fitted.record === undefined) return undefined
    const out = toModelMessages({ repair: 'repair' })(fitted.messages)
    if (E.isLeft(out)) throw new ContextError('unwritable', `Cannot write the messages: ${formatAdapterFailure(out.left)}`)
    const notes = notesOf(out.right.report)
    options.onRecord?.(notes.length === 0 ? fitted.record : { ...fitted.record, notes: [...(fitted.record.notes ?? []), ...notes] }, step.stepNumber)
    const messages = out.right.request.messages as Array<ModelMessage>
    return { messages: system.length > 0 ? messages.slice(system.length) : messages }
  }
}
