/**
 * Vercel AI SDK UI messages, decoding: `UIMessage[]` (`{ messages }`, as `useChat` holds them or an
 * app stored them) into a history (`fromUIMessages`). Everything is untrusted data: every bad field
 * is reported by path.
 *
 * @module
 */
import * as t from 'io-ts'
import type * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../failure.ts'
import type { Part } from '../part.ts'
import type { Message, Messages } from '../message.ts'
import { JsonRecordC } from '../internal/json.ts'
import { isObject } from '../internal/object.ts'
import { fromMessage, optional, reader, type Reader, settleStatuses } from './shared.ts'
import { carrier, type Decoded, PROVIDERS, reasoningPart, source } from './ai-sdk-from.ts'
import { jsonText } from './json-text.ts'
import type { ProviderId } from './types.ts'

const OptionsC = t.UnknownRecord
const MessageC = t.intersection([
  t.type({ id: t.string, role: t.keyof({ system: null, user: null, assistant: null }) }),
  t.partial({ parts: t.array(t.unknown), content: t.unknown, metadata: t.unknown }),
])
const TaggedC = t.type({ type: t.string }, 'a part with a string "type"')
const TextC = t.intersection([t.type({ text: t.string }), t.partial({ providerMetadata: optional(OptionsC) })])
const FileC = t.intersection([t.type({ mediaType: t.string, url: t.string }), t.partial({ filename: optional(t.string), providerMetadata: optional(OptionsC) })])
const ToolC = t.intersection([
  t.type({
    toolCallId: t.string,
    state: t.keyof({
      'input-streaming': null,
      'input-available': null,
      'approval-requested': null,
      'approval-responded': null,
      'output-available': null,
      'output-error': null,
      'output-denied': null,
    }),
  }),
  t.partial({
    toolName: t.string,
    input: t.unknown,
    output: t.unknown,
    errorText: optional(t.string),
    approval: optional(t.partial({ reason: optional(t.string) })),
    callProviderMetadata: optional(OptionsC),
  }),
])
const RequestC = t.type({ messages: t.array(t.unknown) }, 'an object with messages (UIMessage[])')

const V4ToolC = t.type({ toolInvocation: t.intersection([t.type({ state: t.string, toolCallId: t.string, toolName: t.string }), t.partial({ args: t.unknown, result: t.unknown })]) })
const V4DetailC = t.union([t.intersection([t.type({ type: t.literal('text'), text: t.string }), t.partial({ signature: optional(t.string) })]), t.type({ type: t.literal('redacted'), data: t.string })])
const V4ReasoningC = t.intersection([t.type({ reasoning: t.string }), t.partial({ details: t.array(V4DetailC) })])

/**
 * An AI SDK v4 part (`tool-invocation`, a `file` with `mimeType` and base64 `data`) in its v5 shape,
 * which the readers below take; any other part as it is.
 */
const v5Part = (r: Reader, u: unknown, at: string, tag: string): { readonly tag: string; readonly part: unknown } | undefined => {
  if (tag === 'tool-invocation') {
    const x = r.read(V4ToolC, u, at)?.toolInvocation
    if (x === undefined) return undefined
    const done = x.state === 'result'
    return { tag: `tool-${x.toolName}`, part: { toolCallId: x.toolCallId, state: done ? 'output-available' : 'input-available', input: x.args, ...(done ? { output: x.result } : {}) } }
  }
  if (tag === 'file' && isObject(u) && typeof u['mimeType'] === 'string' && typeof u['data'] === 'string' && !('url' in u))
    return { tag, part: { ...u, mediaType: u['mimeType'], url: `data:${u['mimeType']};base64,${u['data']}` } }
  return { tag, part: u }
}

/** A v4 reasoning part (`reasoning`, with `details` carrying Anthropic's signatures and redacted data). */
const v4Reasoning = (r: Reader, u: unknown, at: string, d: Decoded): void => {
  const x = r.read(V4ReasoningC, u, at)
  if (x === undefined) return
  if (x.details === undefined || x.details.length === 0) return reasoningPart(d, x.reasoning, undefined)
  for (const detail of x.details)
    reasoningPart(d, detail.type === 'text' ? detail.text : '', detail.type === 'redacted' ? { anthropic: { redactedData: detail.data } } : typeof detail.signature === 'string' ? { anthropic: { signature: detail.signature } } : undefined)
}

/** One step of an assistant UI message: its parts, the results of its tools, the ids of JSON outputs. */
type Step = Decoded & { readonly results: Part[]; readonly json: string[] }

const newStep = (): Step => ({ parts: [], provider: undefined, results: [], json: [] })

/** A tool part (`tool-{name}` or `dynamic-tool`) as a call, and its result when it has one. */
const toolPart = (r: Reader, u: unknown, at: string, tag: string, step: Step): void => {
  const x = r.read(ToolC, u, at)
  if (x === undefined) return
  const name = tag === 'dynamic-tool' ? x.toolName : tag.slice('tool-'.length)
  if (name === undefined) return void r.fail(`${at}.toolName`, 'string', undefined)
  const args = x.input === undefined ? '{}' : jsonText(r, x.input, `${at}.input`)
  if (args === undefined) return
  carrier(step, x.callProviderMetadata)
  step.parts.push({ type: 'tool_call', id: x.toolCallId, name, arguments: args, status: 'pending' })
  const result = (content: string, isError: boolean): void => void step.results.push({ type: 'tool_result', toolCallId: x.toolCallId, name, content, isError })
  if (x.state === 'output-available') {
    if (typeof x.output === 'string') return result(x.output, false)
    const text = jsonText(r, x.output ?? null, `${at}.output`)
    if (text === undefined) return
    step.json.push(x.toolCallId)
    result(text, false)
  } else if (x.state === 'output-error') result(x.errorText ?? '', true)
  else if (x.state === 'output-denied') result(x.approval?.reason ?? 'Tool execution denied.', true)
}

