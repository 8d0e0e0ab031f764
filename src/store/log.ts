/**
 * The chat store as a fold over its log: every step a store accepts is a `StoreCommand` (create,
 * submit, schedule, advance), and `applyCommand` replays one on a simulator, deterministically,
 * since the generated ids and timestamps come from the simulator itself. A simulator also has a
 * JSON form (`encodeSimulator`, `decodeSimulator`), so that recovery loads the latest snapshot and
 * replays only the log's tail. This module is the durable truth's format; the storage that keeps
 * it is `StoreStorage`, in `durable.ts`.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { IsoTimestampC } from '../message/message.ts'
import { formatDecodeFailure as formatFailure } from '../message/failure.ts'
import { validateInput } from './input.ts'
import { type ChatRecord, compareStrings, type Conversation, type ConversationMetadata, fromConversations, instantOf, recordOf } from './core.ts'
import { type ChatState, emptyState } from './state.ts'
import { type ChatMessage, fromSnapshot, toSnapshot } from './snapshot.ts'
import { advanceTo, formatStoreFailure, scheduleEvent, type SimEvent, type Simulator, submitEvent } from './simulator.ts'
import { forkSimulator } from './fork.ts'
import { compactSimulator, decodeOverlays, encodeOverlays } from './overlay.ts'
import { internBlobs, resolveBlobs } from './_snapshot-blobs.ts'
import { internData, resolveData, withIndex } from './_log-blobs.ts'
import * as T from './_tree.ts'
import { isObject } from '../internal/object.ts'

// --- commands ---

/**
 * One accepted step of a chat store, as its log keeps it: the creation of the simulator (its
 * clock, id prefix and limits, chosen once), a submitted or scheduled event's data, an advance
 * of the clock to a time, or a fork of a conversation at a message (its new id resolved: replay
 * makes the same). Logs written before forks existed hold no `fork` record and read unchanged.
 *
 * @since 0.1.0
 * @category model
 */
export type StoreCommand =
  | {
    readonly op: 'create'
    readonly startTime: string
    readonly idPrefix: string
    readonly maxHistorySize: number | null
    readonly defaultConversationId: string
  }
  | { readonly op: 'submit'; readonly data: unknown; readonly refs?: true }
  | { readonly op: 'schedule'; readonly scheduled_time: unknown; readonly data: unknown; readonly refs?: true }
  | { readonly op: 'advance'; readonly until: string }
  | { readonly op: 'fork'; readonly conversation_id: string; readonly message_id: string; readonly new_conversation_id: string }
  | {
    readonly op: 'compact'
    readonly conversation_id: string
    readonly from: string
    readonly head: string
    readonly summary: string
    readonly through?: string
    readonly metadata?: Readonly<Record<string, unknown>>
  }

/**
 * Reads a command from its JSON form (a log record), or says what is wrong with it.
 *
 * @since 0.1.0
 * @category codecs
 */
export const decodeStoreCommand = (u: unknown): E.Either<string, StoreCommand> => {
  if (!isObject(u)) return E.left('expected a command object')
  switch (u['op']) {
    case 'create': {
      const { startTime, idPrefix, maxHistorySize, defaultConversationId } = u
      if (typeof startTime !== 'string' || !IsoTimestampC.is(startTime)) return E.left('create: expected startTime, an ISO-8601 timestamp')
      if (typeof idPrefix !== 'string') return E.left('create: expected idPrefix, a string')
      if (maxHistorySize !== null && typeof maxHistorySize !== 'number') return E.left('create: expected maxHistorySize, a number or null')
      if (typeof defaultConversationId !== 'string') return E.left('create: expected defaultConversationId, a string')
      return E.right({ op: 'create', startTime, idPrefix, maxHistorySize, defaultConversationId })
    }
    // refs: the data holds references to large strings logged before (see `Simulator.blobs`)
    case 'submit':
      return E.right({ op: 'submit', data: u['data'], ...(u['refs'] === true ? { refs: true as const } : {}) })
    case 'schedule':
      return E.right({ op: 'schedule', scheduled_time: u['scheduled_time'], data: u['data'], ...(u['refs'] === true ? { refs: true as const } : {}) })
    case 'advance':
      return typeof u['until'] === 'string' ? E.right({ op: 'advance', until: u['until'] }) : E.left('advance: expected until, a timestamp')
    case 'fork': {
      const { conversation_id, message_id, new_conversation_id } = u
      if (typeof conversation_id !== 'string' || typeof message_id !== 'string' || typeof new_conversation_id !== 'string')
        return E.left('fork: expected conversation_id, message_id and new_conversation_id, strings')
      return E.right({ op: 'fork', conversation_id, message_id, new_conversation_id })
    }
    case 'compact': {
      const { conversation_id, from, head, summary, through, metadata } = u
      if (typeof conversation_id !== 'string' || typeof from !== 'string' || typeof head !== 'string' || typeof summary !== 'string')
        return E.left('compact: expected conversation_id, from, head and summary, strings')
      if ((through !== undefined && typeof through !== 'string') || (metadata !== undefined && !isObject(metadata)))
        return E.left('compact: expected through, a string, and metadata, an object')
      return E.right({
        op: 'compact',
        conversation_id,
        from,
        head,
        summary,
        ...(through === undefined ? {} : { through }),
        ...(metadata === undefined ? {} : { metadata }),
      })
    }
    default:
      return E.left(`expected op "create" | "submit" | "schedule" | "advance" | "fork" | "compact", got ${JSON.stringify(u['op'])}`)
  }
}

