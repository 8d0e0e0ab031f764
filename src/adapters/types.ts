/**
 * The types every provider adapter shares: the options of the `to…` functions, the report and
 * notes they return, and the errors they fail with.
 *
 * @module
 */
import type * as E from 'fp-ts/Either'
import type { RepairReport, ToolPairIssue } from '../history/pairs.ts'

/**
 * Options every `to…` adapter takes.
 *
 * - `repair`: what to do with a history whose tool calls and results do not pair up: `'fail'`
 *   (the default) returns an `invalid_tool_pairs` error; `'repair'` fixes it with `repairToolPairs`
 *   (and replaces tool-call arguments that are not JSON by `{}`) and says so in the report.
 * - `foreignReasoning`: what becomes of reasoning the target cannot verify (produced by another
 *   provider or model, or unsigned where the target needs a signature): `'drop'` (the default)
 *   leaves it out, `'text'` sends its text as a `<thinking>` text part. Opaque (redacted) reasoning
 *   of another provider is always left out.
 * - `model`: the model the request goes to; reasoning recorded with another `model` is foreign.
 *
 * @example
 * import type { AdapterOptions } from 'chatfold/adapters'
 * const options: AdapterOptions = { repair: 'repair', foreignReasoning: 'text', model: 'claude-sonnet-4-5' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type AdapterOptions = {
  readonly repair?: 'fail' | 'repair'
  readonly foreignReasoning?: 'drop' | 'text'
  readonly model?: string
}

/**
 * Something a `to…` adapter did that the caller may want to know: a message or part the target
 * cannot carry was left out, reasoning was dropped or turned into text, an id was rewritten, a
 * flag the target has no field for was lost, or (`request_fixed`) a provider's request rule changed
 * the request: the rule's name, the request path and what it did (since 0.2.0).
 *
 * Since 0.2.0, what crosses between providers is noted too: another provider's block left out
 * (`provider_part_dropped`) or mapped to built-in parts (`provider_part_mapped`, naming what it
 * became), another provider's fields on a part left out (`provider_fields_dropped`), and, when a
 * whole request is converted, a setting (`setting_dropped`) or tool (`tool_dropped`) the target
 * cannot take.
 *
 * @example
 * import type { AdapterNote } from 'chatfold/adapters'
 * const note: AdapterNote = { kind: 'id_renamed', from: 'call.1', to: 'call_1' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type AdapterNote =
  | { readonly kind: 'omitted_message'; readonly messageId: string; readonly reason: 'not_for_llm' | 'empty' }
  | { readonly kind: 'omitted_part'; readonly messageId: string; readonly part: string; readonly reason: string }
  | { readonly kind: 'reasoning_dropped'; readonly messageId: string; readonly reason: 'foreign' | 'unsigned' | 'opaque' }
  | { readonly kind: 'reasoning_as_text'; readonly messageId: string }
  | { readonly kind: 'id_renamed'; readonly from: string; readonly to: string }
  | { readonly kind: 'arguments_replaced'; readonly messageId: string; readonly toolCallId: string }
  | { readonly kind: 'error_flag_lost'; readonly messageId: string; readonly toolCallId: string }
  | { readonly kind: 'system_as_user'; readonly messageId: string }
  | { readonly kind: 'request_fixed'; readonly rule: string; readonly path: string; readonly action: 'trimmed' | 'dropped' | 'filled' | 'moved' | 'merged' }
  | { readonly kind: 'provider_part_dropped'; readonly messageId: string; readonly provider: string; readonly type: string; readonly reason: string }
  | { readonly kind: 'provider_part_mapped'; readonly messageId: string; readonly provider: string; readonly type: string; readonly to: ReadonlyArray<string> }
  | {
    readonly kind: 'provider_fields_dropped'
    readonly messageId: string
    readonly provider: string
    readonly part: string
    readonly fields: ReadonlyArray<string>
  }
  | { readonly kind: 'setting_dropped'; readonly setting: string; readonly reason: string }
  | { readonly kind: 'tool_dropped'; readonly name: string; readonly reason: string }

/**
 * Renders an adapter note for people, one line: what was changed or left out, where, and why.
 *
 * @example
 * import { formatAdapterNote } from 'chatfold'
 * formatAdapterNote({ kind: 'provider_part_dropped', messageId: 'm3', provider: 'anthropic', type: 'mcp_tool_use', reason: 'no MCP on this provider' })
 * // 'message "m3": left out anthropic "mcp_tool_use": no MCP on this provider'
 *
 * @since 0.1.0
 * @category adapters
 */
