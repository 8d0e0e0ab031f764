/**
 * What a provider counts, and bills: the whole request, not only its messages. A request's tokens
 * are its system messages, its other messages, and its tool definitions as the provider renders
 * them, with images by the provider's own documented rules:
 *
 * | | tool definitions | an image | per request |
 * | --- | --- | --- | --- |
 * | OpenAI | each function's name, description and parameters in the rendering OpenAI's token-counting guide describes (7 tokens a function, 3 a parameter list and 3 a parameter, 12 for the list) | 85 + 170 per 512-pixel tile after fitting in 2048 × 2048 and the short side in 768 (85 at low detail) | 3 to prime the reply |
 * | Anthropic | the tool-use system prompt (346 tokens, 313 when a tool must be used) plus each tool's JSON | width × height / 750 after fitting the long side in 1,568 pixels | |
 * | Gemini | each declaration's JSON | 258 up to 384 × 384 pixels, else 258 per 768-pixel tile | |
 *
 * An image whose size cannot be read from its bytes (a URL, an unknown format) counts as
 * `IMAGE_TOKENS`. Text is chatfold's estimate (`smartHeuristic` unless `estimate` says otherwise),
 * times a calibration for the provider's tokenizer: o200k is OpenAI's own, Claude's tokenizers
 * count 20–30% more tokens than o200k on the same text and Gemini's about 10% more
 * (`DEFAULT_CALIBRATION`; `calibrationFromUsage` learns the ratio from the usage a history records).
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../message/failure.ts'
import { isInternal } from '../message/accessors.ts'
import { type Message, type Messages } from '../message/message.ts'
import type { Part } from '../message/part-model.ts'
import { type Estimator, IMAGE_TOKENS, tokenBreakdown } from '../tokens/message-tokens.ts'
import { smartHeuristic } from '../tokens/heuristic.ts'
import { imageSize } from '../internal/image-size.ts'
import { isObject } from '../internal/object.ts'
import type { ModelRequest, ToolChoice, ToolDefinition } from '../adapters/request.ts'
import { type Vendor, vendorOf, type WireApi } from '../adapters/vocabulary.ts'
import { WIRE_API_TABLE } from '../adapters/wire-apis.ts'

// --- model ---

/**
 * A request's tokens as its provider counts them: its system messages, its other messages, its tool
 * definitions, and the sum. The system messages and tools are the request's fixed part: what every
 * request of a conversation carries, which a budget for the messages must leave room for.
 *
 * @example
 * import type { RequestTokens } from 'chatfold/counting'
 * const t: RequestTokens = { total: 31_200, system: 1_200, messages: 24_000, tools: 6_000 }
 *
 * @since 0.1.0
 * @category tokens
 */
export type RequestTokens = { readonly total: number; readonly system: number; readonly messages: number; readonly tools: number }

/**
 * Options of {@link countModelRequest}: the estimator of text (`smartHeuristic` by default), the
 * ratio of the provider's tokenizer to it (`DEFAULT_CALIBRATION[provider]` by default), and the
 * detail OpenAI is asked to see images at (`high` by default, as `auto` is for large images).
 *
 * @since 0.1.0
 * @category tokens
 */
export type CountRequestOptions = {
  readonly estimate?: Estimator
  readonly calibration?: number
  readonly imageDetail?: 'low' | 'high'
}

/**
 * The ratio of each provider's tokenizer to o200k on the same text, by default: 1 for OpenAI (o200k
 * is its own), 1.25 for Anthropic (public comparisons of Claude and GPT-4o on the same prompts found
 * Claude's count 20–30% higher), 1.1 for Gemini (about 10% higher in the same comparisons). Learn
 * the ratio of your own model from the usage it reports with `calibrationFromUsage`.
 *
 * @example
 * import { DEFAULT_CALIBRATION } from 'chatfold/counting'
 * DEFAULT_CALIBRATION.anthropic // 1.25
 *
 * @since 0.1.0
 * @category tokens
 */
export const DEFAULT_CALIBRATION: Readonly<Record<Vendor, number>> = { openai: 1, anthropic: 1.25, google: 1.1 }

// --- images ---

const fit = (w: number, h: number, maxW: number, maxH: number): { readonly w: number; readonly h: number } => {
  const s = Math.min(1, maxW / w, maxH / h)
  return { w: Math.floor(w * s), h: Math.floor(h * s) }
}

