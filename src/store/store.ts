/**
 * `ChatStore`: a small mutable shell around an immutable `Simulator` (clock, event queue, event
 * history and `ChatState`), for servers and other long-lived owners. Each method runs one pure
 * step and, when it succeeds, swaps the current value; a failed step changes nothing. Steps are
 * synchronous, so concurrent requests of an HTTP server can never interleave inside one.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { ChatState, StoreError } from './state.ts'
import {
  advanceBy,
  advanceTo,
  createSimulator,
  scheduleEvent,
  type SimEvent,
  type Simulator,
  type SimulatorOptions,
  submitEvent,
} from './simulator.ts'

/**
 * A chat store: the current simulator value, and methods that step it.
 *
 * @since 0.1.0
 * @category model
 */
export type ChatStore = {
  /** The current simulator (clock, queue, history, state): an immutable value. */
  readonly simulator: () => Simulator
  /** The current chat state. */
  readonly state: () => ChatState
  /** Applies a chat event now (`submitEvent`). */
  readonly submit: (data: unknown) => E.Either<StoreError, SimEvent>
  /** Schedules a chat event (`scheduleEvent`). */
  readonly schedule: (request: { readonly scheduled_time: unknown; readonly data: unknown }) => E.Either<StoreError, SimEvent>
  /** Moves the clock to a time (`advanceTo`), returning the events applied. */
  readonly advanceTo: (time: string) => E.Either<StoreError, ReadonlyArray<SimEvent>>
  /** Moves the clock by some seconds (`advanceBy`), returning the events applied. */
  readonly advanceBy: (seconds: number) => E.Either<StoreError, ReadonlyArray<SimEvent>>
  /** Calls `listener` with the new simulator after every change; returns the unsubscribe function. */
  readonly subscribe: (listener: (simulator: Simulator) => void) => () => void
}

/**
 * Creates a chat store from a simulator, or from the options of a new one.
 * A listener that throws does not stop the store or the other listeners.
 *
 * @example
 * import { createChatStore } from 'chatfold'
 * const store = createChatStore({ startTime: '2024-03-15T10:00:00Z', maxHistorySize: 500 })
 * store.submit({ role: 'user', content: "What's the weather?" })
 * store.state().updateCount // 1
 *
 * @since 0.1.0
 * @category constructors
 */
export const createChatStore = (from: SimulatorOptions | { readonly simulator: Simulator } = {}): ChatStore => {
  let current: Simulator = 'simulator' in from ? from.simulator : createSimulator(from)
  const listeners = new Set<(simulator: Simulator) => void>()
  const commit = (next: Simulator): void => {
    current = next
    for (const l of [...listeners]) {
      try {
        l(next)
      } catch {
        // a listener's failure is its own business: the change has happened
      }
    }
  }
  return {
    simulator: () => current,
    state: () => current.state,
    submit: (data) =>
      E.map((step: { simulator: Simulator; event: SimEvent }) => {
        commit(step.simulator)
        return step.event
      })(submitEvent(data)(current)),
    schedule: (request) =>
      E.map((step: { simulator: Simulator; event: SimEvent }) => {
        commit(step.simulator)
        return step.event
      })(scheduleEvent(request)(current)),
    advanceTo: (time) =>
      E.map((a: { simulator: Simulator; applied: ReadonlyArray<SimEvent> }) => {
        commit(a.simulator)
        return a.applied
      })(advanceTo(time)(current)),
    advanceBy: (seconds) =>
      E.map((a: { simulator: Simulator; applied: ReadonlyArray<SimEvent> }) => {
        commit(a.simulator)
        return a.applied
      })(advanceBy(seconds)(current)),
    subscribe: (listener) => {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
  }
}