/** A text, reasoning or file part into a step; `false` for parts chatfold has no place for. */
const contentPart = (r: Reader, u: unknown, at: string, tag: string, d: Decoded): boolean => {
  if (tag === 'text') {
    const x = r.read(TextC, u, at)
    if (x === undefined) return true
    carrier(d, x.providerMetadata)
    d.parts.push({ type: 'text', text: x.text })
  } else if (tag === 'reasoning') {
    const x = r.read(TextC, u, at)
    if (x !== undefined) reasoningPart(d, x.text, x.providerMetadata)
  } else if (tag === 'file') {
    const x = r.read(FileC, u, at)
    const s = x === undefined ? undefined : source(r, x.url, `${at}.url`)
    if (x === undefined || s === undefined) return true
    carrier(d, x.providerMetadata)
    const filename = typeof x.filename === 'string' ? { filename: x.filename } : {}
    d.parts.push(x.mediaType.startsWith('image/') && typeof x.filename !== 'string' ? { type: 'image', ...s, ...(x.mediaType === 'image/*' ? {} : { mediaType: x.mediaType }) } : { type: 'file', ...s, mediaType: x.mediaType, ...filename })
  } else return false
  return true
}

/**
 * Decodes AI SDK `UIMessage`s (`{ messages }`) into a history. A user or system UI message is one
 * message; an assistant UI message is one assistant message a step (`step-start` parts divide them),
 * each followed by a tool message with the results of its tool parts (`output-available` as the
 * output text, or its JSON; `output-error` and `output-denied` as errors; a tool still running is a
 * `pending` call). AI SDK v4 messages read too: their `parts` win over the legacy `content` (read
 * only when a message has no parts), a `tool-invocation` is a tool part (`result` as its output),
 * a `reasoning` part's `details` give its signatures and redacted data, and a `file` with
 * `mimeType` and base64 `data` is a file. Reasoning signatures are read from `providerMetadata` (and `callProviderMetadata`)
 * as `fromModelMessages` reads `providerOptions`. The UI message's id becomes the first message's
 * id; its `metadata`, data and source parts (which chatfold has no part for) and which outputs were
 * JSON are kept in `metadata.ui`, so that `toUIMessages` gives them back. Every bad field is
 * reported by path.
 *
 * @example
 * import { fromUIMessages } from 'chatfold'
 * fromUIMessages({ messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }] })
 *
 * @since 0.2.0
 * @category adapters
 */
export const fromUIMessages = (u: unknown): E.Either<DecodeFailure, Messages> => {
  const r = reader()
  const request = r.read(RequestC, u, '')
  if (request === undefined) return r.done([])
  const out: Message[] = []
  request.messages.forEach((item, i) => {
    const path = `messages[${i}]`
    const x = r.read(MessageC, item, path)
    if (x === undefined) return
    // parts win over a v4 message's legacy content, which is read only when there are no parts
    const uiParts = x.parts ?? (typeof x.content === 'string' ? [{ type: 'text', text: x.content }] : r.fail(`${path}.parts`, 'an array of parts', undefined))
    if (uiParts === undefined) return
    const kept: Array<{ readonly at: number; readonly part: unknown }> = []
    const steps: Step[] = [newStep()]
    uiParts.forEach((u, j) => {
      const at = `${path}.parts[${j}]`
      const tagged = r.read(TaggedC, u, at)?.type
      const v5 = tagged === undefined ? undefined : v5Part(r, u, at, tagged)
      if (v5 === undefined) return
      const { tag, part: p } = v5
      const step = steps[steps.length - 1] as Step
      if (tag === 'reasoning' && isObject(p) && typeof p['reasoning'] === 'string' && typeof p['text'] !== 'string') v4Reasoning(r, p, at, step)
      else if (tag === 'step-start' && x.role === 'assistant') {
        if (step.parts.length > 0 || step.results.length > 0) steps.push(newStep())
      } else if (x.role === 'assistant' && (tag.startsWith('tool-') || tag === 'dynamic-tool')) toolPart(r, p, at, tag, step)
      else if (!contentPart(r, p, at, tag, step)) kept.push({ at: j, part: p })
    })
    // what chatfold has no place for is kept as JSON in metadata.ui, checked where it stood
    const meta = x.metadata === undefined ? undefined : r.read(JsonRecordC, { metadata: x.metadata }, path)
    const parts = kept.filter(({ at, part }) => r.read(JsonRecordC, part, `${path}.parts[${at}]`) !== undefined)
    if ((x.metadata !== undefined && meta === undefined) || parts.length !== kept.length) return
    const ui = { ...(x.metadata === undefined ? {} : { metadata: x.metadata }), ...(kept.length === 0 ? {} : { parts: kept }) }
    const metadata = Object.keys(ui).length === 0 ? undefined : { ui }
    steps.forEach((step, k) => {
      const first = k === 0 ? { id: x.id, ...(metadata === undefined ? {} : { metadata }) } : {}
      const provider = x.role === 'assistant' && step.provider !== undefined && PROVIDERS.has(step.provider) ? { provider: step.provider as ProviderId } : {}
      out.push(fromMessage({ ...first, role: x.role, parts: step.parts, ...provider }))
      if (step.results.length > 0) out.push(fromMessage({ role: 'tool', parts: step.results, ...(step.json.length === 0 ? {} : { metadata: { ui: { jsonOutputs: step.json } } }) }))
    })
  })
  return r.done(settleStatuses(out))
}
