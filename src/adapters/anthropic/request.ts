/**
 * Anthropic Messages, the whole request: a body (`messages.create` parameters) to and from a
 * `ModelRequest`, its envelope kept (model, tools, tool choice, sampling settings, and every other
 * field verbatim), so that `toAnthropicRequest` gives an Anthropic body back as it came, and says
 * what another provider's request held that Anthropic cannot take.
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../../message/failure.ts'
import type { AdapterNote, AdapterOptions, AdapterResult } from '../types.ts'
import type { ModelRequest, RequestSettings, ToolChoice, ToolDefinition } from '../request.ts'
import { optional, type Reader, reader, TaggedC } from '../decode.ts'
import { extrasOf } from './_blocks.ts'
import { fromAnthropic } from './messages-from.ts'
import { type AnthropicRequest, toAnthropic } from './messages.ts'
import { isObject } from '../../internal/object.ts'
import { type CacheHints, withAnthropicBreakpoints } from '../cache-hints.ts'
import { ownFields, writeRequest } from '../envelope.ts'

// --- wire ---

/**
 * A tool definition of a Messages request: a custom tool (`name`, `input_schema`, …) or one of
 * Anthropic's server tools (`{ type: 'web_search_20250305', name: 'web_search', … }`), as the API
 * takes it.
 *
 * @example
 * import type { AnthropicTool } from 'chatfold/adapters'
 * const tool: AnthropicTool = { name: 'ls', description: 'Lists files', input_schema: { type: 'object', properties: {} } }
 *
 * @since 0.1.0
 * @category adapters
 */
export type AnthropicTool = { readonly name?: string; readonly type?: string; readonly [field: string]: unknown }

/**
 * A whole Messages request body, as `toAnthropicRequest` writes it: `system` and `messages` (see
 * `AnthropicRequest`), the model, the tools and tool choice, the sampling settings and every other
 * field the body held (`thinking`, `metadata`, `context_management`, …). `max_tokens`, which the API
 * requires, is absent when the request named no output limit.
 *
 * @example
 * import type { AnthropicRequestBody } from 'chatfold/adapters'
 * const body: AnthropicRequestBody = { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] }
 *
 * @since 0.1.0
 * @category adapters
 */
export type AnthropicRequestBody = AnthropicRequest & {
  readonly model?: string
  readonly max_tokens?: number
  readonly temperature?: number
  readonly top_p?: number
  readonly top_k?: number
  readonly stop_sequences?: Array<string>
  readonly tools?: Array<AnthropicTool>
  readonly tool_choice?: { readonly type: 'auto' | 'any' | 'tool' | 'none'; readonly name?: string; readonly disable_parallel_tool_use?: boolean }
  readonly [field: string]: unknown
}

// --- from ---

const ENVELOPE = ['model', 'system', 'messages', 'tools', 'tool_choice', 'max_tokens', 'temperature', 'top_p', 'top_k', 'stop_sequences']

const BodyC = t.intersection([
  t.type({ messages: t.array(t.unknown) }, 'a Messages request body with messages'),
  t.partial({
    model: optional(t.string),
    tools: optional(t.array(t.unknown)),
    max_tokens: optional(t.number),
    temperature: optional(t.number),
    top_p: optional(t.number),
    top_k: optional(t.number),
    stop_sequences: optional(t.array(t.string)),
  }),
])
const CustomToolC = t.intersection([t.type({ name: t.string, input_schema: t.UnknownRecord }), t.partial({ description: t.string, strict: t.boolean })])
const ChoiceC = t.intersection([
  t.type({ type: t.keyof({ auto: null, any: null, tool: null, none: null }) }),
  t.partial({ name: t.string, disable_parallel_tool_use: t.boolean }),
])

/** A tool definition: a custom tool as a function, anything else (a server tool, an MCP toolset) verbatim. */
const toolOf = (r: Reader, u: unknown, at: string): ToolDefinition | undefined => {
  if (!isObject(u) || (u['type'] === undefined && typeof u['name'] !== 'string'))
    return r.fail(at, 'a custom tool with a name and an input_schema, or a tool with a type', u)
  if (u['type'] !== undefined && u['type'] !== 'custom') {
    const tagged = r.read(TaggedC, u, at)
    return tagged === undefined ? undefined : { type: 'provider', provider: 'anthropic', kind: tagged.type, data: u }
  }
  const custom = r.read(CustomToolC, u, at)
  if (custom !== undefined) {
    const x = custom
    const mapped = ['name', 'input_schema', ...(x.description === undefined ? [] : ['description']), ...(x.strict === undefined ? [] : ['strict'])]
    const extras = extrasOf(u, mapped)
    return {
      type: 'function',
      name: x.name,
      ...(x.description === undefined ? {} : { description: x.description }),
      inputSchema: x.input_schema,
      ...(x.strict === undefined ? {} : { strict: x.strict }),
      ...(extras === undefined ? {} : { providerFields: { anthropic: extras } }),
    }
  }
  return undefined
}

