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

/** `p`, or a rejection with the signal's reason (see {@link abortReason}) as soon as `signal` aborts, whichever comes first. */
export const abortable = <A>(p: Promise<A>, signal: AbortSignal | undefined, message?: string): Promise<A> => {
  if (signal === undefined) return p
  return new Promise<A>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal, message))
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    p.then(
      (a) => (signal.removeEventListener('abort', onAbort), resolve(a)),
      (e: unknown) => (signal.removeEventListener('abort', onAbort), reject(e)),
    )
  })
}