/**
 * A command as the log keeps it: a submit's or a schedule's large strings the simulator's index
 * holds already (`Simulator.blobs`) as references to them (`refs: true`), and the index with the
 * others added. What a store's journal is given (not exported from the package entry).
 */
export const internCommand = (command: StoreCommand, blobs: Simulator['blobs']): { readonly command: StoreCommand; readonly blobs: Simulator['blobs'] } => {
  if (command.op !== 'submit' && command.op !== 'schedule') return { command, blobs }
  const r = internData(command.data, blobs)
  return { command: r.referenced ? { ...command, data: r.data, refs: true } : command, blobs: r.blobs }
}

/**
 * The `create` command of a simulator: what replaying it builds again.
 *
 * @since 0.1.0
 * @category constructors
 */
export const createCommand = (sim: Simulator): StoreCommand => ({
  op: 'create',
  startTime: sim.now,
  idPrefix: sim.idPrefix,
  maxHistorySize: sim.state.maxHistorySize === Infinity ? null : sim.state.maxHistorySize,
  defaultConversationId: sim.state.defaultConversationId,
})

/**
 * Replays one command: `create` on no simulator, any other on one. Replaying the log of a store
 * rebuilds it exactly; a command that fails on replay means the log does not belong to this
 * store's history, and the error says why.
 *
 * @since 0.1.0
 * @category edits
 */
export const applyCommand = (command: StoreCommand) => (sim: Simulator | undefined): E.Either<string, Simulator> => {
  if (command.op === 'create') {
    if (sim !== undefined) return E.left('a second create command')
    const state = emptyState({ maxHistorySize: command.maxHistorySize ?? Infinity, defaultConversationId: command.defaultConversationId })
    return E.right({ now: command.startTime, state, seq: 0, idPrefix: command.idPrefix, pending: undefined, history: undefined })
  }
  if (sim === undefined) return E.left(`a ${command.op} command before the create command`)
  if (command.op === 'submit' || command.op === 'schedule') {
    const resolved = resolveData(command.data, command.refs === true, sim.blobs)
    if (E.isLeft(resolved)) return resolved
    const { data, blobs } = resolved.right
    const step = command.op === 'submit' ? submitEvent(data)(sim) : scheduleEvent({ scheduled_time: command.scheduled_time, data })(sim)
    return E.bimap(formatStoreFailure, (s: { simulator: Simulator }) => withIndex(s.simulator, blobs))(step)
  }
  if (command.op === 'compact') return E.mapLeft(formatStoreFailure)(compactSimulator(command)(sim))
  if (command.op === 'fork') return E.bimap(formatStoreFailure, (s: { simulator: Simulator }) => s.simulator)(forkSimulator(command)(sim))
  return E.bimap(formatStoreFailure, (s: { simulator: Simulator }) => s.simulator)(advanceTo(command.until)(sim))
}

// --- the simulator as JSON ---

const VERSION = 1

