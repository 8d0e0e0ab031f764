/**
 * OpenAI request envelopes, both APIs: a whole request body to and from a `ModelRequest`.
 *
 * Read: the history (`instructions`, `system` and `developer` messages as system messages), the
 * model, function tools (JSON Schema `parameters`, `strict`) as function definitions and every
 * other tool (custom tools with a grammar, web search, file search, code interpreter, image
 * generation, MCP, computer use, shell, apply patch, …) kept verbatim, the tool choice
 * (`auto`, `none`, `required`, a named function; any other choice kept verbatim), the shared
 * settings (`max_output_tokens` or `max_completion_tokens`, `temperature`, `top_p`, `stop`,
 * `seed`, the penalties, `parallel_tool_calls`), and every other field (`reasoning`, `text`,
 * `response_format`, `store`, `include`, `metadata`, `previous_response_id`, …) verbatim under
 * `providerFields.openai`.
 *
 * Written back, an OpenAI request is the body it was read from, but for the normal form: keys in
 * any order, a single `stop` string as a one-string list, and a Chat function tool's empty
 * `parameters` left out. A request from another provider keeps its function tools; each tool,
 * setting or provider field the API has no place for is named in a `tool_dropped` or
 * `setting_dropped` note.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../../message/failure.ts'
import type { AdapterNote, AdapterResult } from '../types.ts'
import type { ModelRequest, RequestSettings, ToolChoice, ToolDefinition } from '../request.ts'
import { fromOpenAIResponses } from './responses-from.ts'
import { isInstructions, isStringInput, type OpenAIResponsesOptions, type OpenAIResponsesRequest, toOpenAIResponses } from './responses.ts'
import { fromOpenAIChat } from './chat-from.ts'
import { type OpenAIChatOptions, type OpenAIChatRequest, toOpenAIChat } from './chat.ts'
import { without } from './_vocab.ts'
import { isObject } from '../../internal/object.ts'
import { type CacheHints, withOpenAICacheKey } from '../cache-hints.ts'
import { ownFields, writeRequest } from '../envelope.ts'

type Obj = Readonly<Record<string, unknown>>
type Api = 'responses' | 'chat'

// --- the settings both APIs share ---

const SETTINGS: Readonly<Record<Api, ReadonlyArray<readonly [keyof RequestSettings, string]>>> = {
  responses: [
    ['maxOutputTokens', 'max_output_tokens'],
    ['temperature', 'temperature'],
    ['topP', 'top_p'],
    ['parallelToolCalls', 'parallel_tool_calls'],
  ],
  chat: [
    ['maxOutputTokens', 'max_completion_tokens'],
    ['temperature', 'temperature'],
    ['topP', 'top_p'],
    ['stop', 'stop'],
    ['seed', 'seed'],
    ['presencePenalty', 'presence_penalty'],
    ['frequencyPenalty', 'frequency_penalty'],
    ['parallelToolCalls', 'parallel_tool_calls'],
  ],
}

const settingValue = (key: keyof RequestSettings, u: unknown): unknown =>
  key === 'parallelToolCalls'
    ? (typeof u === 'boolean' ? u : undefined)
    : key === 'stop'
    ? (typeof u === 'string' ? [u] : Array.isArray(u) && u.every((x) => typeof x === 'string') ? u : undefined)
    : typeof u === 'number'
    ? u
    : undefined

// --- tools ---

const str = (o: unknown, k: string): string | undefined => (isObject(o) && typeof o[k] === 'string' ? o[k] : undefined)

/** A function definition: name, description, schema and strictness, its other fields as OpenAI's. */
const functionTool = (f: Obj, residue: Obj): ToolDefinition | undefined => {
  const name = str(f, 'name')
  if (name === undefined) return undefined
  const schema = f['parameters']
  const description = str(f, 'description')
  const extra = { ...residue, ...(schema === null ? { parameters: null } : {}), ...(f['strict'] === null ? { strict: null } : {}) }
  return {
    type: 'function',
    name,
    ...(description === undefined ? {} : { description }),
    inputSchema: isObject(schema) ? schema : {},
    ...(typeof f['strict'] === 'boolean' ? { strict: f['strict'] } : {}),
    providerFields: { openai: extra },
  }
}

