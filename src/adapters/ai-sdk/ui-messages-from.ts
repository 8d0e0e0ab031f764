/**
 * Vercel AI SDK UI messages, decoding: `UIMessage[]` (`{ messages }`, as `useChat` holds them or an
 * app stored them) into a history (`fromUIMessages`). Everything is untrusted data: every bad field
 * is reported by path.
 *
 * @module
 */
import { blocksOfContent } from './_tool-content.ts'
import * as t from 'io-ts'
import type * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../../message/failure.ts'
import type { Part, ToolResultContent } from '../../message/part-model.ts'
import type { Message, Messages } from '../../message/message.ts'
import { JsonRecordC, withoutUndefined } from '../../internal/json.ts'
import { fromMessage, optional, type Reader, reader, settleStatuses } from '../decode.ts'
import {
  bytesForm,
  carrier,
  type Decoded,
  extraOptions,
  GOOGLE_READ,
  inputArguments,
  isObjectText,
  PROVIDERS,
  reasoningWithExtras,
  source,
  withAi,
  withoutNeedlessMarks,
} from './model-messages-from.ts'
import { isObject } from '../../internal/object.ts'
import { jsonText } from '../json-text.ts'
import type { Vendor } from '../vocabulary.ts'
import { carriedParts } from './_server-tools.ts'

const OptionsC = t.UnknownRecord
const MessageC = t.intersection([
  t.type({ id: t.string, role: t.keyof({ system: null, user: null, assistant: null }) }),
  t.partial({ metadata: t.unknown, parts: t.array(t.unknown), content: t.unknown }),
])
const TaggedC = t.type({ type: t.string }, 'a part with a string "type"')
const TextC = t.intersection([t.type({ text: t.string }), t.partial({ providerMetadata: optional(OptionsC), state: t.string })])
const FileC = t.intersection([
  t.type({ mediaType: t.string, url: t.string }),
  t.partial({ filename: optional(t.string), providerMetadata: optional(OptionsC) }),
])
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

/**
 * Every `UIMessage` part type `fromUIMessages` gives a home, besides `tool-{name}` and
 * `data-{name}` (see `AIUIPartType`).
 *
 * @since 0.1.0
 * @category adapters
 */
export const AI_UI_PART_TYPES = ['text', 'reasoning', 'file', 'source-url', 'source-document', 'step-start', 'dynamic-tool'] as const

/**
 * Every `UIMessage` part type `fromUIMessages` gives a home (a type-level test checks it against
 * the installed `ai`'s `UIMessage`).
 *
 * @since 0.1.0
 * @category adapters
 */
export type AIUIPartType = (typeof AI_UI_PART_TYPES)[number] | `tool-${string}` | `data-${string}`

/**
 * Every state of a UI tool part `fromUIMessages` reads.
 *
 * @since 0.1.0
 * @category adapters
 */
export const AI_UI_TOOL_STATES = [
  'input-streaming',
  'input-available',
  'approval-requested',
  'approval-responded',
  'output-available',
  'output-error',
  'output-denied',
] as const

/** The fields of a tool part chatfold's call and result carry; every other one is kept on the call (`ui`). */
const TOOL_OWN: ReadonlyArray<string> = ['type', 'toolCallId', 'toolName', 'state', 'input', 'output', 'errorText', 'callProviderMetadata']

/** The states a tool part's call and result do not tell by themselves. */
const KEPT_STATES: ReadonlySet<string> = new Set(['input-streaming', 'approval-requested', 'approval-responded', 'output-denied'])
const RequestC = t.type({ messages: t.array(t.unknown) }, 'an object with messages (UIMessage[])')

const V4ToolC = t.type({
  toolInvocation: t.intersection([t.type({ state: t.string, toolCallId: t.string, toolName: t.string }), t.partial({ args: t.unknown, result: t.unknown })]),
})
const V4DetailC = t.union([
  t.intersection([t.type({ type: t.literal('text'), text: t.string }), t.partial({ signature: optional(t.string) })]),
  t.type({ type: t.literal('redacted'), data: t.string }),
])
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
    return {
      tag: `tool-${x.toolName}`,
      part: { toolCallId: x.toolCallId, state: done ? 'output-available' : 'input-available', input: x.args, ...(done ? { output: x.result } : {}) },
    }
  }
  if (tag === 'file' && isObject(u) && typeof u['mimeType'] === 'string' && typeof u['data'] === 'string' && !('url' in u))
    return { tag, part: { ...u, mediaType: u['mimeType'], url: `data:${u['mimeType']};base64,${u['data']}` } }
  return { tag, part: u }
}

