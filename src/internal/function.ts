/**
 * Small functions every module may need (not exported from the package).
 *
 * @module
 */

/** Does nothing: the handler of a rejection that is observed elsewhere, or a placeholder callback. */
export const noop = (): void => undefined
