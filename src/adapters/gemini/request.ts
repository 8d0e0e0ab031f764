/**
 * A whole Gemini `generateContent` request body to and from a `ModelRequest` (the REST shape; the
 * `@google/genai` shape `{ model, contents, config }` is read as the REST body it stands for and
 * written back in its own shape):
 *
 * - `systemInstruction` and `contents` are the history (`fromGemini`, `toGemini`);
 * - `tools`: each `functionDeclarations` entry is a function tool (`parameters`, Gemini's OpenAPI
 *   subset with upper-case types, read as JSON Schema with lower-case types; `parametersJsonSchema`
 *   as it is); every other tool (`googleSearch`, `codeExecution`, `urlContext`, `googleMaps`,
 *   `fileSearch`, `computerUse`, `retrieval`, …) a Google provider tool, kept verbatim;
 * - `toolConfig.functionCallingConfig`: `AUTO` → `auto`, `NONE` → `none`, `ANY` → `required`, or
 *   `tool` with one allowed function name. A config that says more (`VALIDATED`, several allowed
 *   names, `retrievalConfig`, …) is also kept verbatim and written back as it was; other
 *   providers get the nearest tool choice;
 * - `generationConfig`: `maxOutputTokens`, `temperature`, `topP`, `topK`, `stopSequences`, `seed`,
 *   `presencePenalty` and `frequencyPenalty` are the settings; the rest of it (`thinkingConfig`,
 *   `responseMimeType`, `responseSchema`, …) and every other body field (`safetySettings`,
 *   `cachedContent`, `labels`, …) are kept verbatim in `providerFields.google`.
 *
 * `toGeminiRequest(fromGeminiRequest(body))` gives the body back, normalised as `toGemini`
 * normalises contents, with the function declarations of consecutive `tools` entries in one entry
 * and one entry per other tool, and `parameters` types in upper case unless every one was given in
 * lower case (which the API takes too: such a schema goes back as it came, marked
 * `providerFields.google.typeCase: 'lower'` on the tool).
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../../message/failure.ts'
import type { JsonSchema, ModelRequest, RequestSettings, ToolChoice, ToolDefinition } from '../request.ts'
import type { AdapterNote, AdapterOptions, AdapterResult } from '../types.ts'
import { fromGemini } from './contents-from.ts'
import { type GeminiPart, toGemini } from './contents.ts'
import { optional, reader } from '../decode.ts'
import { isObject } from '../../internal/object.ts'
import { ownFields, writeRequest } from '../envelope.ts'

// --- wire ---

/**
 * A Gemini `generateContent` request body as `toGeminiRequest` writes it: the contents, the model
 * (when the request names one), tools, tool config, generation config and every other field kept.
 *
 * @example
 * import type { GeminiRequestBody } from 'chatfold/adapters'
 * const body: GeminiRequestBody = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], generationConfig: { temperature: 0.2 } }
 *
 * @since 0.1.0
 * @category adapters
 */
export type GeminiRequestBody = {
  readonly model?: string
  readonly systemInstruction?: { readonly parts: Array<GeminiPart> }
  readonly contents: Array<{ readonly role: 'user' | 'model'; readonly parts: Array<GeminiPart> }>
  readonly tools?: Array<Record<string, unknown>>
  readonly toolConfig?: Record<string, unknown>
  readonly generationConfig?: Record<string, unknown>
  readonly [key: string]: unknown
}

type Obj = Readonly<Record<string, unknown>>

/** Settings and the `generationConfig` field each is. */
const SETTINGS: ReadonlyArray<readonly [keyof RequestSettings, string]> = [
  ['maxOutputTokens', 'maxOutputTokens'],
  ['temperature', 'temperature'],
  ['topP', 'topP'],
  ['topK', 'topK'],
  ['stop', 'stopSequences'],
  ['seed', 'seed'],
  ['presencePenalty', 'presencePenalty'],
  ['frequencyPenalty', 'frequencyPenalty'],
]

const ENVELOPE: ReadonlySet<string> = new Set(['model', 'contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig'])

// --- schemas ---

/** Keys of a schema whose values are schemas, or maps or lists of them. */
const ONE = ['items', 'not', 'additionalProperties']
const MAP = ['properties', '$defs', 'definitions']
const MANY = ['anyOf', 'oneOf', 'allOf', 'prefixItems']

/** A schema with `fix` applied to the `type` of it and every schema inside it. */
const mapTypes = (s: unknown, fix: (type: unknown) => unknown): unknown => {
  if (!isObject(s)) return s
  const out: Record<string, unknown> = { ...s }
  if ('type' in s) out['type'] = fix(s['type'])
  for (const k of ONE) if (isObject(s[k])) out[k] = mapTypes(s[k], fix)
  for (const k of MAP) {
    const m = s[k]
    if (isObject(m)) out[k] = Object.fromEntries(Object.entries(m).map(([name, v]) => [name, mapTypes(v, fix)]))
  }
  for (const k of MANY) {
    const l = s[k]
    if (Array.isArray(l)) out[k] = l.map((v) => mapTypes(v, fix))
  }
  return out
}