/** A v4 reasoning part (`reasoning`, with `details` carrying Anthropic's signatures and redacted data). */
const v4Reasoning = (r: Reader, u: unknown, at: string, d: Decoded): void => {
  const x = r.read(V4ReasoningC, u, at)
  if (x === undefined) return
  if (x.details === undefined || x.details.length === 0) return reasoningWithExtras(d, x.reasoning, undefined)
  for (const detail of x.details)
    reasoningWithExtras(
      d,
      detail.type === 'text' ? detail.text : '',
      detail.type === 'redacted'
        ? { anthropic: { redactedData: detail.data } }
        : typeof detail.signature === 'string'
        ? { anthropic: { signature: detail.signature } }
        : undefined,
    )
}

/** One step of an assistant UI message: its parts and the results of its tools. */
type Step = Decoded & { readonly results: Part[] }

const newStep = (): Step => ({ parts: [], provider: undefined, results: [] })

/**
 * A tool part (`tool-{name}` or `dynamic-tool`) as a call, and its result when it has one. An input
 * given as JSON text is that text (never a JSON string of it); the state when the call and result
 * do not tell it, and the part's other fields (`title`, `approval`, `providerExecuted`,
 * `preliminary`, …), are kept on the call for `toUIMessages`.
 */
const toolPart = (r: Reader, u: unknown, at: string, tag: string, step: Step): void => {
  const x = r.read(ToolC, u, at)
  if (x === undefined || !isObject(u)) return
  // a provider's server tool that toUIMessages wrote: its blocks, as they came
  const carried = u['providerExecuted'] === true ? carriedParts(x.callProviderMetadata) : undefined
  if (carried !== undefined) return void step.parts.push(...carried)
  const name = tag === 'dynamic-tool' ? x.toolName : tag.slice('tool-'.length)
  if (name === undefined) return void r.fail(`${at}.toolName`, 'string', undefined)
  const args = inputArguments(r, x.input, `${at}.input`)
  if (args === undefined) return
  // a field written as `undefined` (the AI SDK streams `title: undefined`) is absent, as in JSON
  const others = Object.fromEntries(Object.entries(u).filter(([k, v]) => !TOOL_OWN.includes(k) && v !== undefined))
  if (Object.keys(others).length > 0 && jsonText(r, others, at) === undefined) return
  carrier(step, x.callProviderMetadata)
  const fields = {
    ...(isObjectText(x.input) ? { inputText: true } : {}),
    ...(x.input === undefined ? { noInput: true } : {}),
    ...(tag === 'dynamic-tool' ? { dynamic: true } : {}),
    ...(KEPT_STATES.has(x.state) ? { state: x.state } : {}),
    ...(Object.keys(others).length > 0 ? { ui: withoutUndefined(others) } : {}),
    providerOptions: extraOptions(x.callProviderMetadata, GOOGLE_READ),
  }
  step.parts.push(withAi({ type: 'tool_call', id: x.toolCallId, name, arguments: args, status: 'pending' }, fields))
  const result = (content: ToolResultContent, isError: boolean, json = false): void =>
    void step.results.push(withAi({ type: 'tool_result', toolCallId: x.toolCallId, name, content, isError }, json ? { outputType: 'json' } : {}))
  if (x.state === 'output-available') {
    if (typeof x.output === 'string') return result(x.output, false)
    // the AI SDK's content output (what toUIMessages writes for a result of blocks)
    if (isObject(x.output) && x.output['type'] === 'content' && Array.isArray(x.output['value']) && Object.keys(x.output).length === 2) {
      return result(blocksOfContent(x.output['value']), false)
    }
    const text = jsonText(r, x.output ?? null, `${at}.output`)
    if (text !== undefined) result(text, false, true)
  } else if (x.state === 'output-error') result(x.errorText ?? '', true)
  else if (x.state === 'output-denied') result(x.approval?.reason ?? 'Tool execution denied.', true)
}

/** A text, reasoning or file part into a step; `false` for parts chatfold has no place for. */
const contentPart = (r: Reader, u: unknown, at: string, tag: string, d: Decoded, role: string): boolean => {
  const uiState = role === 'assistant' ? assistantState : userState
  if (tag === 'text') {
    const x = r.read(TextC, u, at)
    if (x === undefined) return true
    carrier(d, x.providerMetadata)
    d.parts.push(withAi({ type: 'text', text: x.text }, { state: uiState(x.state), providerOptions: extraOptions(x.providerMetadata, GOOGLE_READ) }))
  } else if (tag === 'reasoning') {
    const x = r.read(TextC, u, at)
    if (x === undefined) return true
    reasoningWithExtras(d, x.text, x.providerMetadata)
    const state = uiState(x.state)
    const last = d.parts.length - 1
    const p = d.parts[last]
    if (state !== undefined && p !== undefined) d.parts[last] = withAi(p, { state })
  } else if (tag === 'file') {
    const x = r.read(FileC, u, at)
    const s = x === undefined ? undefined : source(r, x.url, `${at}.url`)
    if (x === undefined || s === undefined) return true
    carrier(d, x.providerMetadata)
    const filename = typeof x.filename === 'string' ? { filename: x.filename } : {}
    const part: Part = x.mediaType.startsWith('image/') && typeof x.filename !== 'string'
      ? { type: 'image', ...s, ...(x.mediaType === 'image/*' ? {} : { mediaType: x.mediaType }) }
      : { type: 'file', ...s, mediaType: x.mediaType, ...filename }
    d.parts.push(withAi(part, { ...bytesForm(x.url), providerOptions: extraOptions(x.providerMetadata, GOOGLE_READ) }))
  } else return false
  return true
}

