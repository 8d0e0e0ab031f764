/**
 * Identifiers and clocks: the only sources of non-determinism in the core.
 *
 * @module
 */

/** A new random identifier (a UUID v4 where the runtime has Web Crypto). */
export const newId = (): string => {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto
  if (c?.randomUUID !== undefined) return c.randomUUID()
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`
}

/** The current time as an ISO-8601 UTC string. */
export const nowIso = (): string => new Date().toISOString()
