/**
 * `ChatStore`: a small mutable shell around an immutable `Simulator` (clock, event queue, event
 * history and `ChatState`), for servers and other long-lived owners. Each method runs one pure
 * step and, when it succeeds, swaps the current value; a failed step changes nothing. Steps are
 * synchronous, so concurrent requests of an HTTP server can never interleave inside one.
 *
 * Nothing is created until first used: a store made at module scope draws no random id and reads
 * no clock until its first step or read (workerd forbids both at module scope). A journal, when
 * given, hears every accepted step as a `StoreCommand`, so that a durable store can log it.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { ChatState, ConversationMetadata, StoreFailure } from './state.ts'
import { forkSimulator, type ForkStep } from './fork.ts'
import { compactSimulator, forCompacted, type Overlay, overlaysOf } from './overlay.ts'
import type { Message } from '../message/message.ts'
import {
  advanceBy,
  advanceTo,
  createSimulator,
  type DecodedEvent,
  scheduleEvent,
  type SimEvent,
  type SimStep,
  type Simulator,
  type SimulatorOptions,
  submitDecodedEvent,
  submitEvent,
} from './simulator.ts'
import { createCommand, internCommand, type StoreCommand } from './log.ts'
import { withIndex } from './_log-blobs.ts'

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
  /** Applies a chat event now (`submitEvent`): decodes `data`, once. */
  readonly submit: (data: unknown) => E.Either<StoreFailure, SimEvent>
  /** Schedules a chat event (`scheduleEvent`): decodes the request, once. */
  readonly schedule: (request: { readonly scheduled_time: unknown; readonly data: unknown }) => E.Either<StoreFailure, SimEvent>
  /**
   * Applies, or schedules when it has a `scheduled_time`, an event decoded already where it
   * entered (`decodeEventData`, `decodeScheduledEvent`), checking nothing of it again
   * (`submitDecodedEvent`). Optional, so that a store written by hand before it existed still
   * fits: `chatHandler` then passes such an event to `submit` or `schedule`, which check it again.
   */
  readonly submitDecoded?: (event: DecodedEvent) => E.Either<StoreFailure, SimEvent>
  /**
   * Forks a conversation at one of its messages (`forkSimulator`): a new conversation (named
   * `newConversationId`, or generated) holding the history up to and including that message,
   * returning its metadata. Optional, so that a store written by hand before it existed still fits.
   */
  readonly fork?: (conversationId: string, atMessageId: string, newConversationId?: string) => E.Either<StoreFailure, ConversationMetadata>
  /**
   * Commits a compaction of a conversation's messages `from`…`head` as an overlay, kept beside
   * them (nothing is removed), only if `head` is still the conversation's last message: otherwise
   * a `stale_head` failure names its head now (compute again from it). With `more.through`, the
   * summary stands for `from`…`through` only (the messages after it kept as they are); `more.metadata`
   * is kept beside it. Returns the overlay. Optional, as `fork` is.
   */
  readonly compact?: (conversationId: string, from: string, head: string, summary: string, more?: CompactMore) => E.Either<StoreFailure, Overlay>
  /**
   * A conversation as a model should see it: its messages, the range of its latest compaction
   * replaced by one synthetic system message holding the summary (id `compaction:<head>`).
   */
  readonly compacted?: (conversationId: string) => ReadonlyArray<Message>
  /** Moves the clock to a time (`advanceTo`), returning the events applied. */
  readonly advanceTo: (time: string) => E.Either<StoreFailure, ReadonlyArray<SimEvent>>
  /** Moves the clock by some seconds (`advanceBy`), returning the events applied. */
  readonly advanceBy: (seconds: number) => E.Either<StoreFailure, ReadonlyArray<SimEvent>>
  /** Calls `listener` with the new simulator after every change; returns the unsubscribe function. */
  readonly subscribe: (listener: (simulator: Simulator) => void) => () => void
  /**
   * Resolves once every step accepted so far is durable, rejects when it cannot be (then the
   * store is unusable). Absent on a store kept in memory only.
   */
  readonly flush?: () => Promise<void>
  /** Why a durable store can no longer answer (a write that failed, its storage owned by another process), if it cannot: its handler then answers 503. */
  readonly failed?: () => Error | undefined
}

/**
 * What a compaction may say besides its range's first message, its head and its summary: the last
 * message it stands for when that is not the head, and what its writer keeps beside it.
 *
 * @since 0.1.0
 * @category model
 */
export type CompactMore = { readonly through?: string; readonly metadata?: Readonly<Record<string, unknown>> }

/**
 * What a store tells whoever keeps its log: each accepted step as a command, with the simulator
 * it made (called synchronously, inside the step), and how to wait until they are durable.
 *
 * @since 0.1.0
 * @category model
 */
