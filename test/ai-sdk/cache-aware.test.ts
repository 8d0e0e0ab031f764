import { generateText, jsonSchema, type ModelMessage, stepCountIs, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { heuristic } from '../../src/tokens/heuristic.ts'
import { contextMiddleware, type ContextOptions, contextPrepareStep, type LanguageModelCallOptions } from '../../src/ai-sdk/mod.ts'

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } }
const STEPS = 40
/** Tool output of step `i`: about 1,500 tokens (6,000 characters), different each step. */
const output = (i: number): string => `step ${i}\n${`line ${i} of the log `.repeat(300)}`.slice(0, 6_000)

/** A mock that calls the tool every step and records each prompt it receives, a message a string. */
const recording = (prompts: string[][]) =>
  new MockLanguageModelV3({
    provider: 'openai.responses',
    doGenerate: async (params: LanguageModelCallOptions) => {
      prompts.push(params.prompt.map((m) => JSON.stringify(m)))
      const step = prompts.length - 1
      return {
        content: step >= STEPS - 1
          ? [{ type: 'text' as const, text: 'done' }]
          : [{ type: 'tool-call' as const, toolCallId: `c${step}`, toolName: 'read', input: JSON.stringify({ step }) }],
        finishReason: { unified: step >= STEPS - 1 ? ('stop' as const) : ('tool-calls' as const), raw: undefined },
        usage,
        warnings: [],
      }
    },
  })

const tools = {
  read: tool({
    description: 'Reads a log',
    inputSchema: jsonSchema<{ step: number }>({ type: 'object', properties: { step: { type: 'number' } }, required: ['step'] }),
    execute: async ({ step }) => output(step),
  }),
}
const messages: ModelMessage[] = [{ role: 'user', content: 'Find the bug.' }]

/** The steps whose prompt does not start with the previous prompt (an edit before the cached prefix). */
const breaks = (prompts: ReadonlyArray<ReadonlyArray<string>>): number =>
  prompts.filter((p, i) => {
    const prev = prompts[i - 1]
    return prev !== undefined && !prev.every((m, j) => p[j] === m)
  }).length

/** Whether the installed `ai` carries the messages `prepareStep` returns into later steps (ai 7, whose results have `responseMessages`). */
let carriesForward = false

const run = async (options: ContextOptions, hook: 'middleware' | 'prepareStep'): Promise<string[][]> => {
  const prompts: string[][] = []
  const base = recording(prompts)
  const model = hook === 'middleware' ? wrapLanguageModel({ model: base, middleware: contextMiddleware(options) }) : base
  const result = await generateText({
    model,
    system: 'You are a coding agent.',
    messages,
    tools,
    stopWhen: stepCountIs(STEPS),
    ...(hook === 'prepareStep' ? { prepareStep: contextPrepareStep({ ...options, system: 'You are a coding agent.' }) } : {}),
  })
  carriesForward = 'responseMessages' in result
  return prompts
}

describe('the default pruning of contextMiddleware and contextPrepareStep is cache-aware', () => {
  const options: ContextOptions = { contextWindow: 20_000, reserveTokens: 2_000, estimate: heuristic }

  for (const hook of ['middleware', 'prepareStep'] as const) {
    it(`${hook}: prunes in a few batches, the prompts between them each extending the one before`, async () => {
      const cached = await run(options, hook)
      expect(cached).toHaveLength(STEPS)
      const fresh = await run({ ...options, pruning: { policy: 'fresh', protectTokens: 4_500, minimumSavings: 1_800 } }, hook)
      // the pruner was needed (the loop adds about 60,000 tokens to a 20,000-token window)
      expect(breaks(cached)).toBeGreaterThan(0)
      // a batch lasts several steps: far fewer broken prefixes than the fresh prune's one a step;
      // under ai 7 the messages prepareStep returns carry into later steps, so the fresh prune there
      // re-cuts only what grew since and is no longer the one-a-step baseline: the batches are
      // still several steps apart, and never more than the fresh prune's
      if (hook === 'prepareStep' && carriesForward) {
        expect(breaks(cached)).toBeLessThanOrEqual(breaks(fresh))
        expect(breaks(cached) * 5).toBeLessThan(STEPS)
      } else expect(breaks(cached) * 3).toBeLessThan(breaks(fresh))
      // and never a prompt over the window (by the same estimate)
      for (const p of cached) expect(Math.ceil(p.join('').length / 4)).toBeLessThan(options.contextWindow)
    })
  }
})
