/**
 * The state of a cache-aware pruner (`createPruner`'s `cached` policy) as a small JSON record, so
 * that a pruner made later (another request, another process) answers as the one that made it
 * would: which messages its batches rewrote (by a digest of each original), the history it answered
 * last (by length and fingerprint, with the fingerprint of its answer), and the numbers its next
 * batch is weighed by. The rewritten messages are not stored: they are rewritten again from the
 * history given, and the result checked against the answer's fingerprint.
 *
 * @module
 */
import * as t from 'io-ts'
import type { Message, Messages } from '../message/message.ts'
import { digest } from '../internal/digest.ts'

/** The codec of {@link PrunerState}. */
export const PrunerStateC: t.Type<PrunerState> = t.type({
  version: t.literal(1),
  /** The history answered last: how many messages, their fingerprint, and the answer's. */
  length: t.number,
  input: t.string,
  output: t.string,
  /** The digests of the messages a batch rewrote, among those of the history answered last. */
  rewritten: t.array(t.string),
  /** The answer's tokens; after the last batch, the answer's and its protected tail's; the size at which a batch that did not pay is weighed again; the tokens a call adds on average, over how many calls. */
  total: t.number,
  afterBatch: t.number,
  tailBatch: t.number,
  retryAt: t.number,
  growth: t.number,
  calls: t.number,
})

/**
 * A cache-aware pruner's state (`pruner.state()`), to resume it with `createPruner(options, {
 * resume })`: a JSON object of a few numbers, fingerprints and one digest per rewritten message.
 *
 * @example
 * import { createPruner, type PrunerState } from 'chatfold/history'
 * declare const history: import('chatfold').Messages
 * const pruner = createPruner({ protectTokens: 20_000 })
 * pruner.prune(history, { limit: 150_000 })
 * const kept: PrunerState | undefined = pruner.state()
 * const later = createPruner({ protectTokens: 20_000 }, kept === undefined ? {} : { resume: kept })
 * later.prune(history, { limit: 150_000 }) // the same answer as the first pruner's
 *
 * @since 0.1.0
 * @category edits
 */
export type PrunerState = {
  version: 1
  length: number
  input: string
  output: string
  rewritten: Array<string>
  total: number
  afterBatch: number
  tailBatch: number
  retryAt: number
  growth: number
  calls: number
}

/**
 * How a pruner is made from a kept state: `resume`, the state (taken at the first call, when the
 * history given still matches it), and `onDiscard`, told why a state was not taken.
 *
 * @example
 * import { createPruner, type PrunerSeed } from 'chatfold/history'
 * declare const kept: import('chatfold/history').PrunerState
 * const seed: PrunerSeed = { resume: kept, onDiscard: (why) => console.warn(why) }
 * const pruner = createPruner({}, seed)
 *
 * @since 0.1.0
 * @category edits
 */
export type PrunerSeed = { readonly resume?: PrunerState; readonly onDiscard?: (reason: string) => void }

/**
 * A digester of messages: one digest per message object (cached; of its content, not its `id`,
 * which a decoder may make anew for the same message on each request), and a fingerprint of a list
 * of them.
 */
export const digester = () => {
  const cache = new WeakMap<Message, string>()
  const keyOf = (m: Message): string => {
    let k = cache.get(m)
    if (k === undefined) cache.set(m, k = digest(JSON.stringify({ ...m, id: '' })))
    return k
  }
  const fingerprint = (ms: Messages): string => `${ms.length}:${digest(ms.map(keyOf).join(''))}`
  return { keyOf, fingerprint }
}
