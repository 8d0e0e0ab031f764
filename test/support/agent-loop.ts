/**
 * The agent loop the AI SDK tests and benchmark run: a long generated coding-agent history (its
 * system prompt apart) and a request, a tool whose output is about 10,000 tokens, and the SDK's mock
 * model, which asks for the tool each step (answers at the last), records what it receives and, as
 * a provider would, refuses a prompt over the window.
 */
import * as E from 'fp-ts/Either'
import { jsonSchema, type ModelMessage, tool } from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test'
import { toModelMessages } from '../../src/adapters/ai-sdk/model-messages.ts'
import { type ToolDefinition } from '../../src/adapters/request.ts'
import { countModelRequest } from '../../src/counting/count.ts'
import { heuristic } from '../../src/tokens/heuristic.ts'
import { fromLanguageModelPrompt, type LanguageModelCallOptions, type LanguageModelPrompt, toolDefinitionsOf } from '../../src/ai-sdk/mod.ts'
import { prng, sampleSession, sampleText } from '../../sample/session.ts'

export const WINDOW = 200_000
export const RESERVE = 16_000
export const LIMIT = WINDOW - RESERVE
export const STEPS = 200
/** The step whose prompt first passes the window without the middleware (the history starts just under it). */
export const OVERFLOW_STEP = 5

export const REQUEST = 'Add a regression test for the rounding bug, then run the whole suite until it passes.'
export const LOGS = (() => {
  const r = prng(11)
  return Array.from({ length: 8 }, () => sampleText(r, 'logs', 32_000))
})()

/** The generated history (about 170,000 tokens as Anthropic counts) after its system prompt, then the request. */
export const initial = (): { readonly system: string; readonly messages: ModelMessage[] } => {
  const written = toModelMessages()(sampleSession({ messages: 226, seed: 5 }))
  if (E.isLeft(written)) throw new Error('the sample history does not convert')
  const [system, ...rest] = written.right.request.messages as ModelMessage[]
  if (system?.role !== 'system') throw new Error('the sample starts with its system prompt')
  return { system: system.content, messages: [...rest, { role: 'user', content: REQUEST }] }
}

const DESCRIPTION = 'Reads the log of a test run'

/** The loop's tool, as chatfold defines tools (what `contextPrepareStep` counts). */
export const READ_LOG: ToolDefinition = {
  type: 'function',
  name: 'read_log',
  description: DESCRIPTION,
  inputSchema: { type: 'object', properties: { step: { type: 'number' } }, required: ['step'] },
}

export const tools = {
  read_log: tool({
    description: DESCRIPTION,
    inputSchema: jsonSchema<{ step: number }>({ type: 'object', properties: { step: { type: 'number' } }, required: ['step'] }),
    execute: async ({ step }) => `run ${step}\n${LOGS[step % LOGS.length] ?? ''}`,
  }),
}

export const count = (params: LanguageModelCallOptions): number => {
  const ms = fromLanguageModelPrompt(params.prompt)
  if (E.isLeft(ms)) throw new Error('the model received a prompt it cannot read')
  const defs: ReadonlyArray<ToolDefinition> = toolDefinitionsOf(params.tools)
  return countModelRequest('anthropic', { estimate: heuristic })({ messages: ms.right, tools: defs }).total
}

export type Seen = { readonly prompt: LanguageModelPrompt; readonly tokens: number }

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } }

/** The mock model: a tool call a step (a text answer at the last), refusing prompts over the window. */
export const mockModel = (seen: Seen[], opts: { readonly steps?: number; readonly counting?: boolean } = {}) => {
  const steps = opts.steps ?? STEPS
  const answer = (params: LanguageModelCallOptions) => {
    const tokens = opts.counting === false ? 0 : count(params)
    seen.push({ prompt: params.prompt, tokens })
    if (tokens > WINDOW - RESERVE) throw new Error(`prompt is too long: ${tokens} tokens > ${WINDOW - RESERVE} maximum (step ${seen.length})`)
    const step = seen.length
    return step >= steps ? { content: [{ type: 'text' as const, text: 'The suite passes.' }], finish: 'stop' as const } : {
      content: [{ type: 'tool-call' as const, toolCallId: `call_${step}`, toolName: 'read_log', input: JSON.stringify({ step }) }],
      finish: 'tool-calls' as const,
    }
  }
  return new MockLanguageModelV3({
    provider: 'anthropic.messages',
    modelId: 'claude-sonnet-4-5',
    doGenerate: async (params) => {
      const a = answer(params)
      return { content: a.content, finishReason: { unified: a.finish, raw: undefined }, usage, warnings: [] }
    },
    doStream: async (params) => {
      const a = answer(params)
      const parts = a.content.map((
        c,
      ) => (c.type === 'text'
        ? [{ type: 'text-start' as const, id: 't' }, { type: 'text-delta' as const, id: 't', delta: c.text }, { type: 'text-end' as const, id: 't' }]
        : [c])
      ).flat()
      return {
        stream: convertArrayToReadableStream([{ type: 'stream-start' as const, warnings: [] }, ...parts, {
          type: 'finish' as const,
          finishReason: { unified: a.finish, raw: undefined },
          usage,
        }]),
      }
    },
  })
}
