/**
 * A conversation's compaction boundary as the context keeper remembers it, and as a state store
 * keeps it: the summary (with the system prompt) that replaces the input's first `covered`
 * messages, the last request held after it, and a digest of the wire messages it replaced, so that
 * a keeper made later (another request, another process) takes it up only for a conversation that
 * still starts with them.
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { MessageC, type Message, type Messages, MessagesC } from '../message/message.ts'
import { failureFromErrors, formatDecodeFailure } from '../message/failure.ts'
import { digest } from '../internal/digest.ts'
import type { ContextStateStore } from './state.ts'

/** A conversation's compaction boundary: the summary (with the system prompt) that replaces the input's first `covered` messages. */
export type Boundary = { readonly head: Messages; readonly held: Message | undefined; readonly covered: number; readonly last: Message }

/** The record a state store keeps: version 1. */
const RecordC = t.type({
  version: t.literal(1),
  covered: t.number,
  prefix: t.string,
  head: MessagesC,
  held: t.union([MessageC, t.null]),
})

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
export const loadBoundary = async <W>(store: ContextStateStore, key: string, wire: ReadonlyArray<W>, ms: Messages): Promise<Boundary | undefined> => {
  const u = await store.get(key)
  if (u === undefined || u === null) return undefined
  const d = RecordC.decode(u)
  if (E.isLeft(d)) throw new TypeError(`Cannot read the context state of ${JSON.stringify(key)}: ${formatDecodeFailure(failureFromErrors(d.left))}`)
  const r = d.right
  const last = ms[r.covered - 1]
  if (!Number.isInteger(r.covered) || last === undefined || r.covered > wire.length || fingerprint(wire, r.covered) !== r.prefix) return undefined
  return { head: r.head, held: r.held ?? undefined, covered: r.covered, last }
}

/** Keeps the boundary of `key` (over the wire messages it replaced) in the state store. */
export const saveBoundary = <W>(store: ContextStateStore, key: string, wire: ReadonlyArray<W>, b: Boundary): Promise<void> =>
  store.set(key, RecordC.encode({ version: 1, covered: b.covered, prefix: fingerprint(wire, b.covered), head: b.head, held: b.held ?? null }))
