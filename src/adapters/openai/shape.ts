/**
 * OpenAI bodies told by their shape: a Responses body by its `input`, a Chat Completions body by
 * its tool calls or OpenAI-only parts, or as the plain chat body of text messages that nothing
 * else claims (no block of Anthropic's or part of the AI SDK's).
 *
 * @module
 */
import { isObject } from '../../internal/object.ts'
import { ANTHROPIC_SHAPE_BLOCKS } from '../anthropic/shape.ts'
import { AI_SDK_SHAPE_BLOCKS } from '../ai-sdk/shape.ts'
import { blocks, firstOf, messagesOf, type ShapeFit, where } from '../shape.ts'

const OPENAI_BLOCKS = ['image_url', 'input_audio', 'refusal']

/** The fit of a body to OpenAI Responses, or `undefined`. */
export const openAIResponsesShape = (u: unknown): ShapeFit | undefined =>
  isObject(u) && (Array.isArray(u['input']) || typeof u['input'] === 'string') && !('messages' in u) ? { why: 'input (OpenAI Responses request)' } : undefined

/** The fit of a body to OpenAI Chat Completions, or `undefined`. */
export const openAIChatShape = (u: unknown): ShapeFit | undefined => {
  const ms = messagesOf(u)
  if (ms === undefined || ms.length === 0) return undefined
  const bad = ms.findIndex((m) => !isObject(m) || typeof m['role'] !== 'string' || 'parts' in m || !('content' in m || 'tool_calls' in m))
  if (bad >= 0) return undefined
  const seen = blocks(ms)
  if (firstOf(seen, [...ANTHROPIC_SHAPE_BLOCKS, ...AI_SDK_SHAPE_BLOCKS]) !== undefined) return undefined
  const tools = ms.findIndex((m) => isObject(m) && ('tool_calls' in m || 'tool_call_id' in m || m['role'] === 'tool'))
  if (tools >= 0) return { why: `${where(u)}[${tools}] has OpenAI tool calls or results` }
  const hit = firstOf(seen, OPENAI_BLOCKS)
  if (hit !== undefined) return { why: `${where(u)}[${hit[1]}] has an ${hit[0]} part (OpenAI Chat)` }
  return { why: `${where(u)}[*] each have role and content, and nothing another format has`, plain: true }
}