const readTool = (api: Api, u: unknown): ToolDefinition => {
  const kept: ToolDefinition = { type: 'provider', provider: 'openai', kind: str(u, 'type') ?? 'tool', data: u }
  if (!isObject(u) || u['type'] !== 'function') return kept
  if (api === 'responses') return functionTool(u, without(u, 'name', 'description', 'parameters', 'strict')) ?? kept
  const f = u['function']
  if (!isObject(f)) return kept
  const inner = without(f, 'name', 'description', 'parameters', 'strict')
  return functionTool(f, { ...without(u, 'function'), ...(Object.keys(inner).length === 0 ? {} : { function: inner }) }) ?? kept
}

const writeTool = (api: Api, t: ToolDefinition, notes: AdapterNote[]): ReadonlyArray<unknown> => {
  if (t.type === 'provider') {
    if (t.provider === 'openai') return [t.data]
    notes.push({ kind: 'tool_dropped', name: t.kind, reason: `a tool of ${t.provider} that OpenAI does not run` })
    return []
  }
  const own = t.providerFields?.['openai']
  ownFields('openai', t.providerFields, notes, `tools.${t.name}.`)
  const description = t.description === undefined ? {} : { description: t.description }
  // a tool from another provider states strict: false, the schema not being written for strict mode
  const strict = t.strict !== undefined ? { strict: t.strict } : own === undefined && api === 'responses' ? { strict: false } : {}
  if (api === 'responses') return [{ type: 'function', name: t.name, ...description, parameters: t.inputSchema, ...strict, ...without(own ?? {}, 'function') }]
  const inner = isObject(own?.['function']) ? own['function'] : {}
  const parameters = Object.keys(t.inputSchema).length === 0 ? {} : { parameters: t.inputSchema }
  return [{ type: 'function', ...without(own ?? {}, 'function'), function: { name: t.name, ...description, ...parameters, ...strict, ...inner } }]
}

// --- tool choice ---

const readChoice = (api: Api, u: unknown): ToolChoice | undefined => {
  if (u === 'auto' || u === 'none' || u === 'required') return { type: u }
  if (!isObject(u) || u['type'] !== 'function' || Object.keys(u).length !== 2) return undefined
  const name = api === 'responses'
    ? str(u, 'name')
    : isObject(u['function']) && Object.keys(u['function']).length === 1
    ? str(u['function'], 'name')
    : undefined
  return name === undefined ? undefined : { type: 'tool', name }
}

const writeChoice = (api: Api, c: ToolChoice): unknown =>
  c.type !== 'tool' ? c.type : api === 'responses' ? { type: 'function', name: c.name } : { type: 'function', function: { name: c.name } }

// --- from ---

const readRequest = (api: Api, body: unknown, messages: ModelRequest['messages']): ModelRequest => {
  const b: Obj = isObject(body) ? body : {}
  const settings: Record<string, unknown> = {}
  const used = new Set(['input', 'instructions', 'messages', 'model', 'tools'])
  for (const [key, field] of SETTINGS[api]) {
    const value = settingValue(key, b[field])
    if (value === undefined) continue
    settings[key] = value
    used.add(field)
  }
  // the deprecated max_tokens of Chat Completions: the limit, kept as sent too so that it goes back under its name
  if (api === 'chat' && settings['maxOutputTokens'] === undefined && typeof b['max_tokens'] === 'number') settings['maxOutputTokens'] = b['max_tokens']
  const choice = readChoice(api, b['tool_choice'])
  if (choice !== undefined) used.add('tool_choice')
  const extra = Object.fromEntries(Object.entries(b).filter(([k]) => !used.has(k)))
  const tools = Array.isArray(b['tools']) ? b['tools'].map((t) => readTool(api, t)) : undefined
  return {
    ...(typeof b['model'] === 'string' ? { model: b['model'] } : {}),
    messages,
    ...(tools === undefined ? {} : { tools }),
    ...(choice === undefined ? {} : { toolChoice: choice }),
    ...(Object.keys(settings).length === 0 ? {} : { settings: settings as RequestSettings }),
    ...(Object.keys(extra).length === 0 ? {} : { providerFields: { openai: extra } }),
  }
}

