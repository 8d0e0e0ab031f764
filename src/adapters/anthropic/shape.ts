/**
 * An Anthropic Messages body told by its shape: messages with a block only Anthropic has, or
 * messages beside a top-level `system`.
 *
 * @module
 */
import { isObject } from '../../internal/object.ts'
import { blocks, firstOf, messagesOf, type ShapeFit, where } from '../shape.ts'

/** The content block types only Anthropic's messages hold. */
export const ANTHROPIC_SHAPE_BLOCKS = ['tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'document', 'server_tool_use', 'web_search_tool_result']

/** The fit of a body to Anthropic Messages, or `undefined`. */
export const anthropicShape = (u: unknown): ShapeFit | undefined => {
  const ms = messagesOf(u)
  if (ms === undefined || ms.some((m) => !isObject(m) || 'parts' in m || 'tool_calls' in m || 'tool_call_id' in m)) return undefined
  const hit = firstOf(blocks(ms), ANTHROPIC_SHAPE_BLOCKS)
  if (hit !== undefined) return { why: `${where(u)}[${hit[1]}] has a ${hit[0]} block (Anthropic)` }
  return isObject(u) && 'system' in u && ms.length > 0 ? { why: 'messages beside a top-level system (Anthropic)' } : undefined
}
