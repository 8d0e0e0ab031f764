/**
 * Anthropic Messages, decoding: the `system` and `messages` of a request into a history
 * (`fromAnthropic`), and a response into an assistant message (`fromAnthropicMessage`).
 * Everything is untrusted JSON: every bad field is reported by path.
 *
 * @module
 */
import * as t from 'io-ts'
import type * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../../message/failure.ts'
import type { Message, Messages } from '../../message/message.ts'
import { errorText, fromMessage, optional, type Reader, reader, replyMessage, settleStatuses } from '../decode.ts'
import { blockParts, extrasOf, requestShape } from './_blocks.ts'
import { isObject } from '../../internal/object.ts'
import { appliedEditsOf, CONTEXT_EDITS_KEY } from './_applied.ts'

// --- from ---

const ContentC = t.union([t.string, t.array(t.unknown)])
const RoleC = t.type({ role: t.keyof({ user: null, assistant: null, system: null }) })
const ChatTurnC = t.type({ role: t.keyof({ user: null, assistant: null }), content: ContentC })
const SystemTurnC = t.intersection([t.type({ role: t.literal('system') }), t.partial({ content: optional(ContentC) })])
/** A turn: its role first, so that a bad role is one issue. */
const readTurn = (r: Reader, u: unknown, path: string): t.TypeOf<typeof ChatTurnC> | t.TypeOf<typeof SystemTurnC> | undefined => {
  const role = r.read(RoleC, u, path)?.role
  return role === undefined ? undefined : role === 'system' ? r.read(SystemTurnC, u, path) : r.read(ChatTurnC, u, path)
}
const RequestC = t.intersection([
  t.type({ messages: t.array(t.unknown) }, 'a Messages request with messages'),
  t.partial({ system: optional(t.union([t.string, t.array(t.unknown)])) }),
])

/**
 * Decodes the `system` and `messages` of an Anthropic Messages request (as `toAnthropic` writes
 * them, or any request body) into a history: `system` becomes a system message; a user turn's
 * `tool_result` blocks become tool messages (one a result, with the tool's name found from its call)
 * and the rest a user message; an assistant turn becomes an assistant message with
 * `provider: 'anthropic'`; a system turn among the messages becomes a system message whose
 * `metadata.providerFields.anthropic` holds its `role` and other fields (so that it goes back as a
 * turn in its place); thinking blocks become reasoning with their signatures and redacted thinking
 * as reasoning with `redacted: true`. Tool-use input becomes its JSON text. Every other block (server
 * tool calls and results, search results, MCP blocks, compaction, …; see `ANTHROPIC_BLOCK_TYPES`)
 * is a provider part holding the block verbatim, in its place, and a block's fields that no part
 * field carries (`cache_control`, `citations`, …) are kept in the part's `providerFields.anthropic`,
 * so that `toAnthropic` writes the same blocks back. Every bad field is reported by path.
 *
 * @example
 * import { fromAnthropic } from 'chatfold'
 * fromAnthropic({ system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromAnthropic = (u: unknown): E.Either<DecodeFailure, Messages> => {
  const r = reader()
  const request = r.read(RequestC, u, '')
  if (request === undefined) return r.done([])
  const out: Message[] = []
  const names = new Map<string, string>()
  if (request.system != null) out.push(fromMessage({ role: 'system', parts: blockParts(r, request.system, 'system').parts }))
  request.messages.forEach((item, i) => {
    const path = `messages[${i}]`
    const turn = readTurn(r, item, path)
    if (turn === undefined || !isObject(item)) return
    if (turn.role === 'system') {
      // a system turn among the messages: its fields besides the content (`clear_at`, …) are the message's
      const fields = { role: 'system', ...extrasOf(item, ['role', 'content']) }
      const parts = turn.content == null ? [] : blockParts(r, turn.content, `${path}.content`).parts
      out.push(fromMessage({ role: 'system', parts, metadata: { providerFields: { anthropic: fields } } }))
      return
    }
    const { parts, results } = blockParts(r, turn.content, `${path}.content`)
    if (turn.role === 'assistant') {
      // a result answers a call: it belongs in the user turn after it, never beside it
      if (results.length > 0) r.fail(`${path}.content`, 'no tool_result block in an assistant turn', 'tool_result')
      for (const p of parts) if (p.type === 'tool_call') names.set(p.id, p.name)
      out.push(fromMessage({ role: 'assistant', parts, provider: 'anthropic' }))
      return
    }
    for (const result of results) {
      const named = result.map((p) => {
        const name = p.type === 'tool_result' ? names.get(p.toolCallId) : undefined
        return name === undefined ? p : { ...p, name }
      })
      out.push(fromMessage({ role: 'tool', parts: named }))
    }
    if (parts.length > 0 || results.length === 0) out.push(fromMessage({ role: turn.role, parts }))
  })
  return r.done(settleStatuses(out))
}

const MessageC = t.intersection([
  t.type({ id: t.string, content: t.array(t.unknown) }),
  t.partial({
    model: t.string,
    stop_reason: optional(t.string),
    usage: optional(t.type({ output_tokens: t.number })),
  }),
])

const ErrorBodyC = t.type({ type: t.literal('error'), error: t.type({ type: t.string, message: t.string }) })

/**
 * Decodes an Anthropic Messages response into one assistant message: its id, model,
 * `provider: 'anthropic'`, parts (thinking with signatures, redacted thinking, text, tool use, and
 * every other block as `fromAnthropic` reads it; a field the response sets to `null` for "none" and
 * the default `caller: { type: 'direct' }` are left out, as a request would say them), a
 * finish part with the `stop_reason` as it is (`end_turn`, `tool_use`, `max_tokens`, …) and its
 * output tokens; the edits context editing applied (`context_management.applied_edits`), when
 * any, in `metadata.contextEdits` (see `appliedEditsOf`, `contextEditReport`). An error body (`{ type: 'error', error: { type, message } }`) becomes an
 * assistant message with `error` set and no parts. Tool calls are `pending`: nothing has run them yet.
 *
 * @example
 * import { fromAnthropicMessage } from 'chatfold/adapters'
 * fromAnthropicMessage({
 *   id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', stop_reason: 'end_turn',
 *   content: [{ type: 'text', text: 'Hi!' }], usage: { input_tokens: 9, output_tokens: 3 },
 * })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromAnthropicMessage = (u: unknown): E.Either<DecodeFailure, Message> => {
  const r = reader()
  if (ErrorBodyC.is(u)) return r.done(fromMessage({ role: 'assistant', parts: [], provider: 'anthropic', error: errorText(u.error.type, u.error.message) }))
  const x = r.read(MessageC, u, '')
  if (x === undefined) return r.done(fromMessage({ role: 'assistant', parts: [] }))
  const reply = replyMessage({
    provider: 'anthropic',
    parts: blockParts(r, x.content.map(requestShape), 'content').parts,
    id: x.id,
    model: x.model,
    finish: typeof x.stop_reason === 'string' ? x.stop_reason : undefined,
    output: x.usage?.output_tokens,
  })
  // what context editing cleared before the model read the request, as the response reports it
  const applied = isObject(u) && isObject(u['context_management']) ? appliedEditsOf(u) : []
  return r.done(applied.length === 0 ? reply : { ...reply, metadata: { ...reply.metadata, [CONTEXT_EDITS_KEY]: applied } })
}
