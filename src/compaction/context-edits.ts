/**
 * Anthropic's context editing, as a configuration that behaves the same on every provider: the
 * edits (`clear_tool_uses_20250919`, `clear_thinking_20251015`) in the shape the Messages API takes
 * them, sent to Anthropic as they are (`contextManagement`), and applied locally with the same
 * semantics for any other provider (`applyContextEdits`), each answering what it cleared in the
 * shape of the API's `applied_edits`.
 *
 * The semantics, from Anthropic's context-editing documentation:
 * - `clear_tool_uses_20250919` activates when the prompt exceeds its `trigger` (by default 100,000
 *   input tokens; or a number of tool uses). It then clears the results of every tool use but the
 *   most recent `keep` (by default 3 tool uses), oldest first, replacing each with a placeholder;
 *   the uses of `exclude_tools` are never cleared; `clear_tool_inputs` also clears the inputs of
 *   the calls (all of them, or those of the named tools). With `clear_at_least`, an activation that
 *   cannot clear that many input tokens clears nothing.
 * - `clear_thinking_20251015` keeps the thinking of the last `keep` assistant turns (by default
 *   1; `'all'` keeps every one) and clears the thinking of earlier turns. A turn is what follows a
 *   user message up to the next one. When both are given it goes first, as the API requires.
 *
 * Anthropic's server-side compaction (`compact_20260112`) is not an edit here: chatfold's own
 * `compact` is its local counterpart.
 *
 * Locally, tokens are chatfold's estimate of the messages sent to the model (`forLLM`); the
 * placeholder is chatfold's own text, since the API does not document its own.
 *
 * @module
 */
import { makeMessage, type Message, type Messages } from '../message/message.ts'
import type { Part } from '../message/part-model.ts'
import type { Estimator } from '../tokens/message-tokens.ts'
import { forLLM } from '../history/views.ts'
import { countMessage } from '../tokens/count.ts'
import { totalOf } from '../tokens/message-tokens.ts'
import { smartHeuristic } from '../tokens/heuristic.ts'
import { type ContentPointer, refOf, withPointers } from '../history/pointer.ts'
import { toolResultText } from '../message/tool-result-content.ts'
import { utf8Hash } from '../internal/content-hash.ts'

// --- model ---

/**
 * Anthropic's tool-result clearing, as the Messages API takes it in `context_management.edits`.
 *
 * @example
 * import type { ClearToolUsesEdit } from 'chatfold/compaction'
 * const edit: ClearToolUsesEdit = { type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 30_000 }, keep: { type: 'tool_uses', value: 3 }, exclude_tools: ['web_search'] }
 *
 * @since 0.1.0
 * @category compaction
 */
export type ClearToolUsesEdit = {
  readonly type: 'clear_tool_uses_20250919'
  readonly trigger?: { readonly type: 'input_tokens' | 'tool_uses'; readonly value: number }
  readonly keep?: { readonly type: 'tool_uses'; readonly value: number }
  readonly clear_at_least?: { readonly type: 'input_tokens'; readonly value: number }
  readonly exclude_tools?: ReadonlyArray<string>
  readonly clear_tool_inputs?: boolean | ReadonlyArray<string>
}

/**
 * Anthropic's thinking clearing, as the Messages API takes it in `context_management.edits`.
 *
 * @example
 * import type { ClearThinkingEdit } from 'chatfold/compaction'
 * const edit: ClearThinkingEdit = { type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 2 } }
 *
 * @since 0.1.0
 * @category compaction
 */
export type ClearThinkingEdit = {
  readonly type: 'clear_thinking_20251015'
  readonly keep?: { readonly type: 'thinking_turns'; readonly value: number } | { readonly type: 'all' } | 'all'
}

/**
 * One context edit.
 *
 * @since 0.1.0
 * @category compaction
 */
export type ContextEdit = ClearToolUsesEdit | ClearThinkingEdit

/**
 * What an edit cleared, in the shape of the API's `context_management.applied_edits`.
 *
 * @example
 * import type { AppliedContextEdit } from 'chatfold/compaction'
 * const applied: AppliedContextEdit = { type: 'clear_tool_uses_20250919', cleared_tool_uses: 8, cleared_input_tokens: 50_000 }
 *
 * @since 0.1.0
 * @category compaction
 */
export type AppliedContextEdit =
  | { readonly type: 'clear_tool_uses_20250919'; readonly cleared_tool_uses: number; readonly cleared_input_tokens: number }
  | { readonly type: 'clear_thinking_20251015'; readonly cleared_thinking_turns: number; readonly cleared_input_tokens: number }

/**
 * Options of {@link applyContextEdits}: how tokens are counted (by default chatfold's one
 * definition with `smartHeuristic`), and the text a cleared result becomes.
 *
 * @since 0.1.0
 * @category compaction
 */
