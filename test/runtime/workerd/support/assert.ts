/**
 * Minimal assertions for the workerd smoke tests, which run without Node compatibility (so no
 * `node:assert`). Each throws an `Error` that names what failed; workerd then fails the test.
 */
const show = (x: unknown): string => {
  try {
    return JSON.stringify(x, (_, v: unknown) => (v instanceof Uint8Array ? `Uint8Array(${v.length})` : v)) ?? String(x)
  } catch {
    return String(x)
  }
}

export const ok = (cond: unknown, what: string): void => {
  if (!cond) throw new Error(`assertion failed: ${what}`)
}

export const equal = <A>(actual: A, expected: A, what: string): void => {
  if (!Object.is(actual, expected)) throw new Error(`${what}: expected ${show(expected)}, got ${show(actual)}`)
}

/** Structural equality: key order ignored, byte arrays compared by content, `undefined` fields ignored. */
export const same = (a: unknown, b: unknown): boolean => {
  if (Object.is(a, b)) return true
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i])
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ra = a as Record<string, unknown>
  const rb = b as Record<string, unknown>
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)].filter((k) => ra[k] !== undefined || rb[k] !== undefined))
  for (const k of keys) if (!same(ra[k], rb[k])) return false
  return true
}

export const deepEqual = (actual: unknown, expected: unknown, what: string): void => {
  if (!same(actual, expected)) throw new Error(`${what}: expected ${show(expected)}, got ${show(actual)}`)
}

export const rejects = async (p: Promise<unknown>, pattern: RegExp, what: string): Promise<void> => {
  try {
    await p
  } catch (e) {
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e)
    if (!pattern.test(message)) throw new Error(`${what}: rejected with "${message}", expected ${pattern}`)
    return
  }
  throw new Error(`${what}: resolved, expected a rejection`)
}