/** An image's tokens for a provider, from its size; `IMAGE_TOKENS` when the size is unknown. */
const imageTokens = (provider: Vendor, p: Part, detail: 'low' | 'high'): number => {
  if (p.type !== 'image') return IMAGE_TOKENS
  const size = p.data === undefined ? undefined : imageSize(p.data)
  if (provider === 'openai' && detail === 'low') return 85
  if (size === undefined) return IMAGE_TOKENS
  const { width, height } = size
  switch (provider) {
    case 'anthropic': {
      const { w, h } = fit(width, height, 1_568, 1_568)
      return Math.ceil((w * h) / 750)
    }
    case 'openai': {
      const a = fit(width, height, 2_048, 2_048)
      const short = Math.min(a.w, a.h)
      const b = short > 768 ? { w: Math.floor((a.w * 768) / short), h: Math.floor((a.h * 768) / short) } : a
      return 85 + 170 * Math.ceil(b.w / 512) * Math.ceil(b.h / 512)
    }
    case 'google':
      return width <= 384 && height <= 384 ? 258 : 258 * Math.ceil(width / 768) * Math.ceil(height / 768)
  }
}

// --- tools ---

/** The rendering of one function that OpenAI's token-counting guide describes. */
const openAIFunction = (estimate: Estimator, name: string, description: string | undefined, schema: Readonly<Record<string, unknown>>): number => {
  let n = 7 + estimate(`${name}:${(description ?? '').replace(/\.$/, '')}`)
  const props = isObject(schema['properties']) ? schema['properties'] : {}
  const keys = Object.keys(props)
  if (keys.length > 0) n += 3
  for (const key of keys) {
    const prop = isObject(props[key]) ? props[key] : {}
    n += 3
    const enumValues = Array.isArray(prop['enum']) ? prop['enum'] : undefined
    if (enumValues !== undefined) {
      n -= 3
      for (const v of enumValues) n += 3 + estimate(String(v))
    }
    const type = typeof prop['type'] === 'string' ? prop['type'] : JSON.stringify(prop['type'] ?? '')
    const desc = typeof prop['description'] === 'string' ? prop['description'].replace(/\.$/, '') : ''
    n += estimate(`${key}:${type}:${desc}`)
    // nested schemas are rendered too; the guide stops at the first level, so estimate them whole
    const { type: _t, description: _d, enum: _e, ...rest } = prop
    if (Object.keys(rest).length > 0) n += estimate(JSON.stringify(rest))
  }
  return n
}

/**
 * The tokens of a request's tool definitions as the provider renders them (see the module), the
 * calibration not applied.
 */
const toolTokens = (provider: Vendor, estimate: Estimator, tools: ReadonlyArray<ToolDefinition>, choice: ToolChoice | undefined): number => {
  if (tools.length === 0) return 0
  let n = 0
  for (const t of tools) {
    if (t.type === 'provider') n += estimate(JSON.stringify(t.data) ?? '')
    else if (provider === 'openai') n += openAIFunction(estimate, t.name, t.description, t.inputSchema)
    else n += estimate(JSON.stringify({ name: t.name, ...(t.description === undefined ? {} : { description: t.description }), schema: t.inputSchema }))
  }
  if (provider === 'openai') n += 12
  if (provider === 'anthropic') n += choice?.type === 'required' || choice?.type === 'tool' ? 313 : 346
  return n
}

// --- counting ---

const messageTokens = (provider: Vendor, estimate: Estimator, ratio: number, detail: 'low' | 'high', m: Message): number => {
  let images = 0
  let fixed = 0
  // an image a tool returned counts by the same rule as one the user sent
  for (const p of m.parts) {
    for (const x of p.type === 'tool_result' && typeof p.content !== 'string' ? p.content : [p]) {
      if (x.type === 'image') {
        images++
        fixed += imageTokens(provider, x, detail)
      }
    }
  }
  return Math.round((tokenBreakdown(estimate, m).total - images * IMAGE_TOKENS) * ratio) + fixed
}

/**
 * A request's tokens as `provider` counts them: system messages, other messages and tool
 * definitions (see the module for each provider's rules). What `shouldCompact`, `planCompaction`
 * and `compact` need to leave room for is the `tools` of the result (plus its `system`, when the
 * system messages are not part of the history they are given).
 *
 * @example
 * import { countModelRequest } from 'chatfold/counting'
 * import { textMessage } from 'chatfold/message'
 * const tokens = countModelRequest('anthropic')({
 *   messages: [textMessage('system', 'You are a coding agent.'), textMessage('user', 'List the files.')],
 *   tools: [{ type: 'function', name: 'ls', description: 'Lists a folder', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }],
 * })
 * tokens.tools // the tool-use system prompt (346) and the definition
 *
 * @since 0.1.0
 * @category tokens
 */
