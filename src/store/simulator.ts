/**
 * The chat store's event pipeline as an immutable value: a simulated clock, a queue of events
 * scheduled for later, and the history of every event applied. Scheduled events apply, in time
 * order, when the clock is advanced to them; immediate ones (an agent's reply) apply at once at
 * the current simulated time; an event scheduled at or before the current time applies at once
 * too, with its own timestamp (a late message, sorted into place). Every function returns a new
 * simulator and leaves the old one intact; a failed call changes nothing.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { prefixFailure } from '../message/failure.ts'
import { newId, nowIso } from '../internal/id.ts'
import { IsoTimestampC } from '../message/message.ts'
import type { ValidInput } from './input.ts'
import { decoded, type DecodedEvent, decodeFields, decodeSchedule, stampInput } from './_event-data.ts'
import { compareInstants, type Instant, instantOf, type Overlays } from './core.ts'
import { type ChatState, type ChatStateOptions, emptyState, type StoreFailure } from './state.ts'
import { applyValidInput } from './_apply.ts'
import * as T from './_tree.ts'
import { nonNegativeInt, wholeOption } from '../internal/number.ts'

// a request's data, decoded once where it enters; the simulator stamps it with its id and time
export { type DecodedEvent, decodeEventData, decodeScheduledEvent } from './_event-data.ts'

// --- model ---

/**
 * Where an event is: waiting for the clock (`pending`), applied to the state (`applied`), or
 * reached by the clock but refused by the state (`failed`, e.g. a message id already held).
 *
 * @since 0.1.0
 * @category model
 */
export type SimEventStatus = 'pending' | 'applied' | 'failed'

/**
 * One event of the pipeline, in the store's wire shape: its id (also the input's id), modality,
 * the simulated time it is scheduled for and the time it was submitted, its status, and the chat
 * input it carries (decoded when the event was made: applying it later checks nothing again).
 *
 * @since 0.1.0
 * @category model
 */
export type SimEvent = {
  readonly event_id: string
  readonly modality: 'chat'
  readonly scheduled_time: string
  readonly submitted_at: string
  readonly status: SimEventStatus
  readonly applied_at?: string
  readonly error?: string
  readonly input: ValidInput
}

type PendingKey = Instant & { readonly seq: number }

const comparePending = (a: PendingKey, b: PendingKey): number => compareInstants(a, b) || a.seq - b.seq

/**
 * A simulator: the current simulated time, the chat state, the pending events and the history
 * of applied (and failed) events.
 *
 * @since 0.1.0
 * @category model
 */
export type Simulator = {
  readonly now: string
  readonly state: ChatState
  /** Events submitted so far: numbers generated input ids. */
  readonly seq: number
  /** Starts every generated input id, so ids from different simulators do not collide. */
  readonly idPrefix: string
  readonly pending: T.Tree<PendingKey, SimEvent>
  readonly history: T.Tree<number, SimEvent>
  /** How many applied and failed events the history keeps, and for how long: {@link EventLimits} (defaults when absent). */
  readonly eventLimits?: { readonly count: number; readonly ageMs: number }
  /** The compactions committed on each conversation, oldest first (none when absent). */
  readonly overlays?: Overlays
  /** The large strings the store's log holds, by id: what a logged step's references stand for (none when absent). */
  readonly blobs?: T.Tree<string, string>
}

/**
 * How much event history a simulator keeps: at most `maxEvents` events (default
 * {@link DEFAULT_MAX_EVENTS}), none older than `maxEventAgeSeconds` of simulated time (default: no age
 * limit). The oldest go first. The limits bound memory, snapshots and `GET /events`; they are options
 * of the running store, not part of its data.
 *
 * @since 0.1.0
 * @category model
 */
export type EventLimits = { readonly maxEvents?: number; readonly maxEventAgeSeconds?: number }

/**
 * How many events the history keeps when no `maxEvents` is given.
 *
 * @since 0.1.0
 * @category model
 */
export const DEFAULT_MAX_EVENTS = 10_000

/**
 * Options of a new simulator: its start time (now by default), the state to start from (or the
 * options of an empty one), and the prefix of generated input ids (random by default).
 *
 * @since 0.1.0
 * @category constructors
 */
