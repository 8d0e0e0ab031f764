/**
 * A pointer to a tool output that pruning or clearing took out of the history: the message it
 * was in, the tool call it belongs to, which side of the call (its `result` or its `arguments`),
 * and a hash of the original text, so that a read-back knows the text it finds is the one that
 * was taken. Written into the placeholder the model reads, as a short reference
 * (`toolu_01@9c0f…`), and into the message's `metadata.pointers` (with the message's id).
 *
 * @module
 */
import * as O from 'fp-ts/Option'
import type { Message } from '../message/message.ts'
import { utf8Hash } from '../internal/content-hash.ts'

// --- model ---

/**
 * Where a pruned or cleared tool output was: the message's id, the tool call's id, whether it was
 * the call's `result` or its `arguments`, and `contentHash` of the original text.
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
 *
 * @example
 * import { POINTERS_KEY } from 'chatfold/history'
 * POINTERS_KEY // 'pointers'
 *
 * @since 0.1.0
 * @category model
 */
export const POINTERS_KEY = 'pointers'

// --- constructors ---

/**
 * The hash a pointer carries: 16 hex digits over the text's UTF-8 bytes (two 32-bit lanes, not a
 * cryptographic hash). Synchronous, so that the pure pruners can write it into their placeholders
 * (Web Crypto's SHA-256 only answers a promise).
 *
 * @example
 * import { contentHash } from 'chatfold/history'
 * contentHash('ok').length // 16
 * contentHash('ok') === contentHash('ok') // true
 *
 * @since 0.1.0
 * @category constructors
 */
export const contentHash = (text: string): string => utf8Hash(text)

/**
 * The pointer to `text`, the `part` of tool call `toolCallId` in message `messageId`.
 *
 * @example
 * import { pointerTo } from 'chatfold/history'
 * pointerTo('m7', 'call_1', 'result', 'ok').part // 'result'
 *
 * @since 0.1.0
 * @category constructors
 */
export const pointerTo = (messageId: string, toolCallId: string, part: ContentPointer['part'], text: string): ContentPointer => ({
  messageId,
  toolCallId,
  part,
  hash: utf8Hash(text),
})

// --- references ---

/** `%`, `#`, `@`, `~`, spaces and control characters in an id, percent-encoded: they separate a reference's fields. */
// deno-lint-ignore no-control-regex -- control characters in an id are the ones a reference cannot hold as they are
const escape = (s: string): string => s.replace(/[%#@~\x00-\x20\x7f]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`)

const unescape = (s: string): string => s.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))

/**
 * What a placeholder shows of a pointer, and what a read-back tool takes: the tool call's id, the
 * side of the call, and the hash (`PointerRef`). The message's id is left out of it on purpose: a
 * decoder may make message ids anew for the same messages on every request (the AI SDK's prompt
 * has none), and a placeholder whose text changed between requests would break the provider's
 * prompt cache and a resumed pruner's answer; a tool call's id comes from the provider and stays.
 * The hash tells apart two outputs of calls that share an id.
 *
 * @example
 * import type { PointerRef } from 'chatfold/history'
 * const ref: PointerRef = { toolCallId: 'call_1', part: 'result', hash: '0f3a9c21d4e5b687' }
 *
 * @since 0.1.0
 * @category model
 */
export type PointerRef = Omit<ContentPointer, 'messageId'> & { readonly messageId?: string }

/**
 * A pointer as the short reference a placeholder shows and a read-back tool takes:
 * `toolCallId@hash`, with `~args` after the call id for its arguments (`%`, `#`, `@`, `~`, spaces
 * and control characters in the id percent-encoded). The message's id is not in it (see
 * `PointerRef`).
 *
 * @example
 * import { toPointerRef } from 'chatfold/history'
 * toPointerRef({ messageId: 'm7', toolCallId: 'call_1', part: 'result', hash: '0f3a9c21d4e5b687' }) // 'call_1@0f3a9c21d4e5b687'
 *
 * @since 0.1.0
 * @category conversions
 */
export const toPointerRef = (p: PointerRef): string => refStem(p.toolCallId, p.part) + p.hash

/** A reference without its hash (which ends it): what a pruner measures before it hashes anything. */
export const refStem = (toolCallId: string, part: ContentPointer['part']): string => `${escape(toolCallId)}${part === 'arguments' ? '~args' : ''}@`

/**
 * A reference read back into what it points to; `none` when it is not one (`toPointerRef` writes
 * them). White space around it and the backquotes or quotes a model may wrap it in are ignored.
 *
 * @example
 * import { fromPointerRef } from 'chatfold/history'
 * fromPointerRef('call_1@0f3a9c21d4e5b687') // some({ toolCallId: 'call_1', part: 'result', hash: '0f3a9c21d4e5b687' })
 * fromPointerRef('call_1') // none
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromPointerRef = (ref: string): O.Option<PointerRef> => {
  // deno-lint-ignore no-control-regex -- a reference holds no control character: its id has them percent-encoded
  const m = /^[\s`'"]*([^#@~\x00-\x20\x7f]+)(~args)?@([0-9a-f]{16})[\s`'"]*$/.exec(ref)
  if (m === null) return O.none
  return O.some({ toolCallId: unescape(m[1] as string), part: m[2] === undefined ? 'result' : 'arguments', hash: m[3] as string })
}

// --- lookups ---

const isStored = (u: unknown): u is PointerRef => {
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