export type ContextEditOptions = {
  readonly estimate?: Estimator
  readonly count?: (m: Message) => number
  readonly placeholder?: string
}

/**
 * The history after the edits, and what each edit that did something cleared.
 *
 * @since 0.1.0
 * @category compaction
 */
export type ContextEditResult = { readonly messages: Messages; readonly applied: ReadonlyArray<AppliedContextEdit> }

/**
 * The text a cleared tool result begins with, unless the options give another; the reference of
 * its pointer follows (`[tool result cleared to save context] ref call_1@…`), which
 * `chatfold/readback` reads the original back through.
 *
 * @example
 * import { CLEARED_RESULT } from 'chatfold/compaction'
 * CLEARED_RESULT // '[tool result cleared to save context]'
 *
 * @since 0.1.0
 * @category compaction
 */
export const CLEARED_RESULT = '[tool result cleared to save context]'

/**
 * The beta flag the Messages API needs for `context_management`.
 *
 * @example
 * import { CONTEXT_MANAGEMENT_BETA } from 'chatfold/compaction'
 * CONTEXT_MANAGEMENT_BETA // 'context-management-2025-06-27'
 *
 * @since 0.1.0
 * @category compaction
 */
export const CONTEXT_MANAGEMENT_BETA = 'context-management-2025-06-27'

// --- sending ---

/**
 * The request fields that ask Anthropic to apply the edits itself: `context_management` for the
 * body, and the beta flag to send (`betas` with the SDK's `client.beta.messages.create`, or the
 * `anthropic-beta` header). Thinking clearing goes first, as the API requires.
 *
 * @example
 * import { contextManagement } from 'chatfold/compaction'
 * contextManagement([{ type: 'clear_tool_uses_20250919' }, { type: 'clear_thinking_20251015' }])
 * // { context_management: { edits: [{ type: 'clear_thinking_20251015' }, { type: 'clear_tool_uses_20250919' }] }, betas: ['context-management-2025-06-27'] }
 *
 * @since 0.1.0
 * @category compaction
 */
export const contextManagement = (
  edits: ReadonlyArray<ContextEdit>,
): { readonly context_management: { readonly edits: ReadonlyArray<ContextEdit> }; readonly betas: ReadonlyArray<string> } => ({
  context_management: { edits: ordered(edits) },
  betas: [CONTEXT_MANAGEMENT_BETA],
})

const ordered = (edits: ReadonlyArray<ContextEdit>): ReadonlyArray<ContextEdit> => [
  ...edits.filter((e) => e.type === 'clear_thinking_20251015'),
  ...edits.filter((e) => e.type !== 'clear_thinking_20251015'),
]

// --- applying ---

const sum = (ms: Messages, count: (m: Message) => number): number => {
  let n = 0
  for (const m of forLLM(ms)) n += count(m)
  return n
}

const replaceParts = (m: Message, parts: ReadonlyArray<Part>): Message => makeMessage({ ...m, parts })

/** The text a result cleared with `placeholder` becomes: the placeholder, then the reference of its pointer. */
const clearedText = (placeholder: string, pointer: ContentPointer): string => `${placeholder} ref ${refOf(pointer)}`

/** Whether a result's content is a cleared one already (with its reference, or as an earlier version wrote it, without). */
const isCleared = (content: string, placeholder: string): boolean => content === placeholder || content.startsWith(`${placeholder} ref `)

/** Thinking clearing: the reasoning of every assistant turn but the last `keep`. */
const clearThinking = (e: ClearThinkingEdit, ms: Messages, count: (m: Message) => number): ContextEditResult => {
  if (e.keep === 'all' || e.keep?.type === 'all') return { messages: ms, applied: [] }
  const keep = Math.max(0, Math.floor(e.keep?.value ?? 1))
  // turn of each message: a new turn starts at each user message
  const turnOf: number[] = []
  let turn = 0
  for (const m of ms) {
    if (m.role === 'user') turn++
    turnOf.push(turn)
  }
  const withThinking = new Set<number>()
  ms.forEach((m, i) => {
    if (m.role === 'assistant' && m.parts.some((p) => p.type === 'reasoning')) withThinking.add(turnOf[i] ?? 0)
  })
  const turns = [...withThinking].sort((a, b) => a - b)
  const cleared = new Set(turns.slice(0, Math.max(0, turns.length - keep)))
  if (cleared.size === 0) return { messages: ms, applied: [] }
  const messages = ms.map((m, i) =>
    m.role === 'assistant' && cleared.has(turnOf[i] ?? 0) && m.parts.some((p) => p.type === 'reasoning')
      ? replaceParts(m, m.parts.filter((p) => p.type !== 'reasoning'))
      : m
  )
  return {
    messages,
    applied: [{
      type: 'clear_thinking_20251015',
      cleared_thinking_turns: cleared.size,
      cleared_input_tokens: Math.max(0, sum(ms, count) - sum(messages, count)),
    }],
  }
}