export type SimulatorOptions = ChatStateOptions & EventLimits & {
  readonly startTime?: string
  readonly state?: ChatState
  readonly idPrefix?: string
}

/**
 * A step of the simulator: its new value and the event the step made.
 *
 * @since 0.1.0
 * @category model
 */
export type SimStep = { readonly simulator: Simulator; readonly event: SimEvent }

/**
 * An advance of the clock: the simulator's new value and the events it applied, in order.
 *
 * @since 0.1.0
 * @category model
 */
export type SimAdvance = { readonly simulator: Simulator; readonly applied: ReadonlyArray<SimEvent> }

// --- constructors ---

const canonical = (iso: string): string => new Date(Date.parse(iso)).toISOString()

/**
 * A simulator with an empty queue, its clock at `startTime` (the current time by default).
 *
 * @example
 * import { createSimulator } from 'chatfold/store'
 * const sim = createSimulator({ startTime: '2024-03-15T10:00:00Z' })
 * sim.now // '2024-03-15T10:00:00.000Z'
 *
 * @since 0.1.0
 * @category constructors
 */
export const createSimulator = (options: SimulatorOptions = {}): Simulator => ({
  now: IsoTimestampC.is(options.startTime) ? canonical(options.startTime) : nowIso(),
  state: options.state ?? emptyState(options),
  seq: 0,
  idPrefix: options.idPrefix ?? `${newId().replace(/-/g, '').slice(0, 12)}-`,
  pending: undefined,
  history: undefined,
  eventLimits: {
    count: wholeOption(options.maxEvents, { fallback: DEFAULT_MAX_EVENTS, min: 1 }),
    ageMs: options.maxEventAgeSeconds === undefined || Number.isNaN(options.maxEventAgeSeconds) ? Infinity : Math.max(0, options.maxEventAgeSeconds) * 1000,
  },
})

// --- events ---

/** The next generated input id: the prefix and a zero-padded counter, so ties sort by arrival. */
const nextInputId = (sim: Simulator): string => `${sim.idPrefix}${String(sim.seq + 1).padStart(12, '0')}`

const eventTime = (e: SimEvent): number => Date.parse(e.applied_at ?? e.submitted_at)

/** The history with `event` added under the next key, and the oldest events past the limits dropped. */
const record = (sim: Simulator, event: SimEvent): T.Tree<number, SimEvent> => {
  const last = T.max(sim.history)
  let h: T.Tree<number, SimEvent> = T.insert((a: number, b: number) => a - b, last === undefined ? 0 : last.k + 1, event, sim.history)
  const count = sim.eventLimits?.count ?? DEFAULT_MAX_EVENTS
  while (h !== undefined && T.size(h) > count) h = T.removeMin(h)[1]
  const ageMs = sim.eventLimits?.ageMs ?? Infinity
  if (ageMs !== Infinity) {
    const cutoff = Date.parse(sim.now) - ageMs
    for (let oldest = T.min(h); h !== undefined && oldest !== undefined && eventTime(oldest.v) < cutoff; oldest = T.min(h)) h = T.removeMin(h)[1]
  }
  return h
}

/** Applies one event's input (decoded when the event was made) now; the event lands in the history as applied or failed. */
const applyEvent = (sim: Simulator, event: SimEvent): { readonly simulator: Simulator; readonly event: SimEvent; readonly error?: StoreFailure } => {
  const r = applyValidInput(event.input)(sim.state)
  if (E.isLeft(r)) {
    const failed: SimEvent = { ...event, status: 'failed', applied_at: sim.now, error: formatStoreFailure(r.left) }
    return { simulator: { ...sim, history: record(sim, failed) }, event: failed, error: r.left }
  }
  const applied: SimEvent = { ...event, status: 'applied', applied_at: sim.now }
  return { simulator: { ...sim, state: r.right, history: record(sim, applied) }, event: applied }
}

/**
 * Renders a store error as one line (`duplicate message id "m-1" in conversation "default"`).
 *
 * @example
 * import { formatStoreFailure } from 'chatfold/store'
 * formatStoreFailure({ kind: 'duplicate_message', messageId: 'm-1', conversationId: 'default' })
 *
 * @since 0.1.0
 * @category model
 */
