/**
 * Looking up one message of a history by position, as an `Option` (a lookup can miss).
 *
 * @module
 */
import * as O from 'fp-ts/Option'
import type { Message, Messages } from '../message/message.ts'

/**
 * The newest message, if any.
 *
 * @example
 * import { last } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * const message = textMessage('user', 'hi')
 * last([message]) // some(message)
 * last([]) // none
 *
 * @since 0.1.0
 * @category edits
 */
export const last = (ms: Messages): O.Option<Message> => (ms.length === 0 ? O.none : O.some(ms[ms.length - 1] as Message))

/**
 * The message at index `i` (0 is the oldest), or `none` when `i` is not an index of the history
 * (negative, fractional or too large).
 *
 * @example
 * import { at } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * const message = textMessage('user', 'hi')
 * at(0)([message]) // some(message)
 * at(5)([message]) // none
 *
 * @since 0.1.0
 * @category edits
 */
export const at = (i: number) => (ms: Messages): O.Option<Message> => Number.isInteger(i) && i >= 0 && i < ms.length ? O.some(ms[i] as Message) : O.none
