/**
 * Stopping on an `AbortSignal` (not exported from the package).
 *
 * @module
 */

/**
 * The error an aborted call rejects with: the signal's reason, or else an `AbortError` with
 * `message`, which says what was aborted.
 */
export const abortReason = (signal: AbortSignal, message = 'The operation was aborted'): unknown => signal.reason ?? new DOMException(message, 'AbortError')

/** Throws the signal's reason (see {@link abortReason}) when it has been aborted. */
export const throwIfAborted = (signal: AbortSignal | undefined, message?: string): void => {
  if (signal?.aborted === true) throw abortReason(signal, message)
}
