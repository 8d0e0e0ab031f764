/**
 * Cutting large tool-call arguments: the arguments stay valid JSON with the same keys, and every
 * long string value in them becomes a marker with the value's estimated tokens and a preview. A
 * cut value starts with `[truncated`, so it is never cut again.
 *
 * @module
 */
import type { ToolCallPart } from '../message/part-model.ts'
import type { Estimator } from '../tokens/message-tokens.ts'
import { head, PREVIEW_CHARS } from './_prune-placeholder.ts'
import { type ContentPointer, REF_DIGITS, refStem } from './pointer.ts'
import { utf8Hash } from '../internal/content-hash.ts'

/** Argument strings longer than this are cut (to a marker and a preview of `PREVIEW_CHARS`). */
const LONG_ARG_CHARS = 200
/** How deep into nested arguments strings are looked for. */
const MAX_ARG_DEPTH = 64
const TRUNCATED_PREFIX = '[truncated'

/** Cuts long strings anywhere in a JSON value, each marker showing `ref`; returns the value itself when none is long. */
const cutStrings = (v: unknown, estimate: Estimator, depth: number, ref: string): unknown => {
  if (typeof v === 'string') {
    if (v.length <= LONG_ARG_CHARS || v.startsWith(TRUNCATED_PREFIX)) return v
    return `${TRUNCATED_PREFIX} — was ~${estimate(v)} tokens, ref ${ref}] ${head(v, PREVIEW_CHARS)}`
  }
  if (typeof v !== 'object' || v === null || depth >= MAX_ARG_DEPTH) return v
  if (Array.isArray(v)) {
    let out: unknown[] | undefined
    for (let i = 0; i < v.length; i++) {
      const x = cutStrings(v[i], estimate, depth + 1, ref)
      if (x !== v[i]) (out ??= v.slice())[i] = x
    }
    return out ?? v
  }
  let out: Record<string, unknown> | undefined
  for (const [k, x] of Object.entries(v)) {
    const y = cutStrings(x, estimate, depth + 1, ref)
    if (y === x) continue
    out ??= { ...(v as Record<string, unknown>) }
    // (defined, not assigned: a key `__proto__` parsed from JSON is an own property and stays one)
    Object.defineProperty(out, k, { value: y, enumerable: true, writable: true, configurable: true })
  }
  return out ?? v
}

/**
 * The call (of message `messageId`) with its long argument strings cut, each marker showing the
 * reference of the pointer to the whole original arguments, and that pointer; `undefined` when
 * the call stays as it is (arguments that are not JSON, or hold no long string, are left alone).
 */
export const cutArguments = (
  call: ToolCallPart,
  estimate: Estimator,
  messageId: string,
): { readonly call: ToolCallPart; readonly pointer: ContentPointer } | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(call.arguments)
  } catch {
    return undefined
  }
  const hash = utf8Hash(call.arguments)
  const cut = cutStrings(parsed, estimate, 0, refStem(call.id, 'arguments') + hash.slice(0, REF_DIGITS))
  return cut === parsed
    ? undefined
    : { call: { ...call, arguments: JSON.stringify(cut) }, pointer: { messageId, toolCallId: call.id, part: 'arguments', hash } }
}
