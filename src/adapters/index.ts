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
export { formatAdapterError, formatAdapterNote } from './types.ts'
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
export {
  type AnthropicBlock,
  type AnthropicImageType,
  type AnthropicMediaBlock,
  type AnthropicMessage,
  type AnthropicProviderBlock,
  type AnthropicRequest,
  toAnthropic,
} from './anthropic.ts'
export { ANTHROPIC_BLOCK_TYPES, type AnthropicBlockType } from './anthropic-blocks.ts'
export { type AnthropicRequestBody, type AnthropicTool, fromAnthropicRequest, toAnthropicRequest } from './anthropic-request.ts'
export {
  anthropicInputTokens,
  appliedEditsOf,
  CONTEXT_EDITS_KEY,
  contextEditFromPrune,
  contextEditReport,
  type ContextEditReport,
  type PruneEditOptions,
  withContextEdits,
} from './anthropic-context.ts'
export { fromAnthropic, fromAnthropicMessage } from './anthropic-from.ts'
export { fromGemini, fromGeminiResponse, GEMINI_PART_KEYS } from './gemini-from.ts'
export { fromGeminiRequest, type GeminiRequestBody, toGeminiRequest } from './gemini-request.ts'
export { CODE_EXECUTION_TOOL } from './foreign-google.ts'
export { type GeminiContent, type GeminiPart, type GeminiRequest, toGemini } from './gemini.ts'
export {
  type AIContentPart,
  type AIModelMessage,
  type AIModelMessages,
  type AIProviderOptions,
  type AIToolResultPart,
  type AIJsonValue,
  type AIToolResultOutput,
  type AIToolApprovalPart,
  toModelMessages,
} from './ai-sdk.ts'
export { AI_MODEL_PART_TYPES, AI_TOOL_OUTPUT_TYPES, fromModelMessages } from './ai-sdk-from.ts'
export { anthropicStream, geminiStream, openAIChatStream, openAIResponsesStream, type StreamAssembler } from './streams.ts'
export { ANTHROPIC_DELTA_TYPES } from './streams-anthropic.ts'
export { checkRequest, type RequestProvider, type RequestViolation } from './rules.ts'
export { type AIUIMessage, type AIUIMessages, type AIUIPart, type AIUIToolPart, toUIMessages } from './ai-sdk-ui.ts'
export { AI_UI_PART_TYPES, AI_UI_TOOL_STATES, type AIUIPartType, fromUIMessages } from './ai-sdk-ui-from.ts'
export { calibrationFromUsage, countChatRequest, type CountedProvider, countRequest, type CountRequestOptions, DEFAULT_CALIBRATION, type RequestTokens } from './count.ts'
export { type AnthropicCountClient, anthropicCounter, cachedCounter, type GeminiCountClient, geminiCounter, type OpenAICountClient, openAICounter, type TokenCounter } from './provider-count.ts'
export {
  type ClaudeCodeOptions,
  type ClaudeCodeOrigin,
  type ClaudeCodeSession,
  type ClaudeCodeUsage,
  fromClaudeCode,
  isClaudeCodeRecord,
  readClaudeCode,
} from './claude-code.ts'