export const countModelRequest = (provider: Vendor, opts: CountRequestOptions = {}) => (request: ModelRequest): RequestTokens => {
  const estimate = opts.estimate ?? smartHeuristic
  const ratio = opts.calibration ?? DEFAULT_CALIBRATION[provider]
  const detail = opts.imageDetail ?? 'high'
  let system = 0
  let messages = provider === 'openai' ? 3 : 0
  for (const m of request.messages) {
    const n = messageTokens(provider, estimate, ratio, detail, m)
    if (m.role === 'system') system += n
    else messages += n
  }
  const tools = Math.round(toolTokens(provider, estimate, request.tools ?? [], request.toolChoice) * ratio)
  return { total: system + messages + tools, system, messages, tools }
}

/**
 * A provider's request body's tokens as the provider counts them (see `countModelRequest`): the
 * body decoded whole, its system, messages and tool definitions counted by that provider's rules.
 * A body that is not one of that provider's is a `Left` naming each bad field; so is any `'ai-sdk'`
 * body, whose vendor is its model's (count its history with `countModelRequest`).
 *
 * @example
 * import { countRequest } from 'chatfold/counting'
 * countRequest('openai-chat')({
 *   model: 'gpt-5',
 *   messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
 *   tools: [{ type: 'function', function: { name: 'weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
 * }) // right({ total: 47, system: 0, messages: 14, tools: 33 })
 *
 * @since 0.1.0
 * @category tokens
 */
export const countRequest = (provider: WireApi, opts: CountRequestOptions = {}) => (body: unknown): E.Either<DecodeFailure, RequestTokens> => {
  const request = WIRE_API_TABLE[provider].request
  const vendor = vendorOf(provider)
  if (request === undefined || vendor === undefined)
    return E.left([{
      path: '',
      expected: `a wire API whose vendor counts its requests (${provider} is not one: count its history with countModelRequest and its model's vendor)`,
      actual: provider,
    }])
  return E.map(countModelRequest(vendor, opts))(request.from(body))
}

/**
 * The ratio of a model's reported prompt tokens to chatfold's estimate of the same messages,
 * learnt from the usage a history records (`metadata.usage` on its assistant messages, as the
 * session readers keep it: the prompt is `input` plus `cacheRead` and `cacheWrite`). Between two
 * reports of the same model, what the prompt grew by is set against the estimate of the messages
 * added: the system prompt and tool definitions, which a history does not hold, are in both reports
 * and cancel out. The answer is the median of those ratios (over steps of at least `minStep`
 * estimated tokens, 256 by default); with no such step, the ratio of a report to the estimate of
 * everything before it, `fixed` (tools and system outside the history) added. Replies of a
 * sub-conversation (`display` messages) report another context and are passed over. `undefined`
 * when the history records no usable report.
 *
 * @example
 * import { calibrationFromUsage } from 'chatfold/counting'
 * import { makeMessage, text, textMessage } from 'chatfold/message'
 * const history = [
 *   textMessage('user', 'Summarise the design document in three lines.'),
 *   makeMessage({ role: 'assistant', parts: [text('…')], metadata: { usage: { input: 30, output: 40 } } }),
 * ]
 * calibrationFromUsage({})(history) // reported 30 against chatfold's estimate of the first message
 *
 * @since 0.1.0
 * @category tokens
 */
export const calibrationFromUsage =
  (opts: { readonly estimate?: Estimator; readonly fixed?: number; readonly minStep?: number }) => (ms: Messages): number | undefined => {
    const estimate = opts.estimate ?? smartHeuristic
    const minStep = Math.max(1, opts.minStep ?? 256)
    const steps: number[] = []
    const wholes: number[] = []
    let before = opts.fixed ?? 0
    const last = new Map<string, { readonly reported: number; readonly before: number }>()
    for (const m of ms) {
      const reported = m.role === 'assistant' && m.kind !== 'display' ? promptOf(m) : undefined
      if (reported !== undefined && reported > 0 && before > 0) {
        wholes.push(reported / before)
        const model = m.model ?? ''
        const previous = last.get(model)
        if (previous !== undefined && before - previous.before >= minStep && reported > previous.reported)
          steps.push((reported - previous.reported) / (before - previous.before))
        last.set(model, { reported, before })
      }
      if (!isInternal(m)) before += tokenBreakdown(estimate, m).total
    }
    const ratios = steps.length > 0 ? steps : wholes
    if (ratios.length === 0) return undefined
    const sorted = ratios.sort((a, b) => a - b)
    return sorted[Math.floor(sorted.length / 2)]
  }

/** The prompt tokens a message's recorded usage reports: input plus cache reads and writes. */
const promptOf = (m: Message): number | undefined => {
  const usage = m.metadata?.['usage']
  if (!isObject(usage) || typeof usage['input'] !== 'number') return undefined
  const n = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) ? x : 0)
  return n(usage['input']) + n(usage['cacheRead']) + n(usage['cacheWrite'])
}
