/**
 * Why a durable store cannot keep, or cannot open, its log: a `StoreFailure` of a kind that says
 * what a server does about it. `full` (the disk or quota is full) is answered 507 and passes when
 * space returns; `lost` (the log the store writes is no longer the one it would read back: the
 * directory or file was removed, replaced, truncated or appended to by another program, or another
 * process took the store) and `read-only` (the store's medium refuses writes)
 * stop the writes for good and are answered 503, reads still served; `corrupt` (a complete record or
 * snapshot whose checksum does not match) and `locked` (another live server holds the store) stop a
 * start; `conflict` (a store shared by several processes, as in PostgreSQL, was written by
 * another one since this one looked: the steps were undone, and may be taken again) is answered 503.
 *
 * @module
 */

/**
 * The kinds of `StoreFailure`.
 *
 * @since 0.1.0
 * @category model
 */
export type StoreFailureKind = 'full' | 'lost' | 'read-only' | 'corrupt' | 'locked' | 'conflict'

/**
 * An error of a durable store that says what kind of failure it is (see the module).
 *
 * @example
 * import { StoreFailure } from 'chatfold/store'
 * const e = new StoreFailure('full', 'No space left for the log')
 * e.kind // 'full'
 *
 * @since 0.1.0
 * @category model
 */
export class StoreFailure extends Error {
  override readonly name = 'StoreFailure'
  constructor(
    readonly kind: StoreFailureKind,
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options)
  }
}

/**
 * Whether a value is a `StoreFailure` (by its name and kind, so that one thrown by another copy of
 * the module counts too).
 *
 * @example
 * import { isStoreFailure, StoreFailure } from 'chatfold/store'
 * isStoreFailure(new StoreFailure('lost', 'gone')) // true
 * isStoreFailure(new Error('x')) // false
 *
 * @since 0.1.0
 * @category refinements
 */
export const isStoreFailure = (u: unknown): u is StoreFailure =>
  u instanceof Error && u.name === 'StoreFailure' && typeof (u as { readonly kind?: unknown }).kind === 'string'

/**
 * The HTTP status a failed write is answered with: 507 for a full disk (try again later), 503 for a
 * store that takes no writes (lost log, read-only medium), `undefined` for a failure no request
 * should be answered about (the store is unusable).
 *
 * @since 0.1.0
 * @category http
 */
export const writeFailureStatus = (f: StoreFailure): 507 | 503 | undefined =>
  f.kind === 'full' ? 507 : f.kind === 'lost' || f.kind === 'read-only' || f.kind === 'conflict' ? 503 : undefined
