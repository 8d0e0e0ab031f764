/**
 * The builder's pure core: one `step` function over every input, replay of recorded inputs, and
 * replay of events into a mirror of the history.
 *
 * @module
 */
import type { Messages } from '../message/message.ts'
import type { BuilderEvent, BuilderInput, BuilderState, LifecycleInput, StepResult } from './types.ts'
import { stepLifecycle } from './_lifecycle.ts'
import { stepHistory } from './_history.ts'

// --- step ---

/** The lifecycle input types (a record, so that the compiler checks the list is complete). */
const LIFECYCLE: Readonly<Record<LifecycleInput['type'], true>> = {
  startAssistant: true,
  appendContent: true,
  appendThinking: true,
  setThinkingSignature: true,
  addRedactedThinking: true,
  addPart: true,
  setPartFields: true,
  addToolCall: true,
  appendToolCallArguments: true,
  startToolCall: true,
  completeToolCall: true,
  finish: true,
  setError: true,
  finalizeAssistant: true,
}

const isLifecycle = (input: BuilderInput): input is LifecycleInput => Object.prototype.hasOwnProperty.call(LIFECYCLE, input.type)

/**
 * The builder's reducer: applies one input to a state and says what happened. Pure: the same
 * state and input always give the same result, the state passed in is never changed, and an input
 * that changes nothing returns that very state. Misuse (a chunk with no open message, an unknown
 * tool call id, an index out of range) is a no-op with a `warning` event, never an exception.
 *
 * @example
 * import { makeBuilderState, step } from 'chatfold/builder'
 * const s0 = makeBuilderState()
 * const s1 = step(s0, { type: 'startAssistant' }).state
 * const { state, events } = step(s1, { type: 'appendContent', text: 'Hi' })
 * events[0]?.type // 'messagePartAdded'
 *
 * @since 0.1.0
 * @category builder
 */
export const step = (state: BuilderState, input: BuilderInput): StepResult => {
  return isLifecycle(input) ? stepLifecycle(state, input) : stepHistory(state, input)
}

/**
 * Folds inputs into a state with `step`, collecting every event: replaying the inputs a builder
 * recorded rebuilds exactly the same history.
 *
 * @example
 * import { makeBuilderState, replayBuilderInputs } from 'chatfold/builder'
 * const { state } = replayBuilderInputs([{ type: 'startAssistant' }, { type: 'appendContent', text: 'Hi' }, { type: 'finalizeAssistant' }])(makeBuilderState())
 * state.history.length // 1
 *
 * @since 0.1.0
 * @category builder
 */
export const replayBuilderInputs = (inputs: ReadonlyArray<BuilderInput>) => (state: BuilderState): StepResult => {
  let s = state
  const events: BuilderEvent[] = []
  for (const input of inputs) {
    const r = step(s, input)
    s = r.state
    for (const e of r.events) events.push(e)
  }
  return { state: s, events }
}

// --- mirror ---

const insertAt = (ms: Messages, i: number, m: Messages[number]): Messages => [...ms.slice(0, i), m, ...ms.slice(i)]

/**
 * Applies one event to a mirror of a builder's history: `messageFinalized`, `messageAdded` and
 * `syntheticInjected` insert at their index, `messageUpdated` replaces, `historyChanged` swaps the
 * whole history; streaming and warning events change nothing (the same array comes back).
 *
 * @example
 * import { applyBuilderEvent } from 'chatfold/builder'
 * import { textMessage } from 'chatfold/message'
 * applyBuilderEvent({ type: 'messageAdded', index: 0, message: textMessage('user', 'hi') })([]).length // 1
 *
 * @since 0.1.0
 * @category builder
 */
export const applyBuilderEvent = (event: BuilderEvent) => (history: Messages): Messages => {
  switch (event.type) {
    case 'messageFinalized':
    case 'messageAdded':
    case 'syntheticInjected':
      return insertAt(history, event.index, event.message)
    case 'messageUpdated': {
      if (event.index < 0 || event.index >= history.length) return history
      const out = history.slice()
      out[event.index] = event.message
      return out
    }
    case 'historyChanged':
      return event.history
    default:
      return history
  }
}

/**
 * Rebuilds a history from a builder's events, starting from the history it began with: the
 * mirror a UI or another thread keeps from the event stream alone.
 *
 * @example
 * import { type BuilderEvent, createBuilder, replayBuilderEvents } from 'chatfold/builder'
 * const events: BuilderEvent[] = []
 * const b = createBuilder({ sink: (e) => events.push(e) })
 * b.addUserMessage({ text: 'hi' })
 * replayBuilderEvents(events)([]).length // 1
 *
 * @since 0.1.0
 * @category builder
 */
export const replayBuilderEvents = (events: ReadonlyArray<BuilderEvent>) => (history: Messages): Messages =>
  events.reduce((h, e) => applyBuilderEvent(e)(h), history)
