/**
 * Provider adapters: pure conversions of a history to and from the request and response shapes of
 * OpenAI (Chat Completions and Responses), Anthropic Messages, Google Gemini and the Vercel AI SDK
 * (model messages and UI messages), each provider's request rules (applied by its `to…`, and as a
 * lint of any request: `checkRequest`), and stream assemblers that turn each provider's streaming
 * events into conversation-builder inputs.
 * No SDK is needed at run time.
 *
 * What a target cannot carry is never dropped silently: it is mapped to its documented equivalent,
 * or named in a note of the result (`formatAdapterNote` prints one).
 *
 * @example
 * import { pipe } from 'fp-ts/function'
 * import * as E from 'fp-ts/Either'
 * import { formatAdapterNote, fromAnthropic, toOpenAIChat } from 'chatfold/adapters'
 * const converted = pipe(
 *   fromAnthropic({ system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] }),
 *   E.chainW(toOpenAIChat()),
 * )
 * if (E.isRight(converted)) converted.right.report.notes.map(formatAdapterNote)
 *
 * @module
 */
export type { AdapterFailure, AdapterNote, AdapterOptions, AdapterReport, AdapterResult, Converted } from './types.ts'
export type { Vendor, WireApi } from './vocabulary.ts'
export { formatAdapterFailure, formatAdapterNote } from './types.ts'
export type { JsonSchema, ModelRequest, RequestSettings, ToolChoice, ToolDefinition } from './request.ts'
export type { CacheHints } from './cache-hints.ts'
export { fromOpenAIChat, fromOpenAIChatCompletion } from './openai/chat-from.ts'
export { type OpenAIChatMessage, type OpenAIChatOptions, type OpenAIChatRequest, toOpenAIChat } from './openai/chat.ts'
export { fromOpenAIResponse, fromOpenAIResponses } from './openai/responses-from.ts'
export {
  fromOpenAIChatRequest,
  fromOpenAIResponsesRequest,
  type OpenAIChatBody,
  type OpenAIResponsesBody,
  toOpenAIChatRequest,
  toOpenAIResponsesRequest,
} from './openai/request.ts'
export { type OpenAIResponsesItem, type OpenAIResponsesOptions, type OpenAIResponsesRequest, toOpenAIResponses } from './openai/responses.ts'
export { type AnthropicBlock, type AnthropicMessage, type AnthropicProviderBlock, type AnthropicRequest, toAnthropic } from './anthropic/messages.ts'
export { type AnthropicRequestBody, type AnthropicTool, fromAnthropicRequest, toAnthropicRequest } from './anthropic/request.ts'
export {
  anthropicInputTokens,
  appliedEditsOf,
  contextEditFromPrune,
  type ContextEditReport,
  contextEditReport,
  type PruneEditOptions,
  withContextEdits,
} from './anthropic/context-edits.ts'
export { fromAnthropic, fromAnthropicMessage } from './anthropic/messages-from.ts'
export { fromGemini, fromGeminiResponse } from './gemini/contents-from.ts'
export { fromGeminiRequest, type GeminiRequestBody, toGeminiRequest } from './gemini/request.ts'
export { type GeminiContent, type GeminiPart, type GeminiRequest, toGemini } from './gemini/contents.ts'
export { type AIModelMessage, toModelMessages } from './ai-sdk/model-messages.ts'
export { fromModelMessages } from './ai-sdk/model-messages-from.ts'
export { anthropicStream, geminiStream, openAIChatStream, openAIResponsesStream, type StreamAssembler } from './streams.ts'
export { checkRequest, type RequestViolation } from './rules.ts'
export { type AIUIMessage, type AIUIPart, toUIMessages } from './ai-sdk/ui-messages.ts'
export { fromUIMessages } from './ai-sdk/ui-messages-from.ts'
