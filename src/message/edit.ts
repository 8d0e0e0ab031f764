/**
 * Edits of one message that return a new message (its metadata and its parts), and structural
 * equality of messages. The message model, its codecs and accessors are in `message.ts`.
 *
 * @module
 */
import * as O from 'fp-ts/Option'
import type { Eq } from 'fp-ts/Eq'
import { isToolCall } from './part-make.ts'
import { type Part, type ToolCallPart } from './part-model.ts'
import { nowIso } from '../internal/id.ts'
import type { Message } from './message.ts'

// --- metadata ---

/**
 * Returns a copy of the message with `metadata[key] = value`, creating
 * the metadata when the message has none. The key is an own data property, even `__proto__`.
 *
 * @example
 * import { setMeta, textMessage } from 'chatfold/message'
 * setMeta('model', 'claude-sonnet-4-5')(textMessage('assistant', 'Hello!')).metadata // { model: 'claude-sonnet-4-5' }
 *
 * @since 0.1.0
 * @category metadata
 */
export const setMeta = (key: string, value: unknown) => (m: Message): Message => {
  const metadata: Record<string, unknown> = { ...m.metadata }
  Object.defineProperty(metadata, key, { value, enumerable: true, writable: true, configurable: true })
  return { ...m, metadata }
}

/**
 * Looks up a metadata value: `none` when the key is absent. Only own keys
 * count, so `getMeta('toString')` is `none`.
 *
 * @example
 * import { getMeta, setMeta, textMessage } from 'chatfold/message'
 * getMeta('tokens')(setMeta('tokens', 12)(textMessage('assistant', 'Hi'))) // some(12)
 *
 * @since 0.1.0
 * @category metadata
 */
export const getMeta = (key: string) => (m: Message): O.Option<unknown> =>
  m.metadata !== undefined && Object.prototype.hasOwnProperty.call(m.metadata, key) ? O.some(m.metadata[key]) : O.none

// --- parts ---

/**
 * Appends a part and moves `updatedAt`.
 *
 * @param at the new `updatedAt`, now by default
 * @example
 * import { addPart, makeMessage, text } from 'chatfold/message'
 * addPart(text('more'))(makeMessage({ role: 'assistant' })).parts.length // 1
 *
 * @since 0.1.0
 * @category parts
 */
export const addPart = (part: Part, at: string = nowIso()) => (m: Message): Message => ({ ...m, parts: [...m.parts, part], updatedAt: at })

/**
 * Adds a tool call, or replaces the call with the same id in place (for
 * streaming, where partial calls arrive before the final one); moves `updatedAt`.
 *
 * @example
 * import { makeMessage, toolCall, upsertToolCall } from 'chatfold/message'
 * const m = upsertToolCall(toolCall({ id: 'c1', name: 'ls', arguments: '{"pa' }))(makeMessage({ role: 'assistant' }))
 * upsertToolCall(toolCall({ id: 'c1', name: 'ls', arguments: '{"path":"."}' }))(m).parts.length // 1
 *
 * @since 0.1.0
 * @category parts
 */
export const upsertToolCall = (call: ToolCallPart, at: string = nowIso()) => (m: Message): Message => {
  const i = m.parts.findIndex((p) => isToolCall(p) && p.id === call.id)
  const parts = i < 0 ? [...m.parts, call] : m.parts.map((p, j) => (j === i ? call : p))
  return { ...m, parts, updatedAt: at }
}

/**
 * Replaces the parts of a message (without moving `updatedAt`), returning the message itself
 * when `f` returns its own parts array.
 *
 * @example
 * import { mapParts, isText, textMessage } from 'chatfold/message'
 * mapParts((ps) => ps.filter(isText))(textMessage('user', 'hi'))
 *
 * @since 0.1.0
 * @category parts
 */
export const mapParts = (f: (parts: ReadonlyArray<Part>) => ReadonlyArray<Part>) => (m: Message): Message => {
  const parts = f(m.parts)
  return parts === m.parts ? m : { ...m, parts }
}

// --- instances ---

const equalValues = (a: unknown, b: unknown): boolean => {
  if (Object.is(a, b)) return true
  if (a instanceof Uint8Array || b instanceof Uint8Array)
    return a instanceof Uint8Array && b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i])
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length) return false
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && equalValues((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}

/**
 * Structural equality of messages (bytes compared by value).
 *
 * @example
 * import { MessageEq, textMessage } from 'chatfold/message'
 * MessageEq.equals(textMessage('user', 'a', { id: '1' }), textMessage('user', 'a', { id: '1' })) // true
 *
 * @since 0.1.0
 * @category instances
 */
export const MessageEq: Eq<Message> = { equals: equalValues }
