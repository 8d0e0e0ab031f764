/**
 * The conversation builder: a pure core and a thin shell. The core is a state and
 * `step(state, input) → { state, events }`, so a builder can be replayed, tested without mocks,
 * and its history is always an immutable snapshot. The shell, `createBuilder(...)`, holds the
 * state, stamps ids, times and token estimates onto inputs, and sends events to a sink.
 *
 * Events are plain data; `replayBuilderEvents` rebuilds a history from them alone (a UI mirror),
 * and `replayBuilderInputs` rebuilds a whole state from the inputs a builder recorded.
 *
 * Streaming tool-call arguments keep their raw text; `parsePartialJSON` and `partialArguments`
 * read them best-effort while they stream. `completeToolCall` records the call's result as a tool
 * message: right after the assistant message when it is committed (or after its other results, if
 * it is already), and a call never gets a second result (`addToolResult` replaces the first).
 *
 * {@link createChat} is the container a UI or a consumer of a stream reads from: `append`, `replace`,
 * `since` and `wait` over an immutable history.
 *
 * @example
 * import { createBuilder } from 'chatfold/builder'
 * const b = createBuilder()
 * b.addUserMessage({ text: 'What is Go?' })
 * b.history().length // 1
 *
 * @module
 */
export type { BuilderEvent, BuilderInput, BuilderState, HistoryInput, LifecycleInput, StepResult, ToolResultFields } from './types.ts'
export { type BuilderStateOptions, makeBuilderState } from './state.ts'
export { type Turn, turns } from './turns.ts'
export { applyBuilderEvent, replayBuilderEvents, replayBuilderInputs, step } from './step.ts'
export { parsePartialJSON, partialArguments } from './partial-json.ts'
export { type Builder, type BuilderOptions, createBuilder } from './builder.ts'
export { type Chat, createChat, type UpdatesOptions, type WaitOptions } from './chat.ts'
