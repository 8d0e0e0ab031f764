/**
 * AI SDK model messages told by their shape: messages with a part only the AI SDK has.
 *
 * @module
 */
import { isObject } from '../../internal/object.ts'
import { blocks, firstOf, messagesOf, type ShapeFit, where } from '../shape.ts'

/** The content part types only AI SDK model messages hold. */
export const AI_SDK_SHAPE_BLOCKS = ['tool-call', 'tool-result', 'reasoning', 'file', 'tool-approval-request', 'tool-approval-response']

/** The fit of a body to AI SDK model messages, or `undefined`. */
export const aiSdkShape = (u: unknown): ShapeFit | undefined => {
  const ms = messagesOf(u)
  if (ms === undefined || ms.some((m) => !isObject(m) || 'parts' in m || 'tool_calls' in m)) return undefined
  const hit = firstOf(blocks(ms), AI_SDK_SHAPE_BLOCKS)
  return hit === undefined ? undefined : { why: `${where(u)}[${hit[1]}] has a ${hit[0]} part (AI SDK model messages)` }
}
