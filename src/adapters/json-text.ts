/**
 * JSON text of untrusted values for the `from…` functions: tool inputs and outputs arrive as parsed
 * JSON (or as whatever a caller built) and become the JSON text a tool call or result holds.
 * `JSON.stringify` recurses and throws on a value nested deeper than the stack allows, on a BigInt
 * and on a cycle; here the value is first walked with an explicit stack (linear in its size, no
 * recursion), and anything `JSON.stringify` would throw on is reported by path instead.
 *
 * @module
 */
import type { Reader } from './decode.ts'

/** How deep a tool's input or output may nest; deeper values are a decode failure. */
export const MAX_JSON_DEPTH = 1000

type Frame = { readonly value: unknown; readonly depth: number; readonly parent: Frame | undefined; readonly key: string | number | undefined }

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

/** The path of a frame below `path`, built only when something is wrong. */
const pathOf = (path: string, frame: Frame): string => {
  const keys: Array<string | number> = []
  for (let f: Frame | undefined = frame; f?.key !== undefined; f = f.parent) keys.push(f.key)
  let out = path
  for (let i = keys.length - 1; i >= 0; i--) {
    const k = keys[i] as string | number
    out += typeof k === 'number' ? `[${k}]` : IDENTIFIER.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`
  }
  return out
}

/** What `JSON.stringify` would throw on in `u`, with its path below `path`; `undefined` when nothing. */
export const unsafeJson = (u: unknown, path: string): { readonly path: string; readonly expected: string; readonly actual: unknown } | undefined => {
  // an entry without `exit` visits a value; one with `exit` leaves it (so `open` holds the ancestors)
  const stack: Array<Frame | { readonly exit: object }> = [{ value: u, depth: 0, parent: undefined, key: undefined }]
  const open = new Set<object>()
  while (stack.length > 0) {
    const top = stack.pop() as Frame | { readonly exit: object }
    if ('exit' in top) {
      open.delete(top.exit)
      continue
    }
    const frame = top
    const { value } = frame
    if (typeof value === 'bigint') return { path: pathOf(path, frame), expected: 'a JSON value (not a BigInt)', actual: value }
    if (typeof value !== 'object' || value === null) continue
    if (frame.depth >= MAX_JSON_DEPTH) return { path: pathOf(path, frame), expected: `JSON nested at most ${MAX_JSON_DEPTH} levels`, actual: '(too deep)' }
    if (open.has(value)) return { path: pathOf(path, frame), expected: 'JSON without cycles', actual: '(cycle)' }
    open.add(value)
    stack.push({ exit: value })
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], depth: frame.depth + 1, parent: frame, key: i })
    } else {
      const keys = Object.keys(value)
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i] as string
        stack.push({ value: (value as Record<string, unknown>)[k], depth: frame.depth + 1, parent: frame, key: k })
      }
    }
  }
  return undefined
}

/** The JSON text of `u`, or `undefined` with the problem recorded at its path. Never throws. */
export const jsonText = (r: Reader, u: unknown, path: string): string | undefined => {
  const problem = unsafeJson(u, path)
  if (problem !== undefined) return r.fail(problem.path, problem.expected, problem.actual)
  try {
    return JSON.stringify(u) ?? 'null'
  } catch (e) {
    // a getter or proxy that throws: still a decode failure, never a throw
    return r.fail(path, 'a JSON value', e instanceof Error ? e.message : u)
  }
}
