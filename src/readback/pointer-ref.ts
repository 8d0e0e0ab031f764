/**
 * A pointer's reference as a model gives it back (`call_1@0f3a…`, from a placeholder's text), read
 * into what it points to; and the hash a pointer carries, for whoever wants to check a text against one.
 *
 * @module
 */
import * as O from 'fp-ts/Option'
import { type ContentPointer, refOf } from '../history/pointer.ts'
import { utf8Hash } from '../internal/content-hash.ts'

/**
 * What a placeholder shows of a pointer, and what a read-back takes: the tool call's id, the side
 * of the call, the hash (its first 8 hex digits, as a reference shows it, or all 16); the message's id when known (a pointer from `metadata.pointers` has it,
 * a reference from a placeholder's text does not).
 *
 * @example
 * import type { PointerRef } from 'chatfold/readback'
 * const ref: PointerRef = { toolCallId: 'call_1', part: 'result', hash: '0f3a9c21d4e5b687' }
 *
 * @since 0.1.0
 * @category read-back
 */
export type PointerRef = Omit<ContentPointer, 'messageId'> & { readonly messageId?: string }

/**
 * A pointer as the short reference a placeholder shows and a read-back tool takes:
 * `toolCallId@hash`, with `~args` after the call id for its arguments (`%`, `#`, `@`, `~`, spaces
 * and control characters in the id percent-encoded). The message's id is left out of it on
 * purpose: a decoder may make message ids anew for the same messages on every request (the AI
 * SDK's prompt has none), and a placeholder whose text changed between requests would break the
 * provider's prompt cache and a resumed pruner's answer; a tool call's id comes from the provider
 * and stays. The hash tells apart two outputs of calls that share an id.
 *
 * @example
 * import { toPointerRef } from 'chatfold/readback'
 * toPointerRef({ messageId: 'm7', toolCallId: 'call_1', part: 'result', hash: '0f3a9c21d4e5b687' }) // 'call_1@0f3a9c21'
 *
 * @since 0.1.0
 * @category conversions
 */
export const toPointerRef = (p: PointerRef): string => refOf(p)

const unescape = (s: string): string => s.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))

/**
 * A reference read back into what it points to; `none` when it is not one (`toPointerRef` writes them). White space around it and the backquotes or quotes a model may
 * wrap it in are ignored.
 *
 * @example
 * import { fromPointerRef } from 'chatfold/readback'
 * fromPointerRef('call_1@0f3a9c21d4e5b687') // some({ toolCallId: 'call_1', part: 'result', hash: '0f3a9c21d4e5b687' })
 * fromPointerRef('call_1') // none
 *
 * @since 0.1.0
 * @category read-back
 */
export const fromPointerRef = (ref: string): O.Option<PointerRef> => {
  // deno-lint-ignore no-control-regex -- a reference holds no control character: its id has them percent-encoded
  const m = /^[\s`'"]*([^#@~\x00-\x20\x7f]+)(~args)?@([0-9a-f]{16}|[0-9a-f]{8})[\s`'"]*$/.exec(ref)
  if (m === null) return O.none
  return O.some({ toolCallId: unescape(m[1] as string), part: m[2] === undefined ? 'result' : 'arguments', hash: m[3] as string })
}

/**
 * The hash a pointer carries: 16 hex digits over the text's UTF-8 bytes (two 32-bit lanes, not a
 * cryptographic hash). Synchronous, so that the pure pruners can write it into their placeholders
 * (Web Crypto's SHA-256 only answers a promise).
 *
 * @example
 * import { contentHash } from 'chatfold/readback'
 * contentHash('ok').length // 16
 * contentHash('ok') === contentHash('ok') // true
 *
 * @since 0.1.0
 * @category read-back
 */
export const contentHash = (text: string): string => utf8Hash(text)
