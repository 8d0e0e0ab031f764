/**
 * The per-message count cache of `countMessage`, by estimator and message identity. Private to
 * chatfold (not exported from an entry point): the engine fills it with counts made in another
 * worker, so that a message counted there is not counted again here.
 *
 * @module
 */
import type { Message } from '../message.ts'
import type { Estimator, TokenBreakdown } from '../messages/message-tokens.ts'

const caches = new WeakMap<Estimator, WeakMap<Message, TokenBreakdown>>()

/** The cache of `estimate`'s counts, by message. */
export const cacheOf = (estimate: Estimator): WeakMap<Message, TokenBreakdown> => {
  let c = caches.get(estimate)
  if (c === undefined) caches.set(estimate, (c = new WeakMap()))
  return c
}