/** The tool choice and the parallel-call setting it carries; a choice of another shape stays verbatim. */
const choiceOf = (u: unknown): { readonly choice?: ToolChoice; readonly parallel?: boolean } | undefined => {
  const d = ChoiceC.decode(u)
  if (E.isLeft(d) || !isObject(u) || extrasOf(u, ['type', 'name', 'disable_parallel_tool_use']) !== undefined) return undefined
  const x = d.right
  if ((x.type === 'tool') !== (x.name !== undefined) || (x.type === 'none' && x.disable_parallel_tool_use !== undefined)) return undefined
  const choice: ToolChoice = x.type === 'any' ? { type: 'required' } : x.type === 'tool' ? { type: 'tool', name: x.name ?? '' } : { type: x.type }
  return { choice, ...(x.disable_parallel_tool_use === undefined ? {} : { parallel: !x.disable_parallel_tool_use }) }
}

/**
 * Decodes a whole Anthropic Messages request body into a `ModelRequest`: the `system` and `messages`
 * as `fromAnthropic` reads them; `model`; custom tools as function tools (their `cache_control` and
 * other fields in `providerFields.anthropic`), server tools (web search, code execution, MCP
 * toolsets, …) as provider tools, verbatim; `tool_choice` (`any` is `required`;
 * `disable_parallel_tool_use` is `parallelToolCalls: false`); `max_tokens`, `temperature`, `top_p`,
 * `top_k`, `stop_sequences` as settings; every other field (`thinking`, `metadata`, `service_tier`,
 * `context_management`, `mcp_servers`, `container`, `betas`, …) verbatim in
 * `providerFields.anthropic`. Every bad field is reported by path.
 *
 * @example
 * import { fromAnthropicRequest } from 'chatfold/adapters'
 * fromAnthropicRequest({ model: 'claude-sonnet-4-5', max_tokens: 1024, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: [{ role: 'user', content: 'Hi' }] })
 * // Right({ model: 'claude-sonnet-4-5', messages: [user "Hi"], settings: { maxOutputTokens: 1024 }, providerFields: { anthropic: { thinking: … } } })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromAnthropicRequest = (u: unknown): E.Either<DecodeFailure, ModelRequest> => {
  const r = reader()
  const body = r.read(BodyC, u, '')
  const tools = (isObject(u) && Array.isArray(u['tools']) ? u['tools'] : []).flatMap((x: unknown, i) => {
    const tool = toolOf(r, x, `tools[${i}]`)
    return tool === undefined ? [] : [tool]
  })
  if (body === undefined || !isObject(u)) return r.done({ messages: [] })
  const messages = fromAnthropic({ messages: body.messages, ...(u['system'] === undefined ? {} : { system: u['system'] }) })
  if (E.isLeft(messages)) { for (const issue of messages.left) r.fail(issue.path, issue.expected, issue.actual) }
  const picked = u['tool_choice'] == null ? undefined : choiceOf(u['tool_choice'])
  const settings: RequestSettings = {
    ...(typeof body.max_tokens === 'number' ? { maxOutputTokens: body.max_tokens } : {}),
    ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
    ...(typeof body.top_p === 'number' ? { topP: body.top_p } : {}),
    ...(typeof body.top_k === 'number' ? { topK: body.top_k } : {}),
    ...(Array.isArray(body.stop_sequences) ? { stop: body.stop_sequences } : {}),
    ...(picked?.parallel === undefined ? {} : { parallelToolCalls: picked.parallel }),
  }
  const rest = extrasOf(u, picked === undefined ? ENVELOPE.filter((k) => k !== 'tool_choice') : ENVELOPE) ?? {}
  // an envelope field sent as null stays as it came
  for (const k of ENVELOPE) if (k !== 'messages' && u[k] === null) rest[k] = null
  return r.done({
    ...(typeof body.model === 'string' ? { model: body.model } : {}),
    messages: E.isRight(messages) ? messages.right : [],
    ...(body.tools == null ? {} : { tools }),
    ...(picked?.choice === undefined ? {} : { toolChoice: picked.choice }),
    ...(Object.keys(settings).length === 0 ? {} : { settings }),
    ...(Object.keys(rest).length === 0 ? {} : { providerFields: { anthropic: rest } }),
  })
}

// --- to ---

const DROPPED_SETTINGS: ReadonlyArray<readonly [keyof RequestSettings, string]> = [
  ['seed', 'seed'],
  ['presencePenalty', 'presence_penalty'],
  ['frequencyPenalty', 'frequency_penalty'],
]

/** A function tool as a custom tool; another provider's tool is left out with a note. */
const toolTo = (tool: ToolDefinition, notes: AdapterNote[]): AnthropicTool | undefined => {
  if (tool.type === 'provider') {
    if (tool.provider === 'anthropic' && isObject(tool.data)) return tool.data
    const name = isObject(tool.data) && typeof tool.data['name'] === 'string' ? tool.data['name'] : tool.kind
    notes.push({ kind: 'tool_dropped', name, reason: `${tool.provider}'s "${tool.kind}" tool has no Anthropic equivalent` })
    return undefined
  }
  const own = ownFields('anthropic', tool.providerFields, notes, `tools.${tool.name}.`)
  return {
    ...own,
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    input_schema: tool.inputSchema,
    ...(tool.strict === undefined ? {} : { strict: tool.strict }),
  }
}

