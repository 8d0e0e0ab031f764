/**
 * The wire API table: one row per wire API, with everything chatfold does in it (write and read a
 * history, write and read a whole request, its rules, its stream assembler, its shape, its vendor
 * for counting, and what the CLI calls and says of it). The CLI, `checkRequest`, `countRequest` and the
 * CLI's formats read this table; adding a wire API is a name in `vocabulary.ts`, a row here and a
 * folder beside this file.
 *
 * @module
 */
import type * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../message/failure.ts'
import type { Messages } from '../message/message.ts'
import type { ModelRequest } from './request.ts'
import type { Rule } from './rules-kit.ts'
import type { ShapeFit } from './shape.ts'
import type { StreamAssembler } from './stream-kit.ts'
import type { AdapterOptions, AdapterResult } from './types.ts'
import { type Vendor, vendorOf, type WireApi, wireApis } from './vocabulary.ts'
import { fromModelMessages } from './ai-sdk/model-messages-from.ts'
import { toModelMessages } from './ai-sdk/model-messages.ts'
import { aiSdkRules } from './ai-sdk/rules.ts'
import { aiSdkShape } from './ai-sdk/shape.ts'
import { toAnthropic } from './anthropic/messages.ts'
import { fromAnthropic } from './anthropic/messages-from.ts'
import { fromAnthropicRequest, toAnthropicRequest } from './anthropic/request.ts'
import { anthropicRules } from './anthropic/rules.ts'
import { anthropicShape } from './anthropic/shape.ts'
import { anthropicStream } from './anthropic/stream.ts'
import { toGemini } from './gemini/contents.ts'
import { fromGemini } from './gemini/contents-from.ts'
import { fromGeminiRequest, toGeminiRequest } from './gemini/request.ts'
import { geminiRules } from './gemini/rules.ts'
import { geminiShape } from './gemini/shape.ts'
import { geminiStream } from './gemini/stream.ts'
import { toOpenAIChat } from './openai/chat.ts'
import { fromOpenAIChat } from './openai/chat-from.ts'
import { openAIChatStream } from './openai/chat-stream.ts'
import { fromOpenAIChatRequest, fromOpenAIResponsesRequest, toOpenAIChatRequest, toOpenAIResponsesRequest } from './openai/request.ts'
import { toOpenAIResponses } from './openai/responses.ts'
import { fromOpenAIResponses } from './openai/responses-from.ts'
import { openAIResponsesStream } from './openai/responses-stream.ts'
import { openAIChatRules, openAIResponsesRules } from './openai/rules.ts'
import { openAIChatShape, openAIResponsesShape } from './openai/shape.ts'

/** A whole request's reader and writer, for a wire API that has an envelope beside its history. */
export type RequestRow = {
  readonly from: (u: unknown) => E.Either<DecodeFailure, ModelRequest>
  readonly to: (options: AdapterOptions) => (request: ModelRequest) => AdapterResult<unknown>
}

/** One wire API: its adapters, its whole request, its rules, its stream assembler, and how the CLI names it. */
export type WireApiRow = {
  /** the history written into the wire API's shape */
  readonly to: (options: AdapterOptions) => (ms: Messages) => AdapterResult<unknown>
  /** the history read from the wire API's shape */
  readonly from: (u: unknown) => E.Either<DecodeFailure, Messages>
  /** the whole request (envelope and history), when the wire API has one */
  readonly request?: RequestRow
  /** the field of a request body that holds the history */
  readonly field: 'messages' | 'input' | 'contents'
  /** whether that field may also be one text (OpenAI Responses' `input`) */
  readonly fieldMayBeText?: true
  /** the rules every request of the wire API must follow (`checkRequest`; applied by `to`) */
  readonly rules: ReadonlyArray<Rule>
  /** a new assembler of the wire API's stream events, when chatfold reads its streams */
  readonly stream?: () => StreamAssembler
  /** whether a request body is in the wire API's shape, and why (the CLI's detection) */
  readonly shape: (body: unknown) => ShapeFit | undefined
  /** what the CLI says of the wire API as an input format (`--from`) and as an output format (`--to`) */
  readonly cli: { readonly input: string; readonly output: string }
}

/** The table: one row per wire API. */
export const WIRE_API_TABLE: Readonly<Record<WireApi, WireApiRow>> = {
  'openai-chat': {
    to: toOpenAIChat,
    from: fromOpenAIChat,
    request: { from: fromOpenAIChatRequest, to: toOpenAIChatRequest },
    field: 'messages',
    rules: openAIChatRules,
    shape: openAIChatShape,
    stream: openAIChatStream,
    cli: { input: 'OpenAI Chat Completions request body ({ messages }) or its messages array', output: 'OpenAI Chat Completions request body' },
  },
  'openai-responses': {
    to: toOpenAIResponses,
    from: fromOpenAIResponses,
    request: { from: fromOpenAIResponsesRequest, to: toOpenAIResponsesRequest },
    field: 'input',
    fieldMayBeText: true,
    rules: openAIResponsesRules,
    shape: openAIResponsesShape,
    stream: openAIResponsesStream,
    cli: { input: 'OpenAI Responses request body ({ input, instructions })', output: 'OpenAI Responses request body' },
  },
  anthropic: {
    to: toAnthropic,
    from: fromAnthropic,
    request: { from: fromAnthropicRequest, to: toAnthropicRequest },
    field: 'messages',
    rules: anthropicRules,
    shape: anthropicShape,
    stream: anthropicStream,
    cli: { input: 'Anthropic Messages request body ({ system, messages }: tool_use, tool_result, thinking blocks)', output: 'Anthropic Messages request body' },
  },
  gemini: {
    to: toGemini,
    from: fromGemini,
    request: { from: fromGeminiRequest, to: toGeminiRequest },
    field: 'contents',
    rules: geminiRules,
    shape: geminiShape,
    stream: geminiStream,
    cli: { input: 'Gemini generateContent request body ({ contents, systemInstruction })', output: 'Gemini generateContent request body' },
  },
  'ai-sdk': {
    to: toModelMessages,
    from: fromModelMessages,
    field: 'messages',
    rules: aiSdkRules,
    shape: aiSdkShape,
    cli: { input: 'AI SDK model messages ({ messages } or an array: tool-call, tool-result, reasoning parts)', output: 'AI SDK model messages ({ messages })' },
  },
}

/** Every wire API with its row and vendor, in the order the CLI lists them. */
export const wireApiRows: ReadonlyArray<WireApiRow & { readonly api: WireApi; readonly vendor: Vendor | undefined }> = wireApis.map((api) => ({
  ...WIRE_API_TABLE[api],
  api,
  vendor: vendorOf(api),
}))