/** The keys Gemini's `Schema` (the `parameters` subset) takes. */
const GEMINI_SCHEMA_KEYS: ReadonlySet<string> = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
])

const TYPES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'])

/** Whether a JSON Schema can be written as Gemini's `parameters`: only keys and single types that subset knows. */
const fitsParameters = (s: unknown): boolean => {
  if (!isObject(s)) return false
  for (const [k, v] of Object.entries(s)) {
    if (!GEMINI_SCHEMA_KEYS.has(k)) return false
    if (k === 'type' && (typeof v !== 'string' || !TYPES.has(v))) return false
    if (k === 'items' && !fitsParameters(v)) return false
    if (k === 'properties' && (!isObject(v) || !Object.values(v).every(fitsParameters))) return false
    if (k === 'anyOf' && (!Array.isArray(v) || !v.every(fitsParameters))) return false
  }
  return true
}

const lower = (type: unknown): unknown => (typeof type === 'string' ? type.toLowerCase() : type)
const upper = (type: unknown): unknown => (typeof type === 'string' ? type.toUpperCase() : type)

// --- from ---

const BodyC = t.intersection([
  t.type({ contents: t.array(t.unknown) }, 'a generateContent request with contents'),
  t.partial({
    model: optional(t.string),
    tools: optional(t.array(t.UnknownRecord)),
    toolConfig: optional(t.UnknownRecord),
    generationConfig: optional(t.UnknownRecord),
  }),
])

const DeclarationC = t.intersection([
  t.type({ name: t.string }),
  t.partial({ description: optional(t.string), parameters: t.unknown, parametersJsonSchema: t.unknown }),
])

const functionTools = (decls: unknown, at: string, fail: (path: string, expected: string, actual: unknown) => void): ToolDefinition[] => {
  if (!Array.isArray(decls)) {
    fail(at, 'an array of function declarations', decls)
    return []
  }
  const out: ToolDefinition[] = []
  decls.forEach((d, i) => {
    if (!DeclarationC.is(d)) return fail(`${at}[${i}]`, 'a function declaration with a name', d)
    const { name, description, parameters, parametersJsonSchema, ...rest } = d
    const schemaIn = parametersJsonSchema != null ? 'parametersJsonSchema' : parameters != null ? 'parameters' : 'none'
    const schema = schemaIn === 'parametersJsonSchema'
      ? parametersJsonSchema
      : schemaIn === 'parameters'
      ? mapTypes(parameters, lower)
      : { type: 'object', properties: {} }
    if (!isObject(schema)) return fail(`${at}[${i}].${schemaIn}`, 'a schema object', schema)
    // `parameters` typed in lower case (which the API takes too) goes back so, not upper-cased
    const typeCase = schemaIn === 'parameters' && JSON.stringify(schema) === JSON.stringify(parameters) &&
        JSON.stringify(mapTypes(parameters, upper)) !== JSON.stringify(parameters)
      ? { typeCase: 'lower' }
      : {}
    const google = { ...rest, ...(schemaIn === 'parameters' ? typeCase : { schemaIn }) }
    out.push({
      type: 'function',
      name,
      ...(typeof description === 'string' ? { description } : {}),
      inputSchema: schema,
      ...(Object.keys(google).length === 0 ? {} : { providerFields: { google } }),
    })
  })
  return out
}

/** The tool choice a function-calling config says exactly, or `undefined` when it says more. */
const exactChoice = (config: Obj): ToolChoice | undefined => {
  const f = config['functionCallingConfig']
  if (Object.keys(config).length !== 1 || !isObject(f)) return undefined
  const names = f['allowedFunctionNames']
  const keys = Object.keys(f)
  if (f['mode'] === 'AUTO' && keys.length === 1) return { type: 'auto' }
  if (f['mode'] === 'NONE' && keys.length === 1) return { type: 'none' }
  if (f['mode'] === 'ANY' && keys.length === 1) return { type: 'required' }
  if (f['mode'] === 'ANY' && keys.length === 2 && Array.isArray(names) && names.length === 1 && typeof names[0] === 'string')
    return { type: 'tool', name: names[0] }
  return undefined
}

/** The nearest tool choice of any function-calling config. */
const nearestChoice = (config: Obj): ToolChoice | undefined => {
  const f = config['functionCallingConfig']
  const mode = isObject(f) ? f['mode'] : undefined
  return mode === 'NONE' ? { type: 'none' } : mode === 'ANY' ? { type: 'required' } : mode === 'AUTO' || mode === 'VALIDATED' ? { type: 'auto' } : undefined
}

