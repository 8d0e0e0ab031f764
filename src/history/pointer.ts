/**
 * A pointer to a tool output that pruning or clearing took out of the history: the message it
 * was in, the tool call it belongs to, which side of the call (its `result` or its `arguments`),
 * and a hash of the original text, so that a read-back knows the text it finds is the one that
 * was taken. Written into the placeholder the model reads, as a short reference
 * (`toolu_01@9c0f3a21`), and into the message's `metadata.pointers` (with the message's id).
 *
 * @module
 */
import type { Message } from '../message/message.ts'

// --- model ---

/**
 * Where a pruned or cleared tool output was: the message's id, the tool call's id, whether it was
 * the call's `result` or its `arguments`, and a 64-bit hash of the original text's UTF-8 bytes
 * (`contentHash` of `chatfold/readback`).
 *
 * @example
 * import type { ContentPointer } from 'chatfold/history'
 * const p: ContentPointer = { messageId: 'm7', toolCallId: 'call_1', part: 'result', hash: '0f3a9c21d4e5b687' }
 *
 * @since 0.1.0
 * @category model
 */
export type ContentPointer = {
  readonly messageId: string
  readonly toolCallId: string
  readonly part: 'result' | 'arguments'
  readonly hash: string
}

/**
 * The metadata key under which a rewritten message lists the pointers of what was taken from it
 * (`metadata.pointers`: an array of `{ toolCallId, part, hash }`; `pointersOf` reads them).
 */
export const POINTERS_KEY = 'pointers'

// --- references ---

/** `%`, `#`, `@`, `~`, spaces and control characters in an id, percent-encoded: they separate a reference's fields. */
// deno-lint-ignore no-control-regex -- control characters in an id are the ones a reference cannot hold as they are
const escape = (s: string): string => s.replace(/[%#@~\x00-\x20\x7f]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`)

/** How many hex digits of the hash a reference shows: 32 bits tell apart the outputs of calls that share an id, in fewer tokens than the whole hash. */
export const REF_DIGITS = 8

/** A pointer's reference (see `toPointerRef` of `chatfold/readback`): `toolCallId@` and the hash's first `REF_DIGITS` digits, `~args` after the id for arguments. */
export const refOf = (p: Pick<ContentPointer, 'toolCallId' | 'part' | 'hash'>): string => refStem(p.toolCallId, p.part) + p.hash.slice(0, REF_DIGITS)

/** A reference without its hash (which ends it): what a pruner measures before it hashes anything. */
export const refStem = (toolCallId: string, part: ContentPointer['part']): string => `${escape(toolCallId)}${part === 'arguments' ? '~args' : ''}@`

// --- lookups ---

const isStored = (u: unknown): u is Omit<ContentPointer, 'messageId'> => {
  if (typeof u !== 'object' || u === null) return false
  const r = u as Record<string, unknown>
  return typeof r['toolCallId'] === 'string' && (r['part'] === 'result' || r['part'] === 'arguments') && typeof r['hash'] === 'string'
}

/**
 * The pointers a message's `metadata.pointers` lists (what pruning or clearing took from it),
 * with the message's id; empty when none. The metadata holds each one without the id (the
 * message's own, which a decoder may make anew), so that a message rewritten again from the same
 * content is the same message.
 *
 * @example
 * import { pointersOf } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * pointersOf(textMessage('user', 'hi')) // []
 *
 * @since 0.1.0
 * @category lookups
 */
export const pointersOf = (m: Message): ReadonlyArray<ContentPointer> => {
  const v = m.metadata?.[POINTERS_KEY]
  return Array.isArray(v) ? v.filter(isStored).map((p) => ({ messageId: m.id, toolCallId: p.toolCallId, part: p.part, hash: p.hash })) : []
}

/**
 * A message's metadata with `pointers` added to its `metadata.pointers` (those before kept), each
 * without the message's id (see `pointersOf`).
 */
export const withPointers = (metadata: Message['metadata'], pointers: ReadonlyArray<ContentPointer>): NonNullable<Message['metadata']> => {
  const had = metadata?.[POINTERS_KEY]
  const added = pointers.map((p) => ({ toolCallId: p.toolCallId, part: p.part, hash: p.hash }))
  return { ...metadata, [POINTERS_KEY]: Array.isArray(had) ? [...had, ...added] : added }
}