export const formatAdapterNote = (n: AdapterNote): string => {
  switch (n.kind) {
    case 'omitted_message':
      return `message "${n.messageId}": left out (${n.reason === 'empty' ? 'empty' : 'not sent to the model'})`
    case 'omitted_part':
      return `message "${n.messageId}": left out a ${n.part} part: ${n.reason}`
    case 'reasoning_dropped':
      return `message "${n.messageId}": left out reasoning (${n.reason})`
    case 'reasoning_as_text':
      return `message "${n.messageId}": reasoning sent as text`
    case 'id_renamed':
      return `tool call id "${n.from}" renamed "${n.to}"`
    case 'arguments_replaced':
      return `message "${n.messageId}": arguments of tool call "${n.toolCallId}" were not JSON and were replaced by {}`
    case 'error_flag_lost':
      return `message "${n.messageId}": the target cannot mark the result of "${n.toolCallId}" as an error`
    case 'system_as_user':
      return `message "${n.messageId}": system message sent as a user message`
    case 'request_fixed':
      return `${n.path}: ${n.action} (${n.rule})`
    case 'provider_part_dropped':
      return `message "${n.messageId}": left out ${n.provider} "${n.type}": ${n.reason}`
    case 'provider_part_mapped':
      return `message "${n.messageId}": ${n.provider} "${n.type}" sent as ${n.to.join(' + ') || 'nothing'}`
    case 'provider_fields_dropped':
      return `message "${n.messageId}": left out ${n.provider}'s ${n.fields.map((f) => `"${f}"`).join(', ')} on a ${n.part} part`
    case 'setting_dropped':
      return `setting "${n.setting}" left out: ${n.reason}`
    case 'tool_dropped':
      return `tool "${n.name}" left out: ${n.reason}`
  }
}

/**
 * What a conversion did besides converting: the repair (when `repair: 'repair'` was asked for)
 * and the notes, in history order.
 *
 * @example
 * import * as E from 'fp-ts/Either'
 * import { makeMessage, toolCall, toAnthropic } from 'chatfold'
 * const r = toAnthropic({ repair: 'repair' })([makeMessage({ role: 'assistant', parts: [toolCall({ id: 'c1', name: 'ls' })] })])
 * if (E.isRight(r)) r.right.report.repair?.addedResults // ['c1']
 *
 * @since 0.1.0
 * @category adapters
 */
export type AdapterReport = { readonly repair?: RepairReport; readonly notes: ReadonlyArray<AdapterNote> }

/**
 * Why a `to…` adapter refused a history: its tool calls and results do not pair up (with
 * `repair: 'fail'`), or a tool call's arguments are not the JSON object the target needs.
 *
 * @example
 * import * as E from 'fp-ts/Either'
 * import { makeMessage, toolCall, toAnthropic } from 'chatfold'
 * const r = toAnthropic()([makeMessage({ role: 'assistant', parts: [toolCall({ id: 'c1', name: 'ls' })] })])
 * if (E.isLeft(r)) r.left.kind // 'invalid_tool_pairs'
 *
 * @since 0.1.0
 * @category adapters
 */
export type AdapterFailure =
  | { readonly kind: 'invalid_tool_pairs'; readonly issues: ReadonlyArray<ToolPairIssue> }
  | { readonly kind: 'invalid_arguments'; readonly messageId: string; readonly toolCallId: string; readonly arguments: string }

/**
 * A successful conversion: the request fields to spread into the provider call, and the report.
 *
 * @example
 * import type { Converted, OpenAIChatRequest } from 'chatfold/adapters'
 * const done: Converted<OpenAIChatRequest> = { request: { messages: [] }, report: { notes: [] } }
 *
 * @since 0.1.0
 * @category adapters
 */
export type Converted<A> = { readonly request: A; readonly report: AdapterReport }

/**
 * What every `to…` adapter returns: an error, or the request with its report.
 *
 * @example
 * import type { AdapterResult, AnthropicRequest } from 'chatfold/adapters'
 * import { textMessage, toAnthropic } from 'chatfold'
 * const r: AdapterResult<AnthropicRequest> = toAnthropic()([textMessage('user', 'Hi')])
 *
 * @since 0.1.0
 * @category adapters
 */
export type AdapterResult<A> = E.Either<AdapterFailure, Converted<A>>

/**
 * Renders an adapter error for people, one line.
 *
 * @example
 * import { formatAdapterFailure } from 'chatfold/adapters'
 * formatAdapterFailure({ kind: 'invalid_arguments', messageId: 'm1', toolCallId: 'c1', arguments: '{"pa' })
 * // 'Cannot convert: tool call "c1" of message "m1" has arguments that are not a JSON object'
 *
 * @since 0.1.0
 * @category adapters
 */
export const formatAdapterFailure = (e: AdapterFailure): string =>
  e.kind === 'invalid_arguments'
    ? `Cannot convert: tool call "${e.toolCallId}" of message "${e.messageId}" has arguments that are not a JSON object`
    : `Cannot convert: ${
      [
        ...e.issues.flatMap((i) => (i.kind === 'reasoning_only' ? [] : [`${i.kind.replace('_', ' ')} "${i.toolCallId}" in message "${i.messageId}"`]))
          .map((x, k) => (k === 0 ? `tool calls and results do not pair up: ${x}` : x)),
        // not a pairing matter: a reply of reasoning alone, which no provider takes (its reply is missing)
        ...e.issues.flatMap((i) =>
          i.kind === 'reasoning_only' ? [`message "${i.messageId}" (number ${i.index + 1} of the history) is reasoning with no reply after it`] : []
        ),
      ].join('; ')
    }`