/**
 * Decodes a Gemini `generateContent` request body (REST shape) into a `ModelRequest`: the history,
 * the model, tools, the tool choice, the settings, and every other field verbatim in
 * `providerFields.google`. Every bad field is reported by path.
 *
 * @example
 * import { fromGeminiRequest } from 'chatfold/adapters'
 * fromGeminiRequest({
 *   contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }],
 *   tools: [{ functionDeclarations: [{ name: 'weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } } } }] }, { googleSearch: {} }],
 *   toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
 *   generationConfig: { temperature: 0.2, thinkingConfig: { thinkingBudget: 1024 } },
 * })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromGeminiRequest = (
  u: unknown,
): E.Either<DecodeFailure, ModelRequest> => (isObject(u) && isObject(u['config']) ? fromSdkParameters(u, u['config']) : fromRestBody(u))

/** Where the SDK's `config` holds what a REST body has at its top level. */
const IN_CONFIG = ['systemInstruction', 'tools', 'toolConfig'] as const

/**
 * The `@google/genai` shape (`{ model, contents, config }`, every setting flat in `config`): read
 * as the REST body it stands for, marked so that `toGeminiRequest` writes the same shape back.
 */
const fromSdkParameters = (u: Readonly<Record<string, unknown>>, config: Readonly<Record<string, unknown>>): E.Either<DecodeFailure, ModelRequest> => {
  const { config: _, ...top } = u
  const generation: Record<string, unknown> = {}
  const moved: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(config)) {
    if ((IN_CONFIG as ReadonlyArray<string>).includes(k)) moved[k] = v
    else generation[k] = v
  }
  const decoded = fromRestBody({ ...top, ...moved, generationConfig: generation })
  if (E.isLeft(decoded)) {
    return E.left(
      decoded.left.map((
        i,
      ) => (/^(systemInstruction|tools|toolConfig)\b/.test(i.path)
        ? { ...i, path: `config.${i.path}` }
        : { ...i, path: i.path.replace(/^generationConfig\b/, 'config') })
      ),
    )
  }
  const request = decoded.right
  const google = request.providerFields?.['google'] ?? {}
  return E.right({ ...request, providerFields: { ...request.providerFields, google: { ...google, sdkShape: true } } })
}

const fromRestBody = (u: unknown): E.Either<DecodeFailure, ModelRequest> => {
  const r = reader()
  const body = r.read(BodyC, u, '')
  if (body === undefined || !isObject(u)) return r.done<ModelRequest>({ messages: [] })
  const messages = fromGemini({ contents: body.contents, ...(u['systemInstruction'] == null ? {} : { systemInstruction: u['systemInstruction'] }) })
  const tools: ToolDefinition[] = []
  body.tools?.forEach((tool, i) => {
    for (const [kind, value] of Object.entries(tool)) {
      if (kind === 'functionDeclarations') tools.push(...functionTools(value, `tools[${i}].functionDeclarations`, r.fail))
      else tools.push({ type: 'provider', provider: 'google', kind, data: { [kind]: value } })
    }
  })
  const google: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(u)) if (!ENVELOPE.has(k)) google[k] = v
  const config = body.toolConfig ?? undefined
  const exact = config == null ? undefined : exactChoice(config)
  if (config != null && exact === undefined) google['toolConfig'] = config
  const toolChoice = exact ?? (config == null ? undefined : nearestChoice(config))
  const settings: Record<string, unknown> = {}
  const generation: Record<string, unknown> = { ...(body.generationConfig ?? {}) }
  for (const [name, field] of SETTINGS) {
    if (generation[field] === undefined) continue
    settings[name] = generation[field]
    delete generation[field]
  }
  if (body.generationConfig != null && Object.keys(generation).length > 0) google['generationConfig'] = generation
  const request: ModelRequest = {
    ...(typeof body.model === 'string' ? { model: body.model } : {}),
    messages: [],
    ...(body.tools == null ? {} : { tools }),
    ...(toolChoice === undefined ? {} : { toolChoice }),
    ...(Object.keys(settings).length === 0 ? {} : { settings: settings as RequestSettings }),
    ...(Object.keys(google).length === 0 ? {} : { providerFields: { google } }),
  }
  const done = r.done(request)
  if (E.isLeft(messages)) return E.left([...(E.isLeft(done) ? done.left : []), ...messages.left])
  return E.isLeft(done) ? done : E.right({ ...request, messages: messages.right })
}

// --- to ---

/** A REST body in the `@google/genai` shape: everything but the model and contents in `config`. */
const toSdkParameters = (body: GeminiRequestBody): GeminiRequestBody => {
  const { model, contents, generationConfig, ...rest } = body
  const config = { ...generationConfig, ...rest }
  return { ...(model === undefined ? {} : { model }), contents, ...(Object.keys(config).length === 0 ? {} : { config }) }
}