/**
 * Decodes a whole Responses request body into a `ModelRequest`: its `instructions` and `input` as
 * the history, model, tools, tool choice, settings, and every other field verbatim under
 * `providerFields.openai`. Every bad field of the history is reported by path.
 *
 * @example
 * import { fromOpenAIResponsesRequest } from 'chatfold/adapters'
 * fromOpenAIResponsesRequest({
 *   model: 'gpt-5', instructions: 'Be brief.', input: 'Hi', max_output_tokens: 256,
 *   tools: [{ type: 'function', name: 'ls', parameters: { type: 'object', properties: {} }, strict: true }],
 *   reasoning: { effort: 'low' },
 * })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromOpenAIResponsesRequest = (body: unknown): E.Either<DecodeFailure, ModelRequest> =>
  E.map((messages: ModelRequest['messages']) =>
    readRequest('responses', body, isObject(body) && typeof body['input'] === 'string' ? markStringInput(messages) : messages)
  )(fromOpenAIResponses(body))

/** The user message of a string `input`, marked so that `toOpenAIResponsesRequest` writes the string back. */
const markStringInput = (ms: ModelRequest['messages']): ModelRequest['messages'] =>
  ms.map((m) => (m.role === 'user' ? { ...m, metadata: { ...m.metadata, providerFields: { openai: { input: 'string' } } } } : m))

/**
 * Decodes a whole Chat Completions request body into a `ModelRequest`: its `messages` as the
 * history, model, tools, tool choice, settings, and every other field verbatim under
 * `providerFields.openai`. Every bad field of the history is reported by path.
 *
 * @example
 * import { fromOpenAIChatRequest } from 'chatfold/adapters'
 * fromOpenAIChatRequest({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2, response_format: { type: 'json_object' } })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromOpenAIChatRequest = (body: unknown): E.Either<DecodeFailure, ModelRequest> =>
  E.map((messages: ModelRequest['messages']) => readRequest('chat', body, messages))(fromOpenAIChat(body))

// --- to ---

const writeEnvelope = (api: Api, request: ModelRequest, own: Readonly<Record<string, unknown>>, notes: AdapterNote[]): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  if (request.model !== undefined) out['model'] = request.model
  if (request.tools !== undefined) out['tools'] = request.tools.flatMap((t) => writeTool(api, t, notes))
  if (request.toolChoice !== undefined) {
    const named = request.toolChoice.type === 'tool' ? request.toolChoice.name : undefined
    if (named !== undefined && request.tools !== undefined && !request.tools.some((t) => t.type === 'function' && t.name === named)) {
      notes.push({ kind: 'setting_dropped', setting: 'toolChoice', reason: `the tool "${named}" is not a function tool of the request` })
    } else out['tool_choice'] = writeChoice(api, request.toolChoice)
  }
  const known = new Map(SETTINGS[api])
  for (const [key, value] of Object.entries(request.settings ?? {})) {
    if (value === undefined) continue
    const field = known.get(key as keyof RequestSettings)
    if (field === undefined)
      notes.push({ kind: 'setting_dropped', setting: key, reason: `the ${api === 'chat' ? 'Chat Completions' : 'Responses'} API has no such setting` })
    else out[field] = value
  }
  // a Chat request read with the deprecated max_tokens writes it back under that name
  if (api === 'chat' && own['max_tokens'] !== undefined && own['max_tokens'] === out['max_completion_tokens']) delete out['max_completion_tokens']
  return { ...out, ...own }
}

/**
 * Converts a `ModelRequest` to a whole Responses request body: `toOpenAIResponses` for the
 * history, then the model, tools (function definitions with their JSON Schema; OpenAI's own
 * tools verbatim; another provider's left out with a `tool_dropped` note), tool choice, settings
 * (those the API has no field for, `topK`, `stop`, `seed` and the penalties, are noted as
 * `setting_dropped`), and OpenAI's own fields verbatim (another provider's are noted). With `cache`
 * hints holding a `key` (the conversation's id), the body gets it as `prompt_cache_key`, unless it
 * has one.
 *
 * @example
 * import * as E from 'fp-ts/Either'
 * import { textMessage } from 'chatfold/message'
 * import { toOpenAIResponsesRequest } from 'chatfold/adapters'
 * const r = toOpenAIResponsesRequest()({ model: 'gpt-5', messages: [textMessage('user', 'Hi')], settings: { maxOutputTokens: 256, topK: 40 } })
 * if (E.isRight(r)) r.right.request // { model: 'gpt-5', max_output_tokens: 256, input: [{ type: 'message', role: 'user', content: 'Hi' }] }
 *
 * @since 0.1.0
 * @category adapters
 */
