/**
 * `chatfold/ai-sdk`: the Vercel AI SDK kept within its context window. `contextMiddleware` for
 * `wrapLanguageModel` (every call of the model), `contextPrepareStep` for an agent loop's
 * `prepareStep`, and the conversion of the SDK's language-model prompt they rest on. Needs the
 * optional peer dependency `ai` (version 6).
 *
 * @example
 * import { wrapLanguageModel } from 'ai'
 * import { contextMiddleware } from 'chatfold/ai-sdk'
 * declare const model: Parameters<typeof wrapLanguageModel>[0]['model'] // e.g. anthropic('claude-sonnet-4-5') from @ai-sdk/anthropic
 * const kept = wrapLanguageModel({ model, middleware: contextMiddleware({ contextWindow: 200_000 }) })
 *
 * @module
 */
export type { ContextOptions } from './context.ts'
export type { ContextRecord } from './_context-record.ts'
export { contextMiddleware, type ContextMiddlewareOptions } from './middleware.ts'
export { ContextError, type ContextErrorCode, UIMessageStoreError, type UIMessageStoreErrorCode } from './errors.ts'
export { contextPrepareStep, type ContextPrepareStepOptions } from './prepare-step.ts'
export {
  fromLanguageModelPrompt,
  type LanguageModelCallOptions,
  type LanguageModelPrompt,
  providerOfModel,
  toLanguageModelPrompt,
  toolChoiceOf,
  toolDefinitionsOf,
} from './prompt.ts'
export * from './persistence.ts'
export { chatStoreContextState, type ChatStoreContextStateOptions, type ContextStateStore, memoryContextState } from './state.ts'
export { contextRecordOf } from './record.ts'
export { readBackAITools } from './read-back-tools.ts'
export { type CallAnswer, type CallCostFailure, type CallCostLine, callCostLineOf, callCostOf } from '../cost/call-cost.ts'
export type { RecordClearedOutput, RecordReceipt } from './_receipt-record.ts'
