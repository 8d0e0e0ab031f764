/**
 * The middleware's record and `contextPrepareStep`'s report what each call cost (its usage, cache
 * reads and writes apart, priced by the table; a model the table lacks named, never $0) and, for a
 * call that pruned or compacted, the receipt of what left the prompt, read here against the prompt
 * sent; a summariser's calls are priced as the compaction's own lines.
 */
import { generateText, jsonSchema, type ModelMessage, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import * as O from 'fp-ts/Option'
import { heuristic } from '../../src/tokens/heuristic.ts'
import {
  type CallCostLine,
  ContextError,
  contextMiddleware,
  contextPrepareStep,
  type ContextRecord,
  contextRecordOf,
  type LanguageModelCallOptions,
  type LanguageModelPrompt,
} from '../../src/ai-sdk/mod.ts'
import { aiSdkSummarizer } from '../../src/summarize/ai-sdk.ts'
import {
  generateText as generateTextV7,
  type LanguageModelMiddleware as MiddlewareV7,
  type ModelMessage as ModelMessageV7,
  wrapLanguageModel as wrapV7,
} from 'ai-v7'
import { MockLanguageModelV4 } from 'ai-v7/test'

const SUMMARY = '## Goal\n- fix\n## Constraints\n- none\n## Progress\n- read\n## Decisions\n- none\n## Next steps\n- test\n## Files\n- cart.ts'

/** 1,000 tokens not cached, 10,000 read from the cache, 2,000 written to it, 500 out. */
const USAGE = {
  inputTokens: { total: 13_000, noCache: 1_000, cacheRead: 10_000, cacheWrite: 2_000 },
  outputTokens: { total: 500, text: 500, reasoning: undefined },
}
/** USAGE at Claude Sonnet 4.5's rates per million: $3 in, $0.30 cache read, $3.75 cache write (5 minutes), $15 out. */
const SONNET_USD = (1_000 * 3 + 10_000 * 0.3 + 2_000 * 3.75 + 500 * 15) / 1_000_000

const model = (modelId: string, calls: LanguageModelCallOptions[] = [], text = 'ok') =>
  new MockLanguageModelV3({
    provider: 'anthropic.messages',
    modelId,
    doGenerate: async (params) => {
      calls.push(params)
      return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage: USAGE, warnings: [] }
    },
    doStream: async (params) => {
      calls.push(params)
      return {
        stream: convertArrayToReadableStream([
          { type: 'response-metadata' as const, modelId: 'claude-haiku-4-5' },
          { type: 'text-start' as const, id: 't' },
          { type: 'text-delta' as const, id: 't', delta: text },
          { type: 'text-end' as const, id: 't' },
          { type: 'finish' as const, finishReason: { unified: 'stop' as const, raw: undefined }, usage: USAGE },
        ]),
      }
    },
  })