const declaration = (tool: Extract<ToolDefinition, { readonly type: 'function' }>, notes: AdapterNote[]): Record<string, unknown> => {
  const own = ownFields('google', tool.providerFields, notes, `tools.${tool.name}.`)
  if (tool.strict !== undefined)
    notes.push({ kind: 'setting_dropped', setting: `tools.${tool.name}.strict`, reason: 'Gemini function declarations have no strict mode' })
  const { schemaIn, typeCase, ...rest } = own
  const key = schemaIn === 'none' || schemaIn === 'parametersJsonSchema' ? schemaIn : fitsParameters(tool.inputSchema) ? 'parameters' : 'parametersJsonSchema'
  const schema: JsonSchema | undefined = key === 'none'
    ? undefined
    : key === 'parameters'
    ? (typeCase === 'lower' ? tool.inputSchema : (mapTypes(tool.inputSchema, upper) as JsonSchema))
    : tool.inputSchema
  return {
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    ...(schema === undefined ? {} : { [key]: schema }),
    ...rest,
  }
}

const toolsOf = (tools: ReadonlyArray<ToolDefinition>, notes: AdapterNote[]): Array<Record<string, unknown>> => {
  const out: Array<Record<string, unknown>> = []
  let functions: Array<Record<string, unknown>> | undefined
  for (const tool of tools) {
    if (tool.type === 'function') {
      if (functions === undefined) {
        functions = []
        out.push({ functionDeclarations: functions })
      }
      functions.push(declaration(tool, notes))
    } else if (tool.provider === 'google' && isObject(tool.data)) {
      functions = undefined
      out.push({ ...tool.data })
    } else notes.push({ kind: 'tool_dropped', name: tool.kind, reason: `a tool of ${tool.provider} that Gemini does not have` })
  }
  return out
}

const toolConfigOf = (choice: ToolChoice): Record<string, unknown> => ({
  functionCallingConfig: choice.type === 'auto'
    ? { mode: 'AUTO' }
    : choice.type === 'none'
    ? { mode: 'NONE' }
    : choice.type === 'required'
    ? { mode: 'ANY' }
    : { mode: 'ANY', allowedFunctionNames: [choice.name] },
})

/**
 * Writes a `ModelRequest` as a Gemini `generateContent` request body (REST shape): the history
 * (`toGemini`), the model, function tools as `functionDeclarations` (`parameters` where Gemini's
 * schema subset can hold the JSON Schema, else `parametersJsonSchema`), Google's own tools, the
 * tool choice as `toolConfig`, the settings in `generationConfig`, and the body fields kept in
 * `providerFields.google`. Another provider's tools are left out (`tool_dropped`); settings Gemini
 * has no field for (`parallelToolCalls`) and other providers' `providerFields` are noted
 * (`setting_dropped`).
 *
 * @example
 * import * as E from 'fp-ts/Either'
 * import { textMessage } from 'chatfold/message'
 * import { toGeminiRequest } from 'chatfold/adapters'
 * const r = toGeminiRequest()({ model: 'gemini-2.5-pro', messages: [textMessage('user', 'Hi')], settings: { temperature: 0.2 } })
 * if (E.isRight(r)) r.right.request.generationConfig // { temperature: 0.2 }
 *
 * @since 0.1.0
 * @category adapters
 */
export const toGeminiRequest = (options: AdapterOptions = {}) => (request: ModelRequest): AdapterResult<GeminiRequestBody> =>
  writeRequest('google', request, toGemini(options)(request.messages), ({ history, own, notes }) => {
    const { generationConfig: keptGeneration, toolConfig: keptToolConfig, ...rest } = own
    const generation: Record<string, unknown> = isObject(keptGeneration) ? { ...keptGeneration } : {}
    for (const [name, field] of SETTINGS) {
      const value = request.settings?.[name]
      if (value !== undefined) generation[field] = value
    }
    if (request.settings?.parallelToolCalls !== undefined)
      notes.push({ kind: 'setting_dropped', setting: 'parallelToolCalls', reason: 'Gemini has no such setting' })
    const toolConfig = isObject(keptToolConfig) ? keptToolConfig : request.toolChoice === undefined ? undefined : toolConfigOf(request.toolChoice)
    const { sdkShape, ...others } = rest
    const body: GeminiRequestBody = {
      ...others,
      ...(request.model === undefined ? {} : { model: request.model }),
      ...history,
      ...(request.tools === undefined ? {} : { tools: toolsOf(request.tools, notes) }),
      ...(toolConfig === undefined ? {} : { toolConfig: { ...toolConfig } }),
      ...(Object.keys(generation).length === 0 ? {} : { generationConfig: generation }),
    }
    return sdkShape === true ? toSdkParameters(body) : body
  })
