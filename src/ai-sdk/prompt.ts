/**
 * The AI SDK's language-model prompt (`LanguageModelV3Prompt`, what a middleware's
 * `transformParams` sees as `params.prompt`) to and from a history, and its tool definitions as
 * chatfold's. The prompt is the SDK's `ModelMessage` after its standardisation: content always an
 * array (system a string), files instead of images, file data as bytes, base64 or a `URL`, and a
 * file's `originalUrl`. The conversion goes through the `ModelMessage` adapters, which already keep
 * what a prompt holds (provider options of parts and messages, tool-result output variants, tool
 * inputs, approval responses, provider-run calls), and adds what differs.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { LanguageModelMiddleware } from 'ai'
import type { DecodeFailure } from '../message/failure.ts'
import type { Message, Messages } from '../message/message.ts'
import type { Part, ToolResultContent } from '../message/part-model.ts'
import { aiFields, toModelMessages } from '../adapters/ai-sdk/model-messages.ts'
import { fromModelMessages } from '../adapters/ai-sdk/model-messages-from.ts'
import type { ToolChoice, ToolDefinition } from '../adapters/request.ts'
import type { AdapterOptions, AdapterResult } from '../adapters/types.ts'
import type { Vendor } from '../adapters/vocabulary.ts'
import { isObject } from '../internal/object.ts'

// --- model ---

/**
 * The options of one language-model call, as a middleware sees them (`LanguageModelV3CallOptions`
 * of the installed `ai`).
 *
 * @example
 * import type { LanguageModelCallOptions } from 'chatfold/ai-sdk'
 * const params: LanguageModelCallOptions = { prompt: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] }
 *
 * @since 0.1.0
 * @category adapters
 */
export type LanguageModelCallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params']

/**
 * A language-model prompt (`LanguageModelV3Prompt` of the installed `ai`).
 *
 * @example
 * import type { LanguageModelPrompt } from 'chatfold/ai-sdk'
 * const prompt: LanguageModelPrompt = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: [{ type: 'text', text: 'Hi' }] }]
 *
 * @since 0.1.0
 * @category adapters
 */
export type LanguageModelPrompt = LanguageModelCallOptions['prompt']

type PromptMessage = LanguageModelPrompt[number]

/** Where a file's `originalUrl` travels through the `ModelMessage` adapters, which have no such field. */
const STASH = 'chatfold-prompt'

// --- from ---

/** A prompt message with each file's `originalUrl` moved into its provider options (under `STASH`). */
const stashed = (m: PromptMessage): unknown => {
  if (typeof m.content === 'string' || !m.content.some((p) => p.type === 'file' && p.originalUrl !== undefined)) return m
  return {
    ...m,
    content: m.content.map((p) =>
      p.type === 'file' && p.originalUrl !== undefined ? { ...p, providerOptions: { ...p.providerOptions, [STASH]: { originalUrl: p.originalUrl } } } : p
    ),
  }
}

/** A part with the stash taken out of its kept provider options into its own AI SDK field. */
const unstashPart = (p: Part): Part => {
  const fields = aiFields(p)
  const options = fields['providerOptions']
  if (!isObject(options) || !isObject(options[STASH])) return p
  const { [STASH]: kept, ...rest } = options
  const { providerOptions: _, ...others } = fields
  const ai = { ...others, originalUrl: (kept as Record<string, unknown>)['originalUrl'], ...(Object.keys(rest).length > 0 ? { providerOptions: rest } : {}) }
  const own = (p as { readonly providerFields?: Readonly<Record<string, unknown>> }).providerFields
  return { ...p, providerFields: { ...own, 'ai-sdk': ai } } as Part
}

const unstash = (m: Message): Message => (m.parts.some((p) => isObject(aiFields(p)['providerOptions'])) ? { ...m, parts: m.parts.map(unstashPart) } : m)