export const toOpenAIResponsesRequest =
  (options: OpenAIResponsesOptions & { readonly cache?: CacheHints } = {}) => (request: ModelRequest): AdapterResult<OpenAIResponsesBody> =>
    writeRequest(
      'openai',
      request,
      toOpenAIResponses(options)(request.messages),
      ({ history, own, notes }) =>
        withOpenAICacheKey(options.cache, { ...writeEnvelope('responses', request, own, notes), ...history, ...stringInput(request, history) }),
    )

/**
 * A request read with a string `input` goes back with it while its history is still that one user
 * message (after the instructions).
 */
const stringInput = (request: ModelRequest, history: OpenAIResponsesRequest): { readonly input?: string } => {
  const users = request.messages.filter((m) => !isInstructions(m))
  const only = users[0]
  const item = history.input[0]
  if (users.length !== 1 || only === undefined || !isStringInput(only) || history.input.length !== 1 || item === undefined) return {}
  return item.type === 'message' && item.role === 'user' && typeof item.content === 'string' ? { input: item.content } : {}
}

/**
 * A whole Responses request body as `toOpenAIResponsesRequest` writes it: the history's
 * `instructions` and `input` (a string when the request was read with one), and every other field.
 *
 * @example
 * import type { OpenAIResponsesBody } from 'chatfold/adapters'
 * const body: OpenAIResponsesBody = { model: 'gpt-5', input: 'Hi', max_output_tokens: 256 }
 *
 * @since 0.1.0
 * @category adapters
 */
export type OpenAIResponsesBody = Obj & { readonly input: string | OpenAIResponsesRequest['input']; readonly instructions?: string }

/**
 * A whole Chat Completions request body as `toOpenAIChatRequest` writes it.
 *
 * @example
 * import type { OpenAIChatBody } from 'chatfold/adapters'
 * const body: OpenAIChatBody = { model: 'gpt-4.1', messages: [{ role: 'user', content: 'Hi' }], temperature: 0 }
 *
 * @since 0.1.0
 * @category adapters
 */
export type OpenAIChatBody = Obj & OpenAIChatRequest

/**
 * Converts a `ModelRequest` to a whole Chat Completions request body: `toOpenAIChat` for the
 * history, then the model, tools, tool choice, settings (`topK` is noted as `setting_dropped`) and
 * OpenAI's own fields, and the `cache` hints' key as `prompt_cache_key`, as `toOpenAIResponsesRequest` does.
 *
 * @example
 * import * as E from 'fp-ts/Either'
 * import { textMessage } from 'chatfold/message'
 * import { toOpenAIChatRequest } from 'chatfold/adapters'
 * const r = toOpenAIChatRequest()({ model: 'gpt-4.1', messages: [textMessage('user', 'Hi')], toolChoice: { type: 'auto' }, tools: [] })
 * if (E.isRight(r)) r.right.request // { model: 'gpt-4.1', tools: [], tool_choice: 'auto', messages: [{ role: 'user', content: 'Hi' }] }
 *
 * @since 0.1.0
 * @category adapters
 */
export const toOpenAIChatRequest =
  (options: OpenAIChatOptions & { readonly cache?: CacheHints } = {}) => (request: ModelRequest): AdapterResult<OpenAIChatBody> =>
    writeRequest(
      'openai',
      request,
      toOpenAIChat(options)(request.messages),
      ({ history, own, notes }) => withOpenAICacheKey(options.cache, { ...writeEnvelope('chat', request, own, notes), ...history }),
    )
