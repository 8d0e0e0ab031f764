/**
 * Type-level checks, run by `tsc` (`npm run typecheck`): what each `to…` adapter produces is
 * assignable to the official SDK's own request types, and the fixtures have the SDKs' documented
 * response and event shapes. The SDKs are imported here only, never from `src/`.
 */
import type OpenAI from 'openai'
import type { ChatCompletionChunk, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import type { Response as OpenAIResponse, ResponseCreateParamsNonStreaming, ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses'
import type Anthropic from '@anthropic-ai/sdk'
import type { BetaMessageParam, MessageCreateParamsNonStreaming as BetaMessageCreateParams } from '@anthropic-ai/sdk/resources/beta/messages/messages'
import type { Content, GenerateContentParameters, GenerateContentResponse } from '@google/genai'
import type { generateText, ModelMessage, UIMessage } from 'ai'
import type { AIUIMessage, AIUIMessages } from '../../src/adapters/ai-sdk/ui-messages.ts'
import type { AIModelMessage, AIModelMessages } from '../../src/adapters/ai-sdk/model-messages.ts'
import type { AnthropicMessage, AnthropicProviderBlock, AnthropicRequest } from '../../src/adapters/anthropic/_wire.ts'
import type { GeminiContent, GeminiRequest } from '../../src/adapters/gemini/contents.ts'
import type { OpenAIChatMessage, OpenAIChatRequest } from '../../src/adapters/openai/chat.ts'
import type { OpenAIResponsesItem, OpenAIResponsesRequest } from '../../src/adapters/openai/responses.ts'
import type * as anthropic from './fixtures/anthropic.ts'
import type * as chat from './fixtures/openai-chat.ts'
import type * as responses from './fixtures/openai-responses.ts'
import type * as gemini from './fixtures/gemini.ts'
import type * as aiSdk from './fixtures/ai-sdk.ts'

type Assert<T extends true> = T
type Assignable<A, B> = [A] extends [B] ? true : false
type IsNever<T> = [T] extends [never] ? true : false
/** A type without the blocks an adapter keeps verbatim (those whose `type` is any string), arrays made mutable. */
type Typed<T> = T extends string ? T
  : T extends ReadonlyArray<infer U> ? Array<Typed<U>>
  : T extends { readonly type: infer K } ? string extends K ? never
    : { [P in keyof T]: Typed<T[P]> }
  : T extends object ? { [P in keyof T]: Typed<T[P]> }
  : T
/** A fixture written `as const`, made mutable, as data decoded from JSON would be. */
type Mutable<T> = T extends Uint8Array ? T
  : T extends ReadonlyArray<infer U> ? Array<Mutable<U>>
  : T extends object ? { -readonly [K in keyof T]: Mutable<T[K]> }
  : T

// --- adapter output → SDK request types ---

export type OpenAIChatChecks = [
  Assert<Assignable<OpenAIChatMessage, ChatCompletionMessageParam>>,
  Assert<Assignable<OpenAIChatRequest['messages'], OpenAI.Chat.ChatCompletionCreateParams['messages']>>,
]
export type OpenAIResponsesChecks = [
  Assert<Assignable<OpenAIResponsesItem, ResponseInputItem>>,
  Assert<Assignable<OpenAIResponsesRequest['input'], NonNullable<ResponseCreateParamsNonStreaming['input']>>>,
]
export type AnthropicChecks = [
  // blocks kept verbatim (AnthropicProviderBlock) are the API's own JSON, typed loosely: every block chatfold writes itself is the SDK's
  // a system turn among the messages is written only back to where it came from, and may hold no content (beta)
  Assert<Assignable<Typed<Exclude<AnthropicMessage, { readonly role: 'system' }>>, Anthropic.MessageParam>>,
  Assert<Assignable<Typed<AnthropicMessage>, BetaMessageParam>>,
  Assert<IsNever<Typed<AnthropicProviderBlock>>>,
  Assert<Assignable<{ type: 'text'; text: string }, Exclude<Typed<Extract<AnthropicMessage, { readonly role: 'user' }>>['content'], string>[number]>>,
  Assert<Assignable<NonNullable<AnthropicRequest['system']>, NonNullable<Anthropic.MessageCreateParams['system']>>>,
]
export type GeminiChecks = [Assert<Assignable<GeminiContent, Content>>, Assert<Assignable<NonNullable<GeminiRequest['systemInstruction']>, Content>>]
export type AISDKUIChecks = [Assert<Assignable<AIUIMessage, UIMessage>>, Assert<Assignable<AIUIMessages['messages'], UIMessage[]>>]
export type AISDKChecks = [
  Assert<Assignable<AIModelMessage, ModelMessage>>,
  Assert<Assignable<AIModelMessages['messages'], NonNullable<Parameters<typeof generateText>[0]['messages']>>>,
]

// The way the README shows it: spread the request into the SDK call.
declare const chatRequest: OpenAIChatRequest
declare const responsesRequest: OpenAIResponsesRequest
declare const anthropicRequest: Typed<AnthropicRequest>
declare const geminiRequest: GeminiRequest
declare const aiRequest: AIModelMessages

export const chatParams = { model: 'gpt-5', ...chatRequest } satisfies ChatCompletionCreateParamsNonStreaming
export const responsesParams = { model: 'gpt-5', store: false, ...responsesRequest } satisfies ResponseCreateParamsNonStreaming
export const anthropicParams = { model: 'claude-sonnet-4-5', max_tokens: 1024, ...anthropicRequest } satisfies BetaMessageCreateParams
export const geminiParams = {
  model: 'gemini-2.5-pro',
  contents: geminiRequest.contents,
  config: { ...(geminiRequest.systemInstruction === undefined ? {} : { systemInstruction: geminiRequest.systemInstruction }) },
} satisfies GenerateContentParameters
export const aiParams = { ...aiRequest } satisfies { messages: Array<ModelMessage> }

// --- fixtures → SDK response, request and event types ---

/** A type with its string enums as their string values, as they come in JSON. */
type Loose<T> = T extends string ? `${T}` : T extends Array<infer U> ? Array<Loose<U>> : T extends object ? { [K in keyof T]: Loose<T[K]> } : T
type GeminiResponseData = Loose<Omit<GenerateContentResponse, 'text' | 'data' | 'functionCalls' | 'executableCode' | 'codeExecutionResult'>>

export type FixtureChecks = [
  Assert<Assignable<Mutable<typeof anthropic.toolUseResponse>, Anthropic.Message>>,
  Assert<Assignable<Mutable<typeof anthropic.redactedResponse>, Anthropic.Message>>,
  Assert<Assignable<Mutable<typeof anthropic.request>['messages'], Array<Anthropic.MessageParam>>>,
  Assert<Assignable<Mutable<typeof chat.toolCallsCompletion>, OpenAI.Chat.ChatCompletion>>,
  Assert<Assignable<Mutable<typeof chat.lengthCompletion>, OpenAI.Chat.ChatCompletion>>,
  Assert<Assignable<Mutable<typeof chat.request>['messages'], Array<ChatCompletionMessageParam>>>,
  Assert<Assignable<Mutable<(typeof chat.streamChunks)[number]>, ChatCompletionChunk>>,
  Assert<Assignable<Mutable<typeof responses.functionCallResponse>, OpenAIResponse>>,
  Assert<Assignable<Mutable<typeof responses.messageResponse>, OpenAIResponse>>,
  Assert<Assignable<Mutable<typeof responses.request>['input'], Array<ResponseInputItem>>>,
  Assert<Assignable<Mutable<(typeof responses.streamEvents)[number]>, ResponseStreamEvent>>,
  Assert<Assignable<Mutable<typeof gemini.functionCallResponse>, GeminiResponseData>>,
  Assert<Assignable<Mutable<typeof gemini.textResponse>, GeminiResponseData>>,
  Assert<Assignable<Mutable<(typeof gemini.streamChunks)[number]>, GeminiResponseData>>,
  Assert<Assignable<Mutable<typeof gemini.request>['contents'], Array<Content>>>,
  Assert<Assignable<Mutable<typeof aiSdk.messages>['messages'], Array<ModelMessage>>>,
  Assert<Assignable<Mutable<typeof aiSdk.providerReasoning>['messages'], Array<ModelMessage>>>,
]