/**
 * Decodes a language-model prompt (`params.prompt` of a middleware) into a history, one message a
 * prompt message; `toLanguageModelPrompt` gives it back as it came. Every bad field is reported by
 * path.
 *
 * @example
 * import { fromLanguageModelPrompt } from 'chatfold/ai-sdk'
 * fromLanguageModelPrompt([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: [{ type: 'text', text: 'Hi' }] }])
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromLanguageModelPrompt = (prompt: LanguageModelPrompt): E.Either<DecodeFailure, Messages> => {
  const decoded = fromModelMessages({ messages: prompt.map(stashed) })
  return E.isLeft(decoded) ? decoded : E.right(decoded.right.map(unstash))
}

// --- to ---

/** The text `fromModelMessages` reads from a tool-result output. */
const outputText = (output: Readonly<Record<string, unknown>>): string | undefined => {
  const value = output['value']
  switch (output['type']) {
    case 'text':
    case 'error-text':
      return typeof value === 'string' ? value : undefined
    case 'json':
    case 'error-json':
      return JSON.stringify(value ?? null)
    case 'execution-denied':
      return typeof output['reason'] === 'string' ? output['reason'] : 'Tool execution denied.'
    case 'content':
      return Array.isArray(value)
        ? value.map((c: unknown) => (isObject(c) && c['type'] === 'text' && typeof c['text'] === 'string' ? c['text'] : '')).join('')
        : ''
    default:
      return undefined
  }
}

/** A result's text as `outputText` reads it: its text, or its text blocks joined. */
const resultText = (content: ToolResultContent): string =>
  typeof content === 'string' ? content : content.map((b) => (b.type === 'text' ? b.text : '')).join('')

/**
 * A part ready for the `ModelMessage` adapter: a tool result rewritten since it was read (pruned,
 * cut by compaction) loses the output it came with, which would give back the old content; a
 * file's `originalUrl` goes into the stash.
 */
const outgoingPart = (p: Part): Part => {
  const fields = aiFields(p)
  if (p.type === 'tool_result' && isObject(fields['output']) && outputText(fields['output']) !== resultText(p.content)) {
    const { output: _, ...rest } = fields
    return { ...p, providerFields: { ...p.providerFields, 'ai-sdk': rest } }
  }
  if (typeof fields['originalUrl'] === 'string') {
    const { originalUrl, ...rest } = fields
    const options = isObject(rest['providerOptions']) ? rest['providerOptions'] : {}
    return {
      ...p,
      providerFields: {
        ...(p as { readonly providerFields?: Readonly<Record<string, unknown>> }).providerFields,
        'ai-sdk': { ...rest, providerOptions: { ...options, [STASH]: { originalUrl } } },
      },
    } as Part
  }
  return p
}

const outgoing = (
  m: Message,
): Message => (m.parts.some((p) => p.type === 'tool_result' || aiFields(p)['originalUrl'] !== undefined) ? { ...m, parts: m.parts.map(outgoingPart) } : m)

/** URL text (never base64, which has no colon; never a data URL) as the `URL` a prompt carries. */
const dataOf = (u: unknown): unknown => (typeof u === 'string' && /^[a-z][a-z0-9+.-]*:/i.test(u) && !u.startsWith('data:') ? new URL(u) : u)

/** A `ModelMessage` part as a prompt part: an image as a file, the stash back as `originalUrl`. */
const promptPart = (u: unknown): unknown => {
  if (!isObject(u)) return u
  if (u['type'] === 'image') {
    const { image, mediaType, type: _, ...rest } = u
    return { type: 'file', data: dataOf(image), mediaType: typeof mediaType === 'string' ? mediaType : 'image/*', ...rest }
  }
  if (u['type'] !== 'file') return u
  const { providerOptions: options, ...part } = u
  const withData = { ...part, data: dataOf(u['data']) }
  if (!isObject(options) || !isObject(options[STASH])) return options === undefined ? withData : { ...withData, providerOptions: options }
  const { [STASH]: kept, ...rest } = options
  return { ...withData, originalUrl: (kept as Record<string, unknown>)['originalUrl'], ...(Object.keys(rest).length > 0 ? { providerOptions: rest } : {}) }
}

/** A `ModelMessage` as a prompt message: content an array (system's a string). */
const promptMessage = (u: { readonly role: string; readonly content: unknown }): PromptMessage => {
  const content = u.role === 'system' || typeof u.content !== 'string' ? u.content : [{ type: 'text', text: u.content }]
  return (Array.isArray(content) ? { ...u, content: content.map(promptPart) } : { ...u, content }) as PromptMessage
}

