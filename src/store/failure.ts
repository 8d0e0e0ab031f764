/**
 * Why a durable store cannot keep, or cannot open, its log: a `StoreError` whose `code` says
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
 * The codes of `StoreError`.
 *
 * @since 0.1.0
 * @category model
 */
export type StoreErrorCode = 'full' | 'lost' | 'read-only' | 'corrupt' | 'locked' | 'conflict'

/**
 * An error of a durable store whose `code` says what went wrong (see the module).
 *
 * @example
 * import { StoreError } from 'chatfold/store'
 * const e = new StoreError('full', 'No space left for the log')
 * e.code // 'full'
 *
 * @since 0.1.0
 * @category model
 */
export class StoreError extends Error {
  override readonly name = 'StoreError'
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options)
  }
}

/**
 * Whether a value is a `StoreError` (by its name and code, so that one thrown by another copy of
 * the module counts too).
 *
 * @example
 * import { isStoreError, StoreError } from 'chatfold/store'
 * isStoreError(new StoreError('lost', 'gone')) // true
 * isStoreError(new Error('x')) // false
 *
 * @since 0.1.0
 * @category refinements
 */
export const isStoreError = (u: unknown): u is StoreError =>
  u instanceof Error && u.name === 'StoreError' && typeof (u as { readonly code?: unknown }).code === 'string'

/**
 * The HTTP status a failed write is answered with: 507 for a full disk (try again later), 503 for a
 * store that takes no writes (lost log, read-only medium), `undefined` for a failure no request
 * should be answered about (the store is unusable).
 *
 * @since 0.1.0
 * @category http
 */
export const writeFailureStatus = (f: StoreError): 507 | 503 | undefined =>
  f.code === 'full' ? 507 : f.code === 'lost' || f.code === 'read-only' || f.code === 'conflict' ? 503 : undefined
