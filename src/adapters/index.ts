/**
 * Provider adapters: pure conversions of a history to and from the request and response shapes of
 * OpenAI (Chat Completions and Responses), Anthropic Messages, Google Gemini and the Vercel AI SDK
 * (model messages and UI messages), each provider's request rules (applied by its `to…`, and as a
 * lint of any request: `checkRequest`), and stream assemblers that turn each provider's streaming
 * events into conversation-builder inputs.
 * No SDK is needed at run time.
 *
 * @module
 */
export type { AdapterError, AdapterNote, AdapterOptions, AdapterReport, AdapterResult, Converted, ProviderId } from './types.ts'
export { formatAdapterError } from './types.ts'
export type { ChatRequest, JsonSchema, RequestSettings, ToolChoice, ToolDefinition } from './request.ts'
export { fromOpenAIChat, fromOpenAIChatCompletion } from './openai-chat-from.ts'
export {
  type OpenAIChatMessage,
  type OpenAIChatOptions,
  type OpenAIChatRequest,
  type OpenAIChatTextPart,
  type OpenAIChatToolCall,
  type OpenAIChatUserPart,
  toOpenAIChat,
} from './openai-chat.ts'
export { fromOpenAIResponse, fromOpenAIResponses } from './openai-responses-from.ts'
export {
  fromOpenAIChatRequest,
  fromOpenAIResponsesRequest,
  type OpenAIChatBody,
  type OpenAIResponsesBody,
  toOpenAIChatRequest,
  toOpenAIResponsesRequest,
} from './openai-request.ts'
export {
  OPENAI_CHAT_CONTENT,
  OPENAI_CHAT_ROLES,
  OPENAI_CHAT_TOOL_CALLS,
  OPENAI_RESPONSES_CONTENT,
  OPENAI_RESPONSES_KEPT_ITEMS,
  OPENAI_RESPONSES_MAPPED_ITEMS,
} from './openai-vocab.ts'
export {
  type OpenAIResponsesContent,
  type OpenAIResponsesItem,
  type OpenAIResponsesOptions,
  type OpenAIResponsesRequest,
  toOpenAIResponses,
} from './openai-responses.ts'
export { type AnthropicBlock, type AnthropicImageType, type AnthropicMediaBlock, type AnthropicMessage, type AnthropicRequest, toAnthropic } from './anthropic.ts'
export { fromAnthropic, fromAnthropicMessage } from './anthropic-from.ts'
export { fromGemini, fromGeminiResponse } from './gemini-from.ts'
export { type GeminiContent, type GeminiPart, type GeminiRequest, toGemini } from './gemini.ts'
export {
  type AIContentPart,
  type AIModelMessage,
  type AIModelMessages,
  type AIProviderOptions,
  type AIToolResultPart,
  toModelMessages,
} from './ai-sdk.ts'
export { fromModelMessages } from './ai-sdk-from.ts'
export { anthropicStream, geminiStream, openAIChatStream, openAIResponsesStream, type StreamAssembler } from './streams.ts'
export { checkRequest, type RequestProvider, type RequestViolation } from './rules.ts'
export { type AIUIMessage, type AIUIMessages, type AIUIPart, type AIUIToolPart, toUIMessages } from './ai-sdk-ui.ts'
export { fromUIMessages } from './ai-sdk-ui-from.ts'