/**
 * Converts a history to a language-model prompt (what a middleware's `transformParams` returns as
 * `params.prompt`), as `toModelMessages` does (the history through `forLLM`, tool pairs checked),
 * in the prompt's own form. What `fromLanguageModelPrompt` read comes back as it came; a tool result
 * whose content changed since (pruned, cut) goes as text.
 *
 * @example
 * import * as E from 'fp-ts/Either'
 * import { textMessage } from 'chatfold'
 * import { toLanguageModelPrompt } from 'chatfold/ai-sdk'
 * const r = toLanguageModelPrompt()([textMessage('user', 'Hi')])
 * if (E.isRight(r)) r.right.request // [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]
 *
 * @since 0.1.0
 * @category adapters
 */
export const toLanguageModelPrompt = (options: AdapterOptions = {}) => (ms: Messages): AdapterResult<LanguageModelPrompt> => {
  const r = toModelMessages(options)(ms.map(outgoing))
  return E.isLeft(r) ? r : E.right({ request: r.right.request.messages.map(promptMessage), report: r.right.report })
}

// --- tools ---

/**
 * The tool definitions of a call (`params.tools`) as chatfold's: functions with their JSON Schema,
 * provider tools (`{ type: 'provider', id: 'anthropic.web_search_20250305', … }`) kept as they came
 * under the provider their id names.
 *
 * @example
 * import { toolDefinitionsOf } from 'chatfold/ai-sdk'
 * toolDefinitionsOf([{ type: 'function', name: 'ls', inputSchema: { type: 'object', properties: {} } }])
 * // [{ type: 'function', name: 'ls', inputSchema: { type: 'object', properties: {} } }]
 *
 * @since 0.1.0
 * @category adapters
 */
export const toolDefinitionsOf = (tools: LanguageModelCallOptions['tools']): ReadonlyArray<ToolDefinition> =>
  (tools ?? []).map((t): ToolDefinition =>
    t.type === 'function'
      ? {
        type: 'function',
        name: t.name,
        ...(t.description === undefined ? {} : { description: t.description }),
        inputSchema: t.inputSchema as Readonly<Record<string, unknown>>,
        ...(t.strict === undefined ? {} : { strict: t.strict }),
      }
      : { type: 'provider', provider: t.id.split('.')[0] ?? t.id, kind: t.id.slice(t.id.indexOf('.') + 1), data: t }
  )

/**
 * A call's tool choice (`params.toolChoice`) as chatfold's.
 *
 * @example
 * import { toolChoiceOf } from 'chatfold/ai-sdk'
 * toolChoiceOf({ type: 'tool', toolName: 'ls' }) // { type: 'tool', name: 'ls' }
 *
 * @since 0.1.0
 * @category adapters
 */
export const toolChoiceOf = (choice: LanguageModelCallOptions['toolChoice']): ToolChoice | undefined =>
  choice === undefined ? undefined : choice.type === 'tool' ? { type: 'tool', name: choice.toolName } : { type: choice.type }

/**
 * The provider whose counting rules apply to a model, from its AI SDK ids (`provider` such as
 * `anthropic.messages`, `google.generative-ai`, `openai.responses`; a `modelId` naming Claude or
 * Gemini served elsewhere, as on Bedrock or Vertex); OpenAI's otherwise.
 *
 * @example
 * import { providerOfModel } from 'chatfold/ai-sdk'
 * providerOfModel({ provider: 'amazon-bedrock', modelId: 'anthropic.claude-sonnet-4-5' }) // 'anthropic'
 *
 * @since 0.1.0
 * @category adapters
 */
export const providerOfModel = (model: { readonly provider: string; readonly modelId: string }): Vendor => {
  const id = `${model.provider} ${model.modelId}`.toLowerCase()
  if (id.includes('anthropic') || id.includes('claude')) return 'anthropic'
  if (id.includes('google') || id.includes('vertex') || id.includes('gemini')) return 'google'
  return 'openai'
}
