/**
 * Telling a wire API's request body by its shape: what a fit says, and the readers of message
 * lists and their content blocks that each wire API's `shape.ts` uses. Not exported from the package.
 *
 * @module
 */
import { isObject } from '../internal/object.ts'

/**
 * Why a body fits a wire API's shape (`messages[2] has a tool_use block (Anthropic)`). `plain` marks
 * a fit by the absence of anything another shape has (a chat body of text messages only), which
 * another wire API's reader would read the same.
 */
export type ShapeFit = { readonly why: string; readonly plain?: true }

/** The messages of a body: the array itself, or its `messages` array. */
export const messagesOf = (
  u: unknown,
): ReadonlyArray<unknown> | undefined => (Array.isArray(u) ? u : isObject(u) && Array.isArray(u['messages']) ? u['messages'] : undefined)

/** Where those messages are, for a fit's `why`: `messages`, or nothing for a bare array. */
export const where = (u: unknown): string => (Array.isArray(u) ? '' : 'messages')

/** Block types in `content` arrays, by message index of first sight. */
export const blocks = (ms: ReadonlyArray<unknown>): Map<string, number> => {
  const seen = new Map<string, number>()
  ms.forEach((m, i) => {
    if (isObject(m) && Array.isArray(m['content'])) {
      for (const b of m['content']) if (isObject(b) && typeof b['type'] === 'string' && !seen.has(b['type'])) seen.set(b['type'], i)
    }
  })
  return seen
}

/** The first of `types` seen, and the index of the message it was seen in. */
export const firstOf = (seen: Map<string, number>, types: ReadonlyArray<string>): readonly [string, number] | undefined => {
  const hits = types.flatMap((t) => (seen.has(t) ? [[t, seen.get(t) as number] as const] : []))
  return hits.sort((a, b) => a[1] - b[1])[0]
}