/** Tool-result clearing: every use but the last `keep`, oldest first, when the trigger is passed. */
const clearToolUses = (e: ClearToolUsesEdit, ms: Messages, count: (m: Message) => number, placeholder: string): ContextEditResult => {
  const sent = forLLM(ms)
  const calls: { readonly id: string; readonly name: string }[] = []
  for (const m of sent) if (m.role === 'assistant') { for (const p of m.parts) if (p.type === 'tool_call') calls.push({ id: p.id, name: p.name }) }
  const trigger = e.trigger ?? { type: 'input_tokens', value: 100_000 }
  const reached = trigger.type === 'tool_uses' ? calls.length > trigger.value : sum(ms, count) > trigger.value
  if (!reached) return { messages: ms, applied: [] }
  const keep = Math.max(0, Math.floor(e.keep?.value ?? 3))
  const excluded = new Set(e.exclude_tools ?? [])
  const victims = new Set(calls.slice(0, Math.max(0, calls.length - keep)).filter((c) => !excluded.has(c.name)).map((c) => c.id))
  if (victims.size === 0) return { messages: ms, applied: [] }
  const inputs = e.clear_tool_inputs
  const clearInput = (name: string): boolean => inputs === true || (Array.isArray(inputs) && inputs.includes(name))
  const touched = new Set<string>()
  const messages = ms.map((m) => {
    const pointers: ContentPointer[] = []
    const parts = m.parts.map((p): Part => {
      if (p.type === 'tool_result' && victims.has(p.toolCallId) && (typeof p.content !== 'string' || !isCleared(p.content, placeholder))) {
        touched.add(p.toolCallId)
        const pointer: ContentPointer = { messageId: m.id, toolCallId: p.toolCallId, part: 'result', hash: utf8Hash(toolResultText(p)) }
        pointers.push(pointer)
        return { ...p, content: clearedText(placeholder, pointer) }
      }
      if (p.type === 'tool_call' && victims.has(p.id) && clearInput(p.name) && p.arguments !== '{}') {
        touched.add(p.id)
        pointers.push({ messageId: m.id, toolCallId: p.id, part: 'arguments', hash: utf8Hash(p.arguments) })
        return { ...p, arguments: '{}' }
      }
      return p
    })
    return pointers.length === 0 ? m : makeMessage({ ...m, parts, metadata: withPointers(m.metadata, pointers) })
  })
  if (touched.size === 0) return { messages: ms, applied: [] }
  const freed = Math.max(0, sum(ms, count) - sum(messages, count))
  if (e.clear_at_least !== undefined && freed < e.clear_at_least.value) return { messages: ms, applied: [] }
  return { messages, applied: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: touched.size, cleared_input_tokens: freed }] }
}

/**
 * Applies Anthropic's context edits to a history locally, with the semantics the Messages API
 * documents (see the module), so that one configuration behaves the same on every provider:
 * send `contextManagement(edits)` to Anthropic, and the history through `applyContextEdits(edits)`
 * to any other. Returns the edited history (the input itself when nothing was cleared) and what
 * each edit cleared, as the API's `applied_edits` reports it. Thinking clearing runs first.
 *
 * @example
 * import { applyContextEdits } from 'chatfold/compaction'
 * import { makeMessage, textMessage, toolCall, toolResult } from 'chatfold/message'
 * const turn = (n: number) => [
 *   makeMessage({ role: 'assistant', parts: [toolCall({ id: `c${n}`, name: 'read', arguments: '{}' })] }),
 *   makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: `c${n}`, content: 'x'.repeat(4_000) })] }),
 * ]
 * const history = [textMessage('user', 'Read them all'), ...[1, 2, 3, 4, 5].flatMap(turn)]
 * const { applied } = applyContextEdits([{ type: 'clear_tool_uses_20250919', trigger: { type: 'tool_uses', value: 4 }, keep: { type: 'tool_uses', value: 2 } }])(history)
 * applied // [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 3, cleared_input_tokens: 3_897 }]
 *
 * @since 0.1.0
 * @category compaction
 */
export const applyContextEdits = (edits: ReadonlyArray<ContextEdit>, opts: ContextEditOptions = {}) => (ms: Messages): ContextEditResult => {
  const count = opts.count ?? totalOf(countMessage(opts.estimate ?? smartHeuristic))
  const placeholder = opts.placeholder ?? CLEARED_RESULT
  let messages = ms
  const applied: AppliedContextEdit[] = []
  for (const e of ordered(edits)) {
    const r = e.type === 'clear_thinking_20251015' ? clearThinking(e, messages, count) : clearToolUses(e, messages, count, placeholder)
    messages = r.messages
    applied.push(...r.applied)
  }
  return { messages, applied }
}