/**
 * A simulator's JSON form: clock, id counter and prefix, the state's snapshot, the pending events
 * (each with its queue position) and the event history.
 *
 * @since 0.1.0
 * @category export
 */
export const encodeSimulator = (sim: Simulator): unknown => {
  const pending: Array<readonly [number, SimEvent]> = []
  T.forEachUp(sim.pending, undefined, (v, k) => void pending.push([k.seq, v]))
  const overlays = encodeOverlays(sim)
  const json = {
    version: VERSION,
    now: sim.now,
    seq: sim.seq,
    idPrefix: sim.idPrefix,
    state: toSnapshot(sim.state),
    pending,
    history: T.values(sim.history),
    // only when there are: snapshots without compactions stay as they were
    ...(overlays.length === 0 ? {} : { overlays }),
    // the large strings the log's later records may reference
    ...(sim.blobs === undefined ? {} : { blobIndex: indexJson(sim.blobs) }),
  }
  // a large string (an image's data) once, however many messages and events hold it; a snapshot without one stays as it was
  const interned = internBlobs(json)
  return interned === undefined ? json : { ...(interned.value as Record<string, unknown>), blobs: interned.blobs }
}

/** The simulator's index of large strings as JSON: id → string. */
const indexJson = (blobs: T.Tree<string, string>): Readonly<Record<string, string>> => {
  const out: Record<string, string> = {}
  T.forEachUp(blobs, undefined, (v, k) => void (out[k] = v))
  return out
}

/** The index of large strings a snapshot keeps (`blobIndex`), as the simulator's field. */
const indexOf = (u: unknown): { readonly blobs?: T.Tree<string, string> } => {
  if (!isObject(u)) return {}
  const entries = Object.entries(u).filter((e): e is [string, string] => typeof e[1] === 'string').sort(([a], [b]) => compareStrings(a, b))
  return entries.length === 0 ? {} : { blobs: T.fromSorted(entries) }
}

/** A snapshot's JSON with its large strings back in place (one written with `blobs`), or what is missing. */
const withBlobs = (u: Readonly<Record<string, unknown>>): E.Either<string, Readonly<Record<string, unknown>>> => {
  const { blobs, ...rest } = u
  if (blobs === undefined) return E.right(u)
  if (!isObject(blobs)) return E.left('blobs: expected an object of strings')
  return E.chain((v: unknown) => (isObject(v) ? E.right(v) : E.left('expected a simulator snapshot')))(resolveBlobs(rest, blobs))
}

/** Reads an event of a snapshot, its input decoded once here. */
const decodeEvent = (u: unknown, path: string): E.Either<string, SimEvent> => {
  if (!isObject(u)) return E.left(`${path}: expected an event`)
  if (typeof u['event_id'] !== 'string' || typeof u['scheduled_time'] !== 'string' || !IsoTimestampC.is(u['scheduled_time']))
    return E.left(`${path}: expected event_id and scheduled_time`)
  const input = validateInput(u['input'])
  return E.isLeft(input) ? E.left(`${path}.input: ${formatFailure(input.left)}`) : E.right({ ...(u as SimEvent), input: input.right })
}

/**
 * Reads a simulator back from `encodeSimulator`'s JSON, checking the state's invariants.
 *
 * @since 0.1.0
 * @category codecs
 */
export const decodeSimulator = (snapshot: unknown): E.Either<string, Simulator> => {
  if (!isObject(snapshot) || snapshot['version'] !== VERSION) return E.left(`expected a simulator snapshot of version ${VERSION}`)
  const resolved = withBlobs(snapshot)
  if (E.isLeft(resolved)) return resolved
  const u = resolved.right
  const { now, seq, idPrefix, pending, history } = u
  if (typeof now !== 'string' || !IsoTimestampC.is(now)) return E.left('now: expected an ISO-8601 timestamp')
  if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 0) return E.left('seq: expected a non-negative integer')
  if (typeof idPrefix !== 'string') return E.left('idPrefix: expected a string')
  if (!Array.isArray(pending) || !Array.isArray(history)) return E.left('expected pending and history lists')
  const state = fromSnapshot(u['state'])
  if (E.isLeft(state)) return E.left(`state: ${formatFailure(state.left)}`)
  const queued: Array<readonly [{ ms: number; sub: number; seq: number }, SimEvent]> = []
  for (const [i, p] of (pending as unknown[]).entries()) {
    if (!Array.isArray(p) || typeof p[0] !== 'number') return E.left(`pending[${i}]: expected [position, event]`)
    const event = decodeEvent(p[1], `pending[${i}]`)
    if (E.isLeft(event)) return event
    queued.push([{ ...instantOf(event.right.scheduled_time), seq: p[0] }, event.right])
  }
  const past: Array<readonly [number, SimEvent]> = []
  for (const [i, e] of (history as unknown[]).entries()) {
    const event = decodeEvent(e, `history[${i}]`)
    if (E.isLeft(event)) return event
    past.push([i, event.right])
  }
  const overlays = decodeOverlays(u['overlays'])
  if (E.isLeft(overlays)) return overlays
  return E.right({
    now,
    seq,
    idPrefix,
    state: state.right,
    pending: T.fromSorted(queued),
    history: T.fromSorted(past),
    ...(overlays.right === undefined ? {} : { overlays: overlays.right }),
    ...indexOf(u['blobIndex']),
  })
}

