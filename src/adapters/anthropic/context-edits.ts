/**
 * Anthropic's context editing on the wire: chatfold's pruning options as a
 * `clear_tool_uses_20250919` edit (`contextEditFromPrune`), edits put on a request so that
 * `toAnthropicRequest` writes them with the beta flag (`withContextEdits`), and what a response says
 * the API cleared (`appliedEditsOf`) as a prune report (`contextEditReport`).
 *
 * How `PruneOptions` maps to the edit, and what cannot:
 * - `minimumSavings` is `clear_at_least` (input tokens): both clear nothing unless that many
 *   tokens would be freed.
 * - `protectedTools` is `exclude_tools`: neither ever touches those tools' uses.
 * - `protectTokens` (a tail in tokens) has no counterpart in tokens: the edit keeps a number of
 *   tool uses. The edit keeps as many as the history's protected tail holds (counted with the
 *   prune's own `count`), and its trigger is `protectTokens` input tokens, the size under which a
 *   prune finds nothing to touch.
 * - `argThreshold` cannot map: a prune cuts the long string values of large arguments, while
 *   `clear_tool_inputs` clears whole inputs; the edit leaves inputs alone.
 * - `estimate`, `count` and `placeholder` are chatfold's own: the API counts with the model's
 *   tokenizer and writes its own placeholder.
 *
 * @module
 */
import type { Message, Messages } from '../../message/message.ts'
import type { ModelRequest } from '../request.ts'
import type { PruneOptions, PruneReport } from '../../history/prune-options.ts'
import { settingsOf } from '../../history/prune-options.ts'
import { type AppliedContextEdit, type ClearToolUsesEdit, type ContextEdit, contextManagement } from '../../compaction/context-edits.ts'
import { isObject } from '../../internal/object.ts'

// --- emitting ---

/**
 * Options of {@link contextEditFromPrune}: the prune's options, and the trigger when it should not
 * be `protectTokens`.
 *
 * @since 0.1.0
 * @category adapters
 */
export type PruneEditOptions = PruneOptions & {
  /** Input tokens above which the API clears; default `protectTokens` (40,000). */
  readonly triggerTokens?: number
}

/**
 * The `clear_tool_uses_20250919` edit closest to a prune with these options, for this history (see
 * the module for what maps and what cannot): `keep` is the number of tool results in the protected
 * tail (the newest messages worth `protectTokens` and the one that reaches it, counted as the prune
 * counts them), the trigger
 * `protectTokens` input tokens (or `triggerTokens`), `clear_at_least` the `minimumSavings` (left out
 * when 0), `exclude_tools` the `protectedTools`.
 *
 * @example
 * import { contextEditFromPrune } from 'chatfold/adapters'
 * import { textMessage } from 'chatfold/message'
 * contextEditFromPrune({ protectTokens: 30_000, minimumSavings: 5_000, protectedTools: ['web_search'] })([textMessage('user', 'hi')])
 * // { type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 30000 }, keep: { type: 'tool_uses', value: 0 }, clear_at_least: { type: 'input_tokens', value: 5000 }, exclude_tools: ['web_search'] }
 *
 * @since 0.1.0
 * @category adapters
 */
export const contextEditFromPrune = (opts: PruneEditOptions) => (ms: Messages): ClearToolUsesEdit => {
  const s = settingsOf(opts)
  let tokens = 0
  let keep = 0
  // the protected tail as a prune finds it: the newest messages worth `protect` tokens, and the
  // message that reaches it; each tool result in it is a tool use the edit must keep
  for (let i = ms.length - 1; i >= 0 && tokens < s.protect; i--) {
    const m = ms[i] as Message
    tokens += s.count(m)
    for (const p of m.parts) if (p.type === 'tool_result') keep++
  }
  const trigger = opts.triggerTokens === undefined ? s.protect : Math.max(0, Math.floor(opts.triggerTokens))
  return {
    type: 'clear_tool_uses_20250919',
    trigger: { type: 'input_tokens', value: trigger },
    keep: { type: 'tool_uses', value: keep },
    ...(s.minimumSavings > 0 ? { clear_at_least: { type: 'input_tokens', value: s.minimumSavings } } : {}),
    ...(s.protectedTools.size > 0 ? { exclude_tools: [...s.protectedTools] } : {}),
  }
}

