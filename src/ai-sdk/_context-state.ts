/**
 * A conversation's compaction boundary as the context keeper remembers it, and as a state store
 * keeps it: the summary (with the system prompt) that replaces the input's first `covered`
 * messages, the last request held after it, and a digest of the wire messages it replaced, so that
 * a keeper made later (another request, another process) takes it up only for a conversation that
 * still starts with them. Besides it (version 2), the state of the conversation's cache-aware pruner
 * (`PrunerState`), so that a keeper made later prunes as the one before it would have, and sends
 * the same prefix.
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type Message, MessageC, type Messages, MessagesC } from '../message/message.ts'
import { failureFromErrors, formatDecodeFailure } from '../message/failure.ts'
import { digest } from '../internal/digest.ts'
import type { ContextStateStore } from './state.ts'
import { type PrunerState, PrunerStateC } from '../history/prune-state.ts'

/** A conversation's compaction boundary: the summary (with the system prompt) that replaces the input's first `covered` messages. */
export type Boundary = { readonly head: Messages; readonly held: Message | undefined; readonly covered: number; readonly last: Message }

/** A boundary as a state store keeps it. */
const BoundaryC = t.type({
  covered: t.number,
  prefix: t.string,
  head: MessagesC,
  held: t.union([MessageC, t.null]),
})

/** A boundary as kept, encoded (JSON). */
export type StoredBoundary = t.OutputOf<typeof BoundaryC>

/** The record a state store keeps: version 1 (a boundary), or version 2 (a boundary, or none, and the pruner's state, read apart). */
const RecordC = t.union([
  t.intersection([t.type({ version: t.literal(1) }), BoundaryC]),
  t.type({ version: t.literal(2), boundary: t.union([BoundaryC, t.null]), pruning: t.unknown }),
])

const read = async (store: ContextStateStore, key: string) => {
  const u = await store.get(key)
  if (u === undefined || u === null) return undefined
  const d = RecordC.decode(u)
  if (E.isLeft(d)) throw new TypeError(`Cannot read the context state of ${JSON.stringify(key)}: ${formatDecodeFailure(failureFromErrors(d.left))}`)
  return d.right
}

/** The fingerprint of the wire messages a boundary replaced: their JSON text's length and digest. */
const fingerprint = <W>(wire: ReadonlyArray<W>, covered: number): string => {
  const text = JSON.stringify(wire.slice(0, covered))
  return `${text.length}:${digest(text)}`
}

/**
 * The boundary a state store keeps for `key`, when the conversation (`wire`, decoded as `ms`, one
 * message each) still starts with the messages it replaced; `undefined` when there is none or it
 * no longer holds. Rejects with a `TypeError` on a record that is not a boundary of this version.
 */
export const loadBoundary = async <W>(
  store: ContextStateStore,
  key: string,
  wire: ReadonlyArray<W>,
  ms: Messages,
): Promise<{ readonly boundary: Boundary; readonly stored: StoredBoundary } | undefined> => {
  const d = await read(store, key)
  const r = d === undefined ? undefined : d.version === 1 ? d : d.boundary
  if (r === undefined || r === null) return undefined
  const last = ms[r.covered - 1]
  if (!Number.isInteger(r.covered) || last === undefined || r.covered > wire.length || fingerprint(wire, r.covered) !== r.prefix) return undefined
  return { boundary: { head: r.head, held: r.held ?? undefined, covered: r.covered, last }, stored: BoundaryC.encode(r) }
}

/** A boundary encoded as a state store keeps it (over the wire messages it replaced). */
export const storedBoundary = <W>(wire: ReadonlyArray<W>, b: Boundary): StoredBoundary =>
  BoundaryC.encode({ covered: b.covered, prefix: fingerprint(wire, b.covered), head: b.head, held: b.held ?? null })

/**
 * The pruner's state a state store keeps for `key`, if any; one that is not a pruner's state of
 * this version is named in `discarded` and not taken. Rejects as {@link loadBoundary} does.
 */
export const loadPruning = async (store: ContextStateStore, key: string): Promise<{ readonly resume?: PrunerState; readonly discarded?: string }> => {
  const d = await read(store, key)
  if (d === undefined || d.version === 1 || d.pruning === null || d.pruning === undefined) return {}
  const p = PrunerStateC.decode(d.pruning)
  return E.isRight(p)
    ? { resume: p.right }
    : { discarded: `the pruning state kept is not one this version reads (${formatDecodeFailure(failureFromErrors(p.left))}): pruning afresh` }
}

/** Keeps the boundary of `key` (or none) and its pruner's state (or none) in the state store. */
export const saveState = (store: ContextStateStore, key: string, boundary: StoredBoundary | null, pruning: PrunerState | undefined): Promise<void> =>
  store.set(key, { version: 2, boundary, pruning: pruning === undefined ? null : PrunerStateC.encode(pruning) })