export const formatStoreFailure = (e: StoreFailure): string => {
  switch (e.kind) {
    case 'duplicate_message':
      return `duplicate message id ${JSON.stringify(e.messageId)} in conversation ${JSON.stringify(e.conversationId)}`
    case 'unknown_message':
      return `no message ${JSON.stringify(e.messageId)} in conversation ${JSON.stringify(e.conversationId)}`
    case 'conversation_exists':
      return `conversation ${JSON.stringify(e.conversationId)} exists already`
    case 'stale_head':
      return `conversation ${JSON.stringify(e.conversationId)} has moved on from ${JSON.stringify(e.expected)} to ${JSON.stringify(e.head)}`
    case 'invalid_input':
      return `invalid input: ${e.failure.map((i) => `${i.path === '' ? '(root)' : i.path}: expected ${i.expected}`).join('; ')}`
  }
}

/**
 * Applies a chat event now (served as `POST /events/immediate` and
 * `POST /modalities/chat/submit`): the data's role, content and optional ids, conversation and
 * metadata become a chat input stamped with the current simulated time and a generated input id
 * (unless the data has one). Fails, changing nothing, on bad data (paths relative to the data; a
 * `timestamp` is refused, since the clock sets it) or a duplicate message id.
 *
 * @example
 * import { createSimulator, submitEvent } from 'chatfold/store'
 * submitEvent({ role: 'assistant', content: "It's sunny and 72°F." })(createSimulator())
 * // right({ simulator, event: { status: 'applied', … } })
 *
 * @since 0.1.0
 * @category edits
 */
export const submitEvent = (data: unknown) => (sim: Simulator): E.Either<StoreFailure, SimStep> => {
  const fields = decodeFields(data, nextInputId(sim))
  return E.isLeft(fields) ? E.left({ kind: 'invalid_input', failure: fields.left }) : submitDecodedEvent(decoded({ data: fields.right }))(sim)
}

/**
 * Schedules a chat event for `scheduled_time`: it waits in the queue until
 * the clock reaches it, or applies at once (with its own timestamp) when that time has come.
 * Paths in a failure start at `scheduled_time` or `data`.
 *
 * @example
 * import { createSimulator, scheduleEvent } from 'chatfold/store'
 * const sim = createSimulator({ startTime: '2024-03-15T10:00:00Z' })
 * scheduleEvent({ scheduled_time: '2024-03-15T10:30:00Z', data: { role: 'user', content: "What's the weather today?" } })(sim)
 * // right({ simulator, event: { status: 'pending', … } })
 *
 * @since 0.1.0
 * @category edits
 */
export const scheduleEvent = (request: { readonly scheduled_time: unknown; readonly data: unknown }) => (sim: Simulator): E.Either<StoreFailure, SimStep> => {
  const event = decodeSchedule(request, nextInputId(sim))
  return E.isLeft(event) ? E.left({ kind: 'invalid_input', failure: event.left }) : submitDecodedEvent(event.right)(sim)
}

/**
 * Applies or schedules a chat event decoded already (`decodeEventData`, `decodeScheduledEvent`),
 * checking nothing of it again: what `submitEvent` and `scheduleEvent` do once they have decoded
 * their request. It is stamped with a generated input id (unless its data has one) and its time
 * (now, when it has no `scheduled_time`); it applies at once when that time has come, and waits in
 * the queue otherwise. Fails, changing nothing, on a duplicate message id.
 *
 * @since 0.1.0
 * @category edits
 */
export const submitDecodedEvent = (decodedEvent: DecodedEvent) => (sim: Simulator): E.Either<StoreFailure, SimStep> => {
  const time = decodedEvent.scheduled_time ?? sim.now
  const input = stampInput(decodedEvent.data, nextInputId(sim), time)
  if (E.isLeft(input))
    return E.left({ kind: 'invalid_input', failure: decodedEvent.scheduled_time === undefined ? input.left : prefixFailure('data')(input.left) })
  const next = { ...sim, seq: sim.seq + 1 }
  const event: SimEvent = {
    event_id: input.right.input_id,
    modality: 'chat',
    scheduled_time: time,
    submitted_at: sim.now,
    status: 'pending',
    input: input.right,
  }
  const at = instantOf(time)
  if (compareInstants(at, instantOf(sim.now)) <= 0) {
    const r = applyEvent(next, event)
    return r.error === undefined ? E.right({ simulator: r.simulator, event: r.event }) : E.left(r.error)
  }
  return E.right({ simulator: { ...next, pending: T.insert(comparePending, { ...at, seq: next.seq }, event, sim.pending) }, event })
}

