/**
 * The loop `npm run bench cost` bills: a seeded agent of `STEPS` steps over the AI SDK, whose mock
 * model asks for a tool every step, each result 2,000–20,000 o200k tokens of code, logs or JSON,
 * and records every prompt it receives as a sequence of o200k tokens (each message serialised the
 * same way every time, so equal messages give equal tokens). Its usage reports the prompt's true
 * token count, and as cache reads the prefix it shares with the previous prompt.
 */
import {
  generateText,
  jsonSchema,
  type JSONSchema7,
  type LanguageModelMiddleware,
  type ModelMessage,
  type PrepareStepFunction,
  stepCountIs,
  tool,
  wrapLanguageModel,
} from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { decode, encode } from 'gpt-tokenizer/encoding/o200k_base'
import { type ContentKind, prng, sampleText } from '../../sample/session.ts'

export const STEPS = 200
export const WINDOW = 200_000
export const SYSTEM = 'You are a coding agent. Read what the tools return, then decide the next step. Keep going until the task is done.'
export const REQUEST = 'Find why the nightly build fails: read the logs, the code and the reports until you know, then fix it.'
export const TOOL_NAME = 'read'
const DESCRIPTION = 'Reads a file, a log or a report of the build by step number'
const SCHEMA: JSONSchema7 = { type: 'object', properties: { step: { type: 'number' } }, required: ['step'] }

/** One tool result: its text and its o200k tokens. */
export type Output = { readonly text: string; readonly tokens: number }

/** The seeded tool results, one a step: 2,000–20,000 tokens each, by o200k. */
export const OUTPUTS: ReadonlyArray<Output> = (() => {
  const r = prng(38)
  const kinds: ReadonlyArray<ContentKind> = ['code', 'logs', 'json']
  return Array.from({ length: STEPS }, (_, i) => {
    const want = r.int(2_000, 20_000)
    const ids = encode(`step ${i}\n${sampleText(r, r.pick(kinds), want * 5)}`).slice(0, want)
    const text = decode(ids)
    return { text, tokens: encode(text).length }
  })
})()

// --- a prompt as tokens ---

type Part = {
  readonly type: string
  readonly text?: string
  readonly toolCallId?: string
  readonly toolName?: string
  readonly input?: unknown
  readonly output?: unknown
}
type AnyMessage = { readonly role: string; readonly content: string | ReadonlyArray<Part> }

/** A tool result's output as text (the shapes of the AI SDK's `ToolResultOutput`). */
export const outputText = (o: unknown): string => {
  if (typeof o !== 'object' || o === null) return String(o)
  const v = (o as { type?: string; value?: unknown }).value
  const type = (o as { type?: string }).type
  if (type === 'text' || type === 'error-text') return String(v)
  if (type === 'content' && Array.isArray(v)) return v.map((p: { text?: string }) => p.text ?? '').join('\n')
  return JSON.stringify(v)
}

const partText = (p: Part): string =>
  p.type === 'text' || p.type === 'reasoning'
    ? (p.text ?? '')
    : p.type === 'tool-call'
    ? `<call ${p.toolCallId} ${p.toolName}>${typeof p.input === 'string' ? p.input : JSON.stringify(p.input)}`
    : p.type === 'tool-result'
    ? `<result ${p.toolCallId} ${p.toolName}>\n${outputText(p.output)}`
    : JSON.stringify(p)

/** A message serialised: the key equal messages share. */
export const messageKey = (m: AnyMessage): string => `<|${m.role}|>\n${typeof m.content === 'string' ? m.content : m.content.map(partText).join('\n')}`

const tokenCache = new Map<string, ReadonlyArray<number>>()
/** The o200k tokens of a serialised message (each distinct one encoded once). */
export const tokensOf = (key: string): ReadonlyArray<number> => {
  let t = tokenCache.get(key)
  if (t === undefined) tokenCache.set(key, t = encode(key))
  return t
}

const TOOLS_KEY = `<|tools|>\n${JSON.stringify([{ name: TOOL_NAME, description: DESCRIPTION, inputSchema: SCHEMA }])}`

