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
 * @module
 */
export type { BuilderEvent, BuilderInput, BuilderState, HistoryInput, LifecycleInput, StepResult, ToolResultFields } from './conversation/types.ts'
export { type BuilderStateOptions, makeBuilderState, nextId, type Turn, turns } from './conversation/state.ts'
export { applyBuilderEvent, replayBuilderEvents, replayBuilderInputs, step } from './conversation/step.ts'
export { parsePartialJSON, partialArguments } from './conversation/partial-json.ts'
export { type Builder, type BuilderOptions, createBuilder } from './conversation/builder.ts'