export type ChatStoreJournal = {
  /** Hears a step before the store takes it; a step it throws on is not taken (the store is unchanged). */
  readonly record: (command: StoreCommand, next: Simulator) => void
  readonly flush: () => Promise<void>
  /**
   * Called once, when the store is made, with a function that puts the store back to a simulator
   * (`undefined`: not created yet): what a journal calls to undo the steps it could not keep.
   */
  readonly attach?: (reset: (simulator: Simulator | undefined) => void) => void
}

/**
 * Creates a chat store from a simulator, or from the options of a new one.
 * A listener that throws does not stop the store or the other listeners.
 *
 * @example
 * import { createChatStore } from 'chatfold/store'
 * const store = createChatStore({ startTime: '2024-03-15T10:00:00Z', maxHistorySize: 500 })
 * store.submit({ role: 'user', content: "What's the weather?" })
 * store.state().updateCount // 1
 *
 * @since 0.1.0
 * @category constructors
 */
export const createChatStore = (
  from: SimulatorOptions | { readonly simulator: Simulator } = {},
  journal?: ChatStoreJournal,
): ChatStore & Required<Pick<ChatStore, 'submitDecoded' | 'fork' | 'compact' | 'compacted'>> => {
  let current: Simulator | undefined = 'simulator' in from ? from.simulator : undefined
  const listeners = new Set<(simulator: Simulator) => void>()
  const notify = (next: Simulator): void => {
    for (const l of [...listeners]) {
      try {
        l(next)
      } catch {
        // a listener's failure is its own business: the change has happened
      }
    }
  }
  journal?.attach?.((to) => {
    current = to
    if (to !== undefined) notify(to)
  })
  /** The simulator, created (and journaled) on first use. */
  const sim = (): Simulator => {
    if (current !== undefined) return current
    const made = createSimulator(from as SimulatorOptions)
    journal?.record(createCommand(made), made)
    current = made
    return made
  }
  const commit = (command: StoreCommand, made: Simulator): void => {
    // a large string the log holds already is logged as a reference to it
    const logged = internCommand(command, current?.blobs)
    const next = withIndex(made, logged.blobs)
    journal?.record(logged.command, next)
    current = next
    notify(next)
  }
  const advanced = (a: { simulator: Simulator; applied: ReadonlyArray<SimEvent> }) => {
    commit({ op: 'advance', until: a.simulator.now }, a.simulator)
    return a.applied
  }
  const stepped = (command: StoreCommand) => (step: SimStep): SimEvent => {
    commit(command, step.simulator)
    return step.event
  }
  return {
    simulator: sim,
    state: () => sim().state,
    submit: (data) => E.map(stepped({ op: 'submit', data }))(submitEvent(data)(sim())),
    schedule: (request) => E.map(stepped({ op: 'schedule', scheduled_time: request.scheduled_time, data: request.data }))(scheduleEvent(request)(sim())),
    submitDecoded: (event) =>
      E.map(
        stepped(
          event.scheduled_time === undefined ? { op: 'submit', data: event.data } : { op: 'schedule', scheduled_time: event.scheduled_time, data: event.data },
        ),
      )(
        submitDecodedEvent(event)(sim()),
      ),
    fork: (conversationId, atMessageId, newConversationId) =>
      E.map((step: ForkStep) => {
        const request = { conversation_id: conversationId, message_id: atMessageId, new_conversation_id: step.conversation.conversation_id }
        commit({ op: 'fork', ...request }, step.simulator)
        return step.conversation
      })(
        forkSimulator({
          conversation_id: conversationId,
          message_id: atMessageId,
          ...(newConversationId === undefined ? {} : { new_conversation_id: newConversationId }),
        })(sim()),
      ),
    compact: (conversationId, from, head, summary, more = {}) => {
      const command = {
        op: 'compact',
        conversation_id: conversationId,
        from,
        head,
        summary,
        ...(more.through === undefined ? {} : { through: more.through }),
        ...(more.metadata === undefined ? {} : { metadata: more.metadata }),
      } as const
      return E.map((next: Simulator) => {
        commit(command, next)
        return overlaysOf(conversationId)(next).at(-1) ?? { ...command, committed_at: next.now }
      })(compactSimulator(command)(sim()))
    },
    compacted: (conversationId) => forCompacted(conversationId)(sim()),
    advanceTo: (time) => E.map(advanced)(advanceTo(time)(sim())),
    advanceBy: (seconds) => E.map(advanced)(advanceBy(seconds)(sim())),
    subscribe: (listener) => {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    ...(journal === undefined ? {} : { flush: journal.flush }),
  }
}