/** A prompt as the bill reads it: its messages' keys and tokens (the tool definitions first), and the intact tool output it holds. */
export type Prompt = {
  readonly keys: ReadonlyArray<string>
  readonly tokens: ReadonlyArray<ReadonlyArray<number>>
  readonly total: number
  readonly intact: number
}

const original = new Map<string, Output>(OUTPUTS.map((o, i) => [`call_${i}`, o]))

/** A prompt (or a step's messages, system prompt included) as tokens. */
export const promptOf = (ms: ReadonlyArray<AnyMessage>): Prompt => {
  const keys = [TOOLS_KEY, ...ms.map(messageKey)]
  const tokens = keys.map(tokensOf)
  let intact = 0
  for (const m of ms)
    if (typeof m.content !== 'string') {
      for (const p of m.content) {
        const o = p.type === 'tool-result' ? original.get(p.toolCallId ?? '') : undefined
        if (o !== undefined && outputText(p.output) === o.text) intact += o.tokens
      }
    }
  return { keys, tokens, total: tokens.reduce((a, t) => a + t.length, 0), intact }
}

/** The tokens `b` shares from its start with `a` (the longest common prefix of their token sequences). */
export const sharedPrefix = (a: Prompt | undefined, b: Prompt): number => {
  if (a === undefined) return 0
  let n = 0
  for (let i = 0; i < Math.min(a.keys.length, b.keys.length); i++) {
    if (a.keys[i] === b.keys[i]) {
      n += (b.tokens[i] as ReadonlyArray<number>).length
      continue
    }
    const x = a.tokens[i] as ReadonlyArray<number>
    const y = b.tokens[i] as ReadonlyArray<number>
    let k = 0
    while (k < x.length && k < y.length && x[k] === y[k]) k++
    return n + k
  }
  return n
}

// --- the loop ---

/** What a run captured: every prompt sent, and each summariser call (the step it came in). */
export type Capture = { readonly prompts: Prompt[]; readonly summaries: number[] }

const mock = (capture: Capture) => {
  const answer = (prompt: ReadonlyArray<AnyMessage>) => {
    const p = promptOf(prompt)
    const cached = sharedPrefix(capture.prompts[capture.prompts.length - 1], p)
    capture.prompts.push(p)
    const step = capture.prompts.length - 1
    const usage = {
      inputTokens: { total: p.total, noCache: p.total - cached, cacheRead: cached, cacheWrite: undefined },
      outputTokens: { total: 20, text: 20, reasoning: undefined },
    }
    const content = step >= STEPS - 1
      ? [{ type: 'text' as const, text: 'Fixed: the build passes.' }]
      : [{ type: 'tool-call' as const, toolCallId: `call_${step}`, toolName: TOOL_NAME, input: JSON.stringify({ step }) }]
    return { content, finishReason: { unified: step >= STEPS - 1 ? ('stop' as const) : ('tool-calls' as const), raw: undefined }, usage, warnings: [] }
  }
  return new MockLanguageModelV3({ provider: 'openai.responses', modelId: 'gpt-5', doGenerate: async (params) => answer(params.prompt) })
}

const tools = {
  [TOOL_NAME]: tool({
    description: DESCRIPTION,
    inputSchema: jsonSchema<{ step: number }>(SCHEMA),
    execute: async ({ step }) => (OUTPUTS[step] as Output).text,
  }),
}

/** How a policy hooks in: a middleware around the model, or a `prepareStep`. */
export type Hook = { readonly middleware?: LanguageModelMiddleware; readonly prepareStep?: PrepareStepFunction<typeof tools> }

/** Runs the loop with a policy's hook; `capture.summaries` is for the policy to fill. */
export const runLoop = async (hook: Hook, capture: Capture): Promise<Capture> => {
  const base = mock(capture)
  const model = hook.middleware === undefined ? base : wrapLanguageModel({ model: base, middleware: hook.middleware })
  const messages: ModelMessage[] = [{ role: 'user', content: REQUEST }]
  await generateText({
    model,
    system: SYSTEM,
    messages,
    tools,
    stopWhen: stepCountIs(STEPS),
    ...(hook.prepareStep === undefined ? {} : { prepareStep: hook.prepareStep }),
  })
  return capture
}