/**
 * A request carrying the edits for Anthropic: `providerFields.anthropic.context_management` (thinking
 * clearing first, as the API requires; it replaces any the request had) and the beta flag added to
 * `providerFields.anthropic.betas` (the request's own betas kept),
 * so that `toAnthropicRequest` writes both into the body. Send that body with the SDK's
 * `client.beta.messages.create`, which takes `betas` and sends them as the `anthropic-beta` header
 * (over plain HTTP, send the flag as that header and leave `betas` out of the body). Any other
 * provider's writer names both fields in a `setting_dropped` note: apply the same edits there with
 * `applyContextEdits`.
 *
 * @example
 * import * as E from 'fp-ts/Either'
 * import { textMessage } from 'chatfold/message'
 * import { toAnthropicRequest, withContextEdits } from 'chatfold/adapters'
 * const request = withContextEdits([{ type: 'clear_tool_uses_20250919', keep: { type: 'tool_uses', value: 3 } }])({ model: 'claude-sonnet-4-5', messages: [textMessage('user', 'hi')] })
 * const r = toAnthropicRequest()(request)
 * if (E.isRight(r)) r.right.request.context_management // { edits: [{ type: 'clear_tool_uses_20250919', keep: { type: 'tool_uses', value: 3 } }] }
 * if (E.isRight(r)) r.right.request.betas // ['context-management-2025-06-27']
 *
 * @since 0.1.0
 * @category adapters
 */
export const withContextEdits = (edits: ReadonlyArray<ContextEdit>) => (request: ModelRequest): ModelRequest => {
  const fields = request.providerFields ?? {}
  const own = fields['anthropic'] ?? {}
  const { context_management, betas } = contextManagement(edits)
  const had = Array.isArray(own['betas']) ? own['betas'].filter((b): b is string => typeof b === 'string') : []
  return {
    ...request,
    providerFields: { ...fields, anthropic: { ...own, context_management, betas: [...had, ...betas.filter((b) => !had.includes(b))] } },
  }
}

// --- reading back ---

export { appliedEditsOf, CONTEXT_EDITS_KEY } from './_applied.ts'

/**
 * What context editing cleared, as a prune reports it: `prunedResults` the tool uses cleared,
 * `prunedArgs` 0 (the API does not count cleared inputs apart), `tokensAfter` the input the model
 * read and `tokensBefore` that plus every edit's `cleared_input_tokens`; and the thinking turns
 * cleared, and the edits themselves.
 *
 * @since 0.1.0
 * @category adapters
 */
export type ContextEditReport = PruneReport & { readonly clearedThinkingTurns: number; readonly applied: ReadonlyArray<AppliedContextEdit> }

/**
 * The prune report of applied edits, given the input tokens after them: from a response, its
 * `usage` (input, cache reads and writes) and its `applied_edits`; from `applyContextEdits`, its
 * `applied` and the count of its messages.
 *
 * @example
 * import { appliedEditsOf, contextEditReport } from 'chatfold/adapters'
 * declare const response: { readonly usage: { readonly input_tokens: number } }
 * const report = contextEditReport(appliedEditsOf(response), response.usage.input_tokens)
 * report.tokensBefore - report.tokensAfter // the input tokens the edits cleared
 *
 * @since 0.1.0
 * @category adapters
 */
export const contextEditReport = (applied: ReadonlyArray<AppliedContextEdit>, tokensAfter: number): ContextEditReport => {
  let results = 0
  let turns = 0
  let cleared = 0
  for (const e of applied) {
    cleared += e.cleared_input_tokens
    if (e.type === 'clear_tool_uses_20250919') results += e.cleared_tool_uses
    else turns += e.cleared_thinking_turns
  }
  return { prunedResults: results, prunedArgs: 0, tokensBefore: tokensAfter + cleared, tokensAfter, clearedThinkingTurns: turns, applied }
}

/**
 * The input tokens an Anthropic response reports (input, cache reads and cache writes), 0 when it
 * reports none: the `tokensAfter` of its {@link contextEditReport}.
 *
 * @example
 * import { anthropicInputTokens } from 'chatfold/adapters'
 * anthropicInputTokens({ usage: { input_tokens: 900, cache_read_input_tokens: 100 } }) // 1000
 *
 * @since 0.1.0
 * @category adapters
 */
export const anthropicInputTokens = (response: unknown): number => {
  const u = isObject(response) ? response['usage'] : undefined
  if (!isObject(u)) return 0
  const n = (k: string): number => {
    const v = u[k]
    return typeof v === 'number' ? v : 0
  }
  return n('input_tokens') + n('cache_read_input_tokens') + n('cache_creation_input_tokens')
}