/** The `tool_choice` of a request: its choice, with the parallel-call setting (which `none` cannot take). */
const choiceTo = (choice: ToolChoice | undefined, parallel: boolean | undefined, notes: AdapterNote[]): AnthropicRequestBody['tool_choice'] => {
  if (choice === undefined && parallel !== false) return undefined
  if (choice?.type === 'none') {
    if (parallel !== undefined)
      notes.push({ kind: 'setting_dropped', setting: 'parallelToolCalls', reason: 'a tool choice of none takes no disable_parallel_tool_use' })
    return { type: 'none' }
  }
  const base = choice === undefined
    ? { type: 'auto' as const }
    : choice.type === 'required'
    ? { type: 'any' as const }
    : choice.type === 'tool'
    ? { type: 'tool' as const, name: choice.name }
    : { type: choice.type }
  return parallel === undefined ? base : { ...base, disable_parallel_tool_use: !parallel }
}

/**
 * Writes a `ModelRequest` as an Anthropic Messages request body: the history as `toAnthropic` writes
 * it (its report included), the model, `max_tokens` and the sampling settings, function tools as
 * custom tools and Anthropic's own tools verbatim, the tool choice (`parallelToolCalls: false` is
 * `disable_parallel_tool_use`), and Anthropic's `providerFields` as body fields. For a request
 * `fromAnthropicRequest` read, the body it came from. What another provider's request held that
 * Anthropic cannot take is noted: its tools (`tool_dropped`), `seed` and the penalties, and its
 * provider fields (`setting_dropped`, one note each). With `cache` hints (`{}`, or `{ ttl: '1h' }`),
 * `cache_control` breakpoints go on the last block of the last message, the end of the system prompt
 * and the last tool, as long as the request holds fewer than four (a string prompt or content then
 * becomes one text block); by default (`off`) none is added.
 *
 * @example
 * import * as E from 'fp-ts/Either'
 * import { textMessage } from 'chatfold/message'
 * import { toAnthropicRequest } from 'chatfold/adapters'
 * const r = toAnthropicRequest()({ model: 'claude-sonnet-4-5', messages: [textMessage('user', 'Hi')], settings: { maxOutputTokens: 1024, seed: 7 } })
 * if (E.isRight(r)) {
 *   r.right.request // { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] }
 *   r.right.report.notes // [{ kind: 'setting_dropped', setting: 'seed', reason: 'the Messages API has no seed' }]
 * }
 *
 * @since 0.1.0
 * @category adapters
 */
export const toAnthropicRequest =
  (options: AdapterOptions & { readonly cache?: CacheHints } = {}) => (request: ModelRequest): AdapterResult<AnthropicRequestBody> =>
    writeRequest('anthropic', request, toAnthropic(options)(request.messages), ({ history, own, notes }) => {
      const s = request.settings ?? {}
      for (const [key, field] of DROPPED_SETTINGS) {
        if (s[key] !== undefined) notes.push({ kind: 'setting_dropped', setting: key, reason: `the Messages API has no ${field}` })
      }
      const tools = request.tools?.flatMap((tool) => {
        const x = toolTo(tool, notes)
        return x === undefined ? [] : [x]
      })
      const choice = choiceTo(request.toolChoice, s.parallelToolCalls, notes)
      const body: AnthropicRequestBody = {
        ...own,
        ...(request.model === undefined ? {} : { model: request.model }),
        ...(s.maxOutputTokens === undefined ? {} : { max_tokens: s.maxOutputTokens }),
        ...history,
        ...(s.temperature === undefined ? {} : { temperature: s.temperature }),
        ...(s.topP === undefined ? {} : { top_p: s.topP }),
        ...(s.topK === undefined ? {} : { top_k: s.topK }),
        ...(s.stop === undefined ? {} : { stop_sequences: [...s.stop] }),
        ...(tools === undefined || (tools.length === 0 && request.tools?.length !== 0) ? {} : { tools }),
        ...(choice === undefined ? {} : { tool_choice: choice }),
      }
      return withAnthropicBreakpoints(options.cache, body)
    })