/** A conversation of `turns` tool rounds (a `read` of a file, then `bash` of a command) of `size` characters of output each, then a request. */
const history = (turns: number, size: number): LanguageModelPrompt => [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: [{ type: 'text', text: 'The cart total is off by a cent.' }] },
  ...Array.from({ length: turns }, (_, i): LanguageModelPrompt => [
    {
      role: 'assistant',
      content: [{ type: 'text', text: `Reading part ${i}.` }, { type: 'tool-call', toolCallId: `c${i}`, toolName: 'read', input: { path: `src/part${i}.ts` } }],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${i}`, toolName: 'read', output: { type: 'text', value: `part ${i} `.repeat(size / 7) } }] },
  ]).flat(),
  { role: 'user', content: [{ type: 'text', text: 'Now fix it.' }] },
]

const argsOf = (prompt: LanguageModelPrompt): { system: string; messages: ModelMessage[] } => {
  const [system, ...rest] = prompt
  if (system?.role !== 'system') throw new Error('a history starts with its system prompt')
  return { system: system.content, messages: rest as ModelMessage[] }
}

/** The tool call ids of a stretch of the prompt, read from the wire messages themselves. */
const callIdsIn = (ms: LanguageModelPrompt): string[] =>
  ms.flatMap((m) => (m.role === 'assistant' ? m.content.flatMap((p) => (p.type === 'tool-call' ? [p.toolCallId] : [])) : []))

/** The call ids of a tool message's results. */
const callIdsOf = (
  m: LanguageModelPrompt[number],
): string[] => (m.role === 'tool' ? m.content.flatMap((p) => (p.type === 'tool-result' ? [p.toolCallId] : [])) : [])

const recordOf = (r: { readonly providerMetadata?: Readonly<Record<string, unknown>> | undefined }): ContextRecord => {
  const found = contextRecordOf(r)
  if (O.isNone(found)) throw new Error('the call has no record')
  return found.value
}

describe("the middleware's record: cost and receipt", () => {
  it('prices a pruned call from its usage, cache reads and writes apart, and lists each tool result it cleared', async () => {
    const calls: LanguageModelCallOptions[] = []
    const heard: Array<{ readonly record: ContextRecord | undefined; readonly cost: CallCostLine }> = []
    const wrapped = wrapLanguageModel({
      model: model('claude-sonnet-4-5', calls),
      middleware: contextMiddleware({ contextWindow: 3_000, reserveTokens: 500, estimate: heuristic, onCall: (c) => heard.push(c) }),
    })
    const prompt = history(8, 1_400)
    const record = recordOf(await generateText({ model: wrapped, ...argsOf(prompt) }))
    expect(record.compaction).toBeNull()
    expect(record.cost).toEqual({ model: 'claude-sonnet-4-5', usd: expect.closeTo(SONNET_USD, 12), charge: expect.objectContaining({ longContext: false }) })
    // each tool result the prompt sent holds cleared is on the receipt, by call id, tool and tokens
    const sent = calls[0]?.prompt ?? []
    const cleared = prompt.flatMap((m, i) => (m.role === 'tool' && JSON.stringify(m.content) !== JSON.stringify(sent[i]?.content) ? callIdsOf(m) : []))
    expect(cleared.length).toBeGreaterThan(0)
    expect(record.receipt?.cleared.map((c) => c.toolCallId)).toEqual(cleared)
    // each by the index of its message in the prompt
    for (const c of record.receipt?.cleared ?? []) expect(prompt[c.message]).toMatchObject({ role: 'tool', content: [{ toolCallId: c.toolCallId }] })
    expect(record.prunedResults).toBe(cleared.length)
    for (const c of record.receipt?.cleared ?? []) {
      expect(c).toMatchObject({ tool: 'read', part: 'result' })
      expect(c.tokensBefore).toBeGreaterThan(c.tokensAfter)
    }
    expect(record.receipt?.summarised).toEqual([])
    // onCall hears the same record and cost
    expect(heard).toEqual([{ record, cost: record.cost }])
  })

  it('names a model the price table lacks, never pricing it as zero, on a call it changed and one it did not', async () => {
    const heard: Array<{ readonly record: ContextRecord | undefined; readonly cost: CallCostLine }> = []
    const wrapped = wrapLanguageModel({
      model: model('in-house-7b'),
      middleware: contextMiddleware({ contextWindow: 3_000, reserveTokens: 500, estimate: heuristic, onCall: (c) => heard.push(c) }),
    })
    const changed = recordOf(await generateText({ model: wrapped, ...argsOf(history(8, 1_400)) }))
    expect(changed.cost).toEqual({ model: 'in-house-7b', usd: null, unpriced: { kind: 'unpriced', model: 'in-house-7b' } })
    const untouched = await generateText({ model: wrapped, ...argsOf(history(1, 100)) })
    expect(contextRecordOf(untouched)).toEqual(O.none)
    expect(heard.map((h) => h.cost.usd)).toEqual([null, null])
    expect(heard[1]).toEqual({ record: undefined, cost: { model: 'in-house-7b', usd: null, unpriced: { kind: 'unpriced', model: 'in-house-7b' } } })
  })

  it("itemises a compaction: the messages summarised and their tool calls, and the summariser's calls priced as the compaction's", async () => {
    const calls: LanguageModelCallOptions[] = []
    const summariser = model('claude-haiku-4-5', [], SUMMARY)
    const wrapped = wrapLanguageModel({
      model: model('claude-sonnet-4-5', calls),
      middleware: contextMiddleware({
        contextWindow: 3_000,
        reserveTokens: 500,
        estimate: heuristic,
        keepRecentTokens: 300,
        pruning: 'off',
        summarize: aiSdkSummarizer({ model: summariser }),
      }),
    })
    const prompt = history(8, 1_400)
    const result = streamText({ model: wrapped, ...argsOf(prompt) })
    expect(await result.text).toBe('ok')
    const record = recordOf({ providerMetadata: await result.providerMetadata })
    const c = record.compaction
    if (c === null) throw new Error('the call did not compact')
    // the call's own cost, under the model the stream named
    expect(record.cost).toMatchObject({ model: 'claude-haiku-4-5', usd: expect.closeTo((1_000 * 1 + 10_000 * 0.1 + 2_000 * 1.25 + 500 * 5) / 1e6, 12) })
    // the summariser's call, a line of its own under the compaction
    expect(c.calls).toEqual([{
      model: 'claude-haiku-4-5',
      usd: expect.closeTo((1_000 * 1 + 10_000 * 0.1 + 2_000 * 1.25 + 500 * 5) / 1e6, 12),
      charge: expect.anything(),
    }])
    // the receipt: each message summarised by its index in the messages sent (after the system prompt given apart), and every tool call of the part summarised, read from the prompt
    expect(record.receipt?.summarised).toEqual(Array.from({ length: c.to - c.from }, (_, i) => c.from + i))
    expect(c.messages).toBe(c.to - c.from)
    expect(record.receipt?.toolCalls.map((t) => t.id)).toEqual(callIdsIn(prompt.slice(c.from, c.to)))
    expect(record.receipt?.toolCalls.every((t) => t.name === 'read')).toBe(true)
    // none of those calls is in the prompt sent
    const sentIds = new Set(callIdsIn(calls[0]?.prompt ?? []))
    for (const t of record.receipt?.toolCalls ?? []) expect(sentIds.has(t.id)).toBe(false)
  })
})

describe('a compaction that does not fit', () => {
  it("rejects with the cost of the summariser's calls it made", async () => {
    const wrapped = wrapLanguageModel({
      model: model('claude-sonnet-4-5'),
      middleware: contextMiddleware({
        contextWindow: 3_000,
        reserveTokens: 500,
        estimate: heuristic,
        keepRecentTokens: 300,
        pruning: 'off',
        summarize: aiSdkSummarizer({ model: model('claude-haiku-4-5', [], SUMMARY) }),
      }),
    })
    // a last request too large for the window, after a head to summarise
    const prompt = history(8, 1_400)
    const big: LanguageModelPrompt = [...prompt.slice(0, -1), { role: 'user', content: [{ type: 'text', text: 'fix '.repeat(3_000) }] }]
    const e = await generateText({ model: wrapped, ...argsOf(big) }).then(() => undefined, (e: unknown) => e)
    expect(e).toBeInstanceOf(ContextError)
    if (!(e instanceof ContextError)) return
    expect(e.code).toBe('too-large')
    expect(e.calls.length).toBeGreaterThan(0)
    for (const c of e.calls) expect(c).toMatchObject({ model: 'claude-haiku-4-5', usd: expect.any(Number) })
  })
})

describe("the middleware's record under ai 7 (LanguageModelV4)", () => {
  it('prices the call from the usage a V4 model reports', async () => {
    const wrapped = wrapV7({
      model: new MockLanguageModelV4({
        provider: 'anthropic.messages',
        modelId: 'claude-sonnet-4-5',
        doGenerate: async () => ({ content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop', raw: undefined }, usage: USAGE, warnings: [] }),
      }),
      // the middleware takes either specification; the types of the two packages differ (as in middleware-v7.test.ts)
      middleware: contextMiddleware({ contextWindow: 3_000, reserveTokens: 500, estimate: heuristic }) as unknown as MiddlewareV7,
    })
    const { system, messages } = argsOf(history(8, 1_400))
    const record = recordOf(await generateTextV7({ model: wrapped, system, messages: messages as ModelMessageV7[] }))
    expect(record.cost).toMatchObject({ model: 'claude-sonnet-4-5', usd: expect.closeTo(SONNET_USD, 12) })
    expect(record.receipt?.cleared.length).toBe(record.prunedResults)
  })
})

describe("contextPrepareStep's report: cost and receipt", () => {
  it('tells each step its cost once the next step shows its answer, and a step it changed its receipt', async () => {
    const READ = tool({
      inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } } }),
      execute: async ({ path }) => `${path}: ${'x '.repeat(4_000)}`,
    })
    // small counts, no more than the first prompt's estimate: the next step reads its estimate
    // against the input tokens a step reports, and a larger count would compact on the first step,
    // which ai 7 then keeps for the steps after it (its prepareStep's messages carry forward), so
    // that no step of that loop would prune alone
    const usage = { inputTokens: { total: 30, noCache: 10, cacheRead: 15, cacheWrite: 5 }, outputTokens: { total: 20, text: 20, reasoning: undefined } }
    let step = 0
    const looping = new MockLanguageModelV3({
      provider: 'anthropic.messages',
      modelId: 'claude-sonnet-4-5',
      doGenerate: async () => {
        step++
        const content = step < 4
          ? [{ type: 'tool-call' as const, toolCallId: `r${step}`, toolName: 'read', input: JSON.stringify({ path: `src/f${step}.ts` }) }]
          : [{ type: 'text' as const, text: 'Done.' }]
        return { content, finishReason: { unified: step < 4 ? 'tool-calls' as const : 'stop' as const, raw: undefined }, usage, warnings: [] }
      },
    })
    const costs: Array<readonly [CallCostLine, number]> = []
    const records: Array<readonly [ContextRecord, number]> = []
    const result = await generateText({
      model: looping,
      prompt: 'Read the files.',
      tools: { read: READ },
      stopWhen: stepCountIs(6),
      prepareStep: contextPrepareStep({
        contextWindow: 6_000,
        reserveTokens: 500,
        estimate: heuristic,
        pruning: { protectTokens: 200, minimumSavings: 0 },
        onCost: (c, n) => costs.push([c, n]),
        onRecord: (r, n) => records.push([r, n]),
      }),
    })
    expect(result.steps).toHaveLength(4)
    expect(costs.map(([, n]) => n)).toEqual([0, 1, 2])
    for (const [c] of costs) expect(c).toMatchObject({ model: 'claude-sonnet-4-5', usd: expect.closeTo((10 * 3 + 15 * 0.3 + 5 * 3.75 + 20 * 15) / 1e6, 12) })
    expect(records.length).toBeGreaterThan(0)
    expect(records.some(([r]) => r.compaction === null && r.prunedResults > 0)).toBe(true)
    for (const [r] of records) {
      // a compaction clears in place too (a result it cuts in the part it keeps): its own lines
      if (r.compaction === null) expect(r.receipt?.cleared.length).toBe(r.prunedResults)
      expect(r.receipt?.cleared.length).toBeGreaterThan(0)
      for (const c of r.receipt?.cleared ?? []) expect(c).toMatchObject({ tool: 'read', toolCallId: expect.stringMatching(/^r\d$/) })
    }
  })
})
