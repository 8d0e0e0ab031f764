/**
 * Reading back what Anthropic's context editing cleared: a response's `applied_edits`, and where
 * `fromAnthropicMessage` keeps them. Apart from the edits' other helpers so that reading a message
 * loads nothing of the compaction modules (the edits are only types here).
 *
 * @module
 */
import type { AppliedContextEdit } from '../../compaction/context-edits.ts'
import { isObject } from '../../internal/object.ts'

const isApplied = (u: unknown): u is AppliedContextEdit =>
  isObject(u) &&
  typeof u['cleared_input_tokens'] === 'number' &&
  ((u['type'] === 'clear_tool_uses_20250919' && typeof u['cleared_tool_uses'] === 'number') ||
    (u['type'] === 'clear_thinking_20251015' && typeof u['cleared_thinking_turns'] === 'number'))

/**
 * The edits an Anthropic response says it applied (its `context_management.applied_edits`), or
 * those `fromAnthropicMessage` kept on the message's metadata (`contextEdits`); none when it
 * applied none. An entry of another shape is left out.
 *
 * @example
 * import { appliedEditsOf } from 'chatfold/adapters'
 * appliedEditsOf({ context_management: { applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 8, cleared_input_tokens: 50_000 }] } })
 * // [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 8, cleared_input_tokens: 50000 }]
 *
 * @since 0.1.0
 * @category adapters
 */
export const appliedEditsOf = (response: unknown): ReadonlyArray<AppliedContextEdit> => {
  if (!isObject(response)) return []
  const meta = response['metadata']
  const cm = response['context_management']
  const list = isObject(cm) ? cm['applied_edits'] : isObject(meta) ? meta[CONTEXT_EDITS_KEY] : undefined
  return Array.isArray(list) ? list.filter(isApplied) : []
}

/**
 * The metadata key under which `fromAnthropicMessage` keeps a response's applied edits.
 *
 * @since 0.1.0
 * @category adapters
 */
export const CONTEXT_EDITS_KEY = 'contextEdits'