/** An assistant text or reasoning part's `state` when it is not `done` (`none` when it has none), for `toUIMessages`. */
const assistantState = (state: string | undefined): string | undefined => (state === 'done' ? undefined : (state ?? 'none'))

/** A user or system text part's `state`, when it has one. */
const userState = (state: string | undefined): string | undefined => state

/**
 * Decodes AI SDK `UIMessage`s (`{ messages }`) into a history. A user or system UI message is one
 * message; an assistant UI message is one assistant message a step (`step-start` parts divide them),
 * each followed by a tool message with the results of its tool parts (`output-available` as the
 * output text, or its JSON; `output-error` and `output-denied` as errors; a tool still running is a
 * `pending` call). Reasoning signatures are read from `providerMetadata` (and `callProviderMetadata`)
 * as `fromModelMessages` reads `providerOptions`. The UI message's id becomes the first message's
 * id; its `metadata`, data and source parts (which chatfold has no part for, and which the AI SDK's
 * own `convertToModelMessages` does not send either) are kept in `metadata.ui`; a tool input given
 * as JSON text is that text; a tool part's state when its call and result do not tell it
 * (`input-streaming`, the approval states, `output-denied`), its other fields (`title`,
 * `approval`, `providerExecuted`, …), `dynamic-tool`, text states and provider metadata beyond
 * signatures are kept in `providerFields['ai-sdk']`, so that `toUIMessages` gives them back. A
 * v4-era message is read from its `parts` (its legacy `content` kept and given back), or from its
 * `content` when it has no parts; its `tool-invocation` parts are tool parts (`result` as the
 * output), a `reasoning` part's `details` give its signatures and redacted data, and a `file` with
 * `mimeType` and base64 `data` is a file. A tool part without a `toolCallId` (which pairs with
 * nothing) is kept as it came in `metadata.ui`, like a data part, and the rest of the thread read.
 * Every bad field is reported by path.
 *
 * @example
 * import { fromUIMessages } from 'chatfold/adapters'
 * fromUIMessages({ messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }] })
 *
 * @since 0.1.0
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
    // a v4-era message: its parts win over the legacy `content`, which is kept as it was; without parts, its text is the content
    if (x.parts === undefined && typeof x.content !== 'string') return void r.fail(`${path}.parts`, 'an array of UI message parts', x.parts)
    const uiParts = x.parts ?? [{ type: 'text', text: x.content }]
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
      } else if (x.role === 'assistant' && (tag.startsWith('tool-') || tag === 'dynamic-tool')) {
        // a tool part without its call id pairs with nothing: kept as it came (metadata.ui.parts), the rest read
        if (isObject(p) && typeof p['toolCallId'] !== 'string') kept.push({ at: j, part: p })
        else toolPart(r, p, at, tag, step)
      } else if (!contentPart(r, p, at, tag, step, x.role)) kept.push({ at: j, part: p })
    })
    // what chatfold has no place for is kept as JSON in metadata.ui, checked where it stood
    const meta = x.metadata === undefined ? undefined : r.read(JsonRecordC, { metadata: x.metadata }, path)
    const parts = kept.flatMap(({ at, part }) => {
      const d = r.read(JsonRecordC, part, `${path}.parts[${at}]`)
      return d === undefined ? [] : [{ at, part: d }]
    })
    if ((x.metadata !== undefined && meta === undefined) || parts.length !== kept.length) return
    const legacy = x.parts !== undefined && x.content !== undefined ? r.read(JsonRecordC, { content: x.content }, path) : undefined
    if (x.parts !== undefined && x.content !== undefined && legacy === undefined) return
    // kept as decoded: without the fields written as `undefined`
    const ui = { ...(meta === undefined ? {} : meta), ...(parts.length === 0 ? {} : { parts }), ...(legacy === undefined ? {} : legacy) }
    const metadata = Object.keys(ui).length === 0 ? undefined : { ui }
    steps.forEach((step, k) => {
      const first = k === 0 ? { id: x.id, ...(metadata === undefined ? {} : { metadata }) } : {}
      const provider = x.role === 'assistant' && step.provider !== undefined && PROVIDERS.has(step.provider) ? { provider: step.provider as Vendor } : {}
      out.push(fromMessage({ ...first, role: x.role, parts: withoutNeedlessMarks(step.parts), ...provider }))
      if (step.results.length > 0) out.push(fromMessage({ role: 'tool', parts: step.results }))
    })
  })
  return r.done(settleStatuses(out))
}
