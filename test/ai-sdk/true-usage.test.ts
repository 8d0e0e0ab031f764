/**
 * An agent loop on a small window whose model reports its true usage (counted with `o200k_base`,
 * as OpenAI counts), with tool output of the classes an estimate can read under: emoji, rare CJK,
 * base64, JSON, code. With default options no prompt may pass the window, with the middleware and
 * with `prepareStep`; with an estimator that reads far under, the usage the model reports keeps it
 * within the window all the same.
 */
import * as E from 'fp-ts/Either'
import { generateText, jsonSchema, type ModelMessage, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { describe, expect, it } from 'vitest'
import { countModelRequest } from '../../src/counting/count.ts'
import type { Estimator } from '../../src/tokens/message-tokens.ts'
import { contextMiddleware, contextPrepareStep, fromLanguageModelPrompt, type LanguageModelCallOptions, toolDefinitionsOf } from '../../src/ai-sdk/mod.ts'
import type { ToolDefinition } from '../../src/adapters/request.ts'
import { type ContentClass, contentSample } from '../../sample/content-classes.ts'

const WINDOW = 12_000
const RESERVE = 1_000
const LIMIT = WINDOW - RESERVE
const STEPS = 30
const SYSTEM = 'You are a coding agent. Read the output of each tool before you answer.'
const REQUEST = 'Read the captured output of every run and tell me which one failed.'
const CLASSES: ReadonlyArray<ContentClass> = ['emoji', 'cjk-rare', 'base64', 'json', 'code']

/** The exact count of o200k_base, as the model's own tokenizer. */
const o200k: Estimator = (s) => countTokens(s, { disallowedSpecial: new Set<string>() })

const READ_RUN: ToolDefinition = {
  type: 'function',
  name: 'read_run',
  description: 'Reads the captured output of a run',
  inputSchema: { type: 'object', properties: { step: { type: 'number' } }, required: ['step'] },
}
const toolsOf = (cls: ContentClass) => ({
  read_run: tool({
    description: 'Reads the captured output of a run',
    inputSchema: jsonSchema<{ step: number }>({ type: 'object', properties: { step: { type: 'number' } }, required: ['step'] }),
    execute: async ({ step }) => contentSample(cls, step, 3_000),
  }),
})

/** The true input tokens of a call: the whole request counted with o200k_base. */
const trueTokens = (params: LanguageModelCallOptions): number => {
  const ms = fromLanguageModelPrompt(params.prompt)
  if (E.isLeft(ms)) throw new Error('the model received a prompt it cannot read')
  return countModelRequest('openai', { estimate: o200k })({ messages: ms.right, tools: toolDefinitionsOf(params.tools) }).total
}

/** A model that calls the tool each step, records the true size of each prompt, and reports it as its usage. */
const trueModel = (seen: number[]) => {
  const answer = (params: LanguageModelCallOptions) => {
    const tokens = trueTokens(params)
    seen.push(tokens)
    const step = seen.length
    const usage = {
      inputTokens: { total: tokens, noCache: tokens, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 10, text: 10, reasoning: undefined },
    }
    const content = step >= STEPS
      ? [{ type: 'text' as const, text: 'Run 7 failed.' }]
      : [{ type: 'tool-call' as const, toolCallId: `call_${step}`, toolName: 'read_run', input: JSON.stringify({ step }) }]
    return { content, finishReason: { unified: step >= STEPS ? ('stop' as const) : ('tool-calls' as const), raw: undefined }, usage }
  }
  return new MockLanguageModelV3({
    provider: 'openai.chat',
    modelId: 'gpt-4o',
    doGenerate: async (params) => ({ ...answer(params), warnings: [] }),
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
          finishReason: a.finishReason,
          usage: a.usage,
        }]),
      }
    },
  })
}

const messages: ModelMessage[] = [{ role: 'user', content: REQUEST }]

/** Reads about a tenth of what o200k_base counts on any text: an estimator the provider's usage must correct. */
const underReading: Estimator = (s) => Math.ceil(s.length / 40)

describe('prompts within the window, by the model’s own count', () => {
  it('the loop goes far past the window without management', async () => {
    const seen: number[] = []
    await generateText({ model: trueModel(seen), system: SYSTEM, messages, tools: toolsOf('json'), stopWhen: stepCountIs(STEPS) })
    expect(Math.max(...seen)).toBeGreaterThan(2 * WINDOW)
  })

  for (const cls of CLASSES) {
    it(`contextMiddleware with default options, tool output of ${cls}`, async () => {
      const seen: number[] = []
      const model = wrapLanguageModel({ model: trueModel(seen), middleware: contextMiddleware({ contextWindow: WINDOW, reserveTokens: RESERVE }) })
      await generateText({ model, system: SYSTEM, messages, tools: toolsOf(cls), stopWhen: stepCountIs(STEPS) })
      expect(seen.length).toBe(STEPS)
      expect(seen.filter((n) => n > LIMIT)).toEqual([])
    })

    it(`contextPrepareStep with default options, tool output of ${cls}`, async () => {
      const seen: number[] = []
      await generateText({
        model: trueModel(seen),
        system: SYSTEM,
        messages,
        tools: toolsOf(cls),
        stopWhen: stepCountIs(STEPS),
        prepareStep: contextPrepareStep({ contextWindow: WINDOW, reserveTokens: RESERVE, system: SYSTEM, tools: [READ_RUN] }),
      })
      expect(seen.length).toBe(STEPS)
      expect(seen.filter((n) => n > LIMIT)).toEqual([])
    })
  }

  it('the middleware anchors on the reported usage when its estimate reads far under (generateText and streamText)', async () => {
    for (const stream of [false, true]) {
      const seen: number[] = []
      const model = wrapLanguageModel({
        model: trueModel(seen),
        middleware: contextMiddleware({ contextWindow: WINDOW, reserveTokens: RESERVE, estimate: underReading }),
      })
      const args = { model, system: SYSTEM, messages, tools: toolsOf('code'), stopWhen: stepCountIs(STEPS) }
      if (stream) await streamText(args).consumeStream()
      else await generateText(args)
      expect(seen.length).toBe(STEPS)
      // the first prompt to pass the window is the one before any usage was reported for it: none passes after
      expect({ stream, over: seen.filter((n) => n > LIMIT) }).toEqual({ stream, over: [] })
    }
  })

  it('prepareStep anchors on the usage of the previous step when its estimate reads far under', async () => {
    const seen: number[] = []
    await generateText({
      model: trueModel(seen),
      system: SYSTEM,
      messages,
      tools: toolsOf('code'),
      stopWhen: stepCountIs(STEPS),
      prepareStep: contextPrepareStep({ contextWindow: WINDOW, reserveTokens: RESERVE, system: SYSTEM, tools: [READ_RUN], estimate: underReading }),
    })
    expect(seen.length).toBe(STEPS)
    expect(seen.filter((n) => n > LIMIT)).toEqual([])
  })
})
