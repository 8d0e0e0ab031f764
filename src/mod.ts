/**
 * chatfold: a provider-agnostic data model and history toolkit for LLM chat and agent
 * conversations. This entry holds the common jobs: build and decode messages, the views, pruning,
 * counting, compaction, the engine and conversion to and from each provider. Each concept has its
 * own entry with everything it offers: `chatfold/message`, `chatfold/history`, `chatfold/tokens`,
 * `chatfold/tokenizer`, `chatfold/compaction`, `chatfold/builder`, `chatfold/store`,
 * `chatfold/engine`, `chatfold/adapters`, `chatfold/counting`, `chatfold/sessions`.
 *
 * @example
 * import { pipe } from 'fp-ts/function'
 * import { forLLM, pruneToolResults, textContent, textMessage } from 'chatfold'
 * pipe(textMessage('user', 'What is Go?'), textContent) // 'What is Go?'
 * pipe([textMessage('user', 'What is Go?')], forLLM, pruneToolResults({ protectTokens: 40_000 })).length // 1
 *
 * @module
 */
export {
  type DecodeFailure,
  decodeMessages,
  encodeMessages,
  formatDecodeFailure,
  image,
  makeMessage,
  type Message,
  type Messages,
  parseMessages,
  type Part,
  reasoning,
  type Role,
  text,
  textContent,
  textMessage,
  toolCall,
  toolCalls,
  toolResult,
  toolResults,
} from './message/mod.ts'
export {
  forDisplay,
  forExport,
  forLLM,
  forSave,
  fromJSONL,
  type PruneOptions,
  pruneToolResults,
  renderMarkdown,
  repairToolPairs,
  toJSONL,
  validateToolPairs,
} from './history/mod.ts'
export { contextTokens, countMessages, type Estimator, smartHeuristic } from './tokens/mod.ts'
export { loadEstimator } from './tokenizer/mod.ts'
export { compact, extractiveSummarize, planCompaction, shouldCompact, type Summarizer } from './compaction/mod.ts'
export { createBuilder } from './builder/mod.ts'
export { createEngine, type Engine, type EngineSession } from './engine/mod.ts'
export {
  formatAdapterNote,
  fromAnthropic,
  fromGemini,
  fromModelMessages,
  fromOpenAIChat,
  fromOpenAIResponses,
  toAnthropic,
  toGemini,
  toModelMessages,
  toOpenAIChat,
  toOpenAIResponses,
} from './adapters/mod.ts'