// --- restoring a trusted snapshot ---

/**
 * Rebuilds a state from a snapshot this store wrote itself (whose integrity its storage checks),
 * without decoding every field and invariant again as `fromSnapshot` does: recovery from a
 * snapshot then costs little more than reading it.
 */
const restoreState = (u: unknown): E.Either<string, ChatState> => {
  if (!isObject(u) || !Array.isArray(u['messages']) || !isObject(u['conversations']))
    return E.left('state: expected a snapshot with messages and conversations')
  const byConversation = new Map<string, Array<readonly [ChatRecord['key'], ChatRecord]>>()
  for (const m of u['messages'] as ReadonlyArray<ChatMessage>) {
    const record = recordOf(m)
    const list = byConversation.get(m.conversation_id) ?? []
    list.push([record.key, record])
    byConversation.set(m.conversation_id, list)
  }
  const conversations: Conversation[] = Object.values(u['conversations'] as Readonly<Record<string, ConversationMetadata>>).map((meta) => ({
    meta,
    messages: T.fromSorted(byConversation.get(meta.conversation_id) ?? []),
  }))
  const limit = u['max_history_size']
  return E.right(
    fromConversations(
      {
        lastUpdated: typeof u['last_updated'] === 'string' ? u['last_updated'] : undefined,
        updateCount: Number(u['update_count']),
        maxHistorySize: typeof limit === 'number' ? limit : Infinity,
        defaultConversationId: String(u['default_conversation_id']),
      },
      conversations,
    ),
  )
}

/**
 * Reads back a simulator from a snapshot the store itself wrote: like `decodeSimulator`, but
 * trusting the state's fields and invariants and its events' inputs (all checked when the steps
 * were applied), so that it costs little more than parsing. Use `decodeSimulator` on snapshots
 * from anywhere else.
 *
 * @since 0.1.0
 * @category codecs
 */
export const restoreSimulator = (snapshot: unknown): E.Either<string, Simulator> => {
  if (!isObject(snapshot) || snapshot['version'] !== VERSION) return E.left(`expected a simulator snapshot of version ${VERSION}`)
  const resolved = withBlobs(snapshot)
  if (E.isLeft(resolved)) return resolved
  const u = resolved.right
  const { now, seq, idPrefix, pending, history } = u
  if (typeof now !== 'string' || typeof seq !== 'number' || typeof idPrefix !== 'string' || !Array.isArray(pending) || !Array.isArray(history)) {
    return E.left('expected now, seq, idPrefix, pending and history')
  }
  const state = restoreState(u['state'])
  if (E.isLeft(state)) return state
  const overlays = decodeOverlays(u['overlays'])
  if (E.isLeft(overlays)) return overlays
  const queued = (pending as ReadonlyArray<readonly [number, SimEvent]>).map(([position, event]) =>
    [{ ...instantOf(event.scheduled_time), seq: position }, event] as const
  )
  return E.right({
    now,
    seq,
    idPrefix,
    state: state.right,
    pending: T.fromSorted(queued),
    history: T.fromSorted((history as SimEvent[]).map((e, i) => [i, e] as const)),
    ...(overlays.right === undefined ? {} : { overlays: overlays.right }),
    ...indexOf(u['blobIndex']),
  })
}
