/**
 * A compaction summariser that calls a model through the AI SDK (`generateText`), any provider.
 * Needs the optional peer dependency `ai`.
 *
 * @module
 */
import { generateText, jsonSchema, type LanguageModel, type ModelMessage, type Tool, tool, type ToolChoice as AIToolChoice, type ToolSet } from 'ai'
import * as E from 'fp-ts/Either'
import type { Summarizer } from '../compaction/compact.ts'
import type { ToolChoice, ToolDefinition } from '../adapters/request.ts'
import { toModelMessages } from '../adapters/ai-sdk/model-messages.ts'
import { formatAdapterFailure } from '../adapters/types.ts'
import { isObject } from '../internal/object.ts'
import { modelSummarizer, type ModelSummarizerOptions, prefixMessages, requestTools } from './check.ts'

export { type AskModel, modelSummarizer, type ModelSummarizerOptions, PREFIX_INSTRUCTION, type SummaryTurn } from './check.ts'

/** A provider tool's id as the AI SDK names it (`anthropic.web_search_20250305`). */
const isProviderId = (u: unknown): u is `${string}.${string}` => typeof u === 'string' && u.includes('.')

/** An Anthropic cache breakpoint, as the AI SDK's Anthropic provider takes it (other providers ignore it). */
const BREAKPOINT = { anthropic: { cacheControl: { type: 'ephemeral' } } }

/**
 * The conversation's tool definitions as an AI SDK tool set (none executes: the summariser runs no
 * tool), the last function tool with a cache breakpoint, as `contextMiddleware` writes it.
 */
const toolSetOf = (tools: ReadonlyArray<ToolDefinition>): ToolSet => {
  const set: Record<string, Tool> = {}
  let last = tools.length - 1
  while (last >= 0 && tools[last]?.type !== 'function') last--
  tools.forEach((t, i) => {
    if (t.type === 'function') {
      set[t.name] = tool({
        ...(t.description === undefined ? {} : { description: t.description }),
        inputSchema: jsonSchema(t.inputSchema),
        ...(t.strict === undefined ? {} : { strict: t.strict }),
        ...(i === last ? { providerOptions: BREAKPOINT } : {}),
      })
      return
    }
    // a provider tool read from a call's options (`toolDefinitionsOf`) holds the SDK's own definition
    const d = t.data
    if (!isObject(d) || !isProviderId(d['id']) || typeof d['name'] !== 'string' || !isObject(d['args'])) {
      throw new TypeError(`Cannot summarise with the AI SDK: ${t.provider}'s "${t.kind}" tool is not an AI SDK provider tool ({ id, name, args })`)
    }
    set[d['name']] = { type: 'provider', id: d['id'], args: { ...d['args'] }, inputSchema: jsonSchema({ type: 'object' }) }
  })
  return set
}

/** chatfold's tool choice as the AI SDK's. */
const choiceOf = (c: ToolChoice): AIToolChoice<ToolSet> => (c.type === 'tool' ? { type: 'tool', toolName: c.name } : c.type)

/**
 * A summariser for `compact` that asks an AI SDK model with `generateText`. Given the
 * conversation's request (`SummarizerContext.request`, as `contextMiddleware` gives it), it sends
 * that request (its messages, system prompt among them, as `toModelMessages` writes them, its tools
 * and tool choice) with the instruction as the last user message, and Anthropic cache breakpoints
 * where `contextMiddleware` writes them (`providerOptions.anthropic.cacheControl` on the system
 * prompt, the last message and the last tool; other providers ignore them), so that the provider
 * reads the shared prefix from its prompt cache (use the conversation's model); else (or with `form:
 * 'transcript'`) the prompt as `system` and the transcript as the user message. `abortSignal` is
 * passed on; the answer must pass `validateSummary` (one retry by default, naming the missing
 * sections). Each answer's model and usage are told to the caller (`SummarizerContext.onAnswer`),
 * for the compaction's cost. Rejects on a provider tool it cannot give the SDK back.
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
  modelSummarizer(async ({ system, turns, signal, maxOutputTokens, conversation, onAnswer }) => {
    const abort = signal === undefined ? {} : { abortSignal: signal }
    if (conversation !== undefined) {
      const written = toModelMessages()(prefixMessages(conversation, turns))
      if (E.isLeft(written)) throw new Error(`Cannot summarise with the AI SDK: ${formatAdapterFailure(written.left)}`)
      // the leading system messages as the call's system prompt, as the conversation's call gives them
      const all: Array<ModelMessage> = [...written.right.request.messages]
      const lead = all.findIndex((m) => m.role !== 'system')
      const system = all.slice(0, lead < 0 ? all.length : lead).flatMap((m) => (m.role === 'system' ? [m] : []))
      // Anthropic cache breakpoints where the middleware writes them (the end of the system prompt, the last message), so that the prefix is read from the cache
      const marked = <M extends ModelMessage>(ms: Array<M>): Array<M> =>
        ms.map((m, i) => (i === ms.length - 1 ? { ...m, providerOptions: { ...m.providerOptions, ...BREAKPOINT } } : m))
      const messages = marked(all.slice(system.length))
      const checked = requestTools(conversation)
      const tools = checked.tools === undefined || checked.tools.length === 0 ? undefined : toolSetOf(checked.tools)
      const r = await generateText({
        model: options.model,
        ...(system.length === 0 ? {} : { system: marked(system) }),
        messages,
        ...(tools === undefined ? {} : { tools }),
        ...(checked.toolChoice === undefined ? {} : { toolChoice: choiceOf(checked.toolChoice) }),
        maxOutputTokens,
        ...abort,
      })
      onAnswer?.(r)
      return r.text
    }
    const r = await generateText({
      model: options.model,
      system,
      messages: turns.map((t) => ({ role: t.role, content: t.content })),
      maxOutputTokens,
      ...abort,
    })
    onAnswer?.(r)
    return r.text
  }, options)