// --- the clock ---

/**
 * Moves the clock forward to `time`, applying every pending event due by then in time order
 * (ties in submission order); events the state refuses are kept in the history as `failed`.
 * Fails, changing nothing, when `time` is not a timestamp or is before the current time.
 *
 * @example
 * import { advanceTo, createSimulator } from 'chatfold/store'
 * advanceTo('2024-03-15T11:00:00Z')(createSimulator({ startTime: '2024-03-15T10:00:00Z' }))
 *
 * @since 0.1.0
 * @category edits
 */
export const advanceTo = (time: string) => (sim: Simulator): E.Either<StoreFailure, SimAdvance> => {
  if (!IsoTimestampC.is(time)) return E.left({ kind: 'invalid_input', failure: [{ path: 'until', expected: 'an ISO-8601 timestamp', actual: time }] })
  const target = instantOf(time)
  if (compareInstants(target, instantOf(sim.now)) < 0) {
    return E.left({ kind: 'invalid_input', failure: [{ path: 'until', expected: `a time at or after the current time ${sim.now}`, actual: time }] })
  }
  let s = sim
  const applied: SimEvent[] = []
  for (let next = s.pending; next !== undefined; next = s.pending) {
    const [first, rest] = T.removeMin(next)
    if (compareInstants(first.k, target) > 0) break
    const r = applyEvent({ ...s, now: canonical(first.v.scheduled_time), pending: rest }, first.v)
    s = r.simulator
    applied.push(r.event)
  }
  return E.right({ simulator: { ...s, now: canonical(time) }, applied })
}

/**
 * Moves the clock forward by `seconds` (a non-negative number), applying what falls due.
 *
 * @example
 * import { advanceBy, createSimulator } from 'chatfold/store'
 * advanceBy(60)(createSimulator())
 *
 * @since 0.1.0
 * @category edits
 */
export const advanceBy = (seconds: number) => (sim: Simulator): E.Either<StoreFailure, SimAdvance> => {
  const target = Date.parse(sim.now) + seconds * 1000
  if (!Number.isFinite(seconds) || seconds < 0 || !Number.isFinite(target) || Math.abs(target) > 8.64e15) {
    return E.left({ kind: 'invalid_input', failure: [{ path: 'seconds', expected: 'a non-negative number of seconds', actual: seconds }] })
  }
  return advanceTo(new Date(target).toISOString())(sim)
}

// --- reading ---

/**
 * Every applied or failed event, in the order they were applied: the event history.
 *
 * @example
 * import { createSimulator, eventHistory } from 'chatfold/store'
 * eventHistory(createSimulator()) // []
 *
 * @since 0.1.0
 * @category lookups
 */
export const eventHistory = (sim: Simulator): ReadonlyArray<SimEvent> => T.values(sim.history)

/**
 * The newest `limit` events of the history that `keep` accepts (all by default), oldest first. It
 * visits only the events it returns and those `keep` turns down on the way, never the whole history.
 *
 * @example
 * import { createSimulator, recentEvents } from 'chatfold/store'
 * recentEvents({ limit: 10 })(createSimulator()) // []
 *
 * @since 0.1.0
 * @category lookups
 */
export const recentEvents =
  (options: { readonly limit: number; readonly keep?: (event: SimEvent) => boolean }) => (sim: Simulator): ReadonlyArray<SimEvent> => {
    const out: SimEvent[] = []
    const limit = nonNegativeInt(options.limit)
    if (limit === 0) return out
    T.forEachDown(sim.history, undefined, (e) => {
      if (options.keep === undefined || options.keep(e)) out.push(e)
      return out.length < limit
    })
    return out.reverse()
  }

/**
 * The events waiting for the clock, in the order they will apply.
 *
 * @example
 * import { createSimulator, pendingEvents } from 'chatfold/store'
 * pendingEvents(createSimulator()) // []
 *
 * @since 0.1.0
 * @category lookups
 */
export const pendingEvents = (sim: Simulator): ReadonlyArray<SimEvent> => T.values(sim.pending)
