/**
 * Telling objects apart in untrusted data (not exported from the package).
 *
 * @module
 */

/** Whether a value is an object that is not an array (nor null): a record whose fields can be read. */
export const isObject = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === 'object' && u !== null && !Array.isArray(u)
