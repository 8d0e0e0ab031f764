import { generateText, jsonSchema, type ModelMessage, streamText, tool, wrapLanguageModel } from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it, vi } from 'vitest'
import { heuristic } from '../../src/tokens/heuristic.ts'
import { contextMiddleware, type ContextRecord, type LanguageModelCallOptions, type LanguageModelPrompt } from '../../src/ai-sdk/mod.ts'

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } }
const SUMMARY = '## Goal\n- fix\n## Constraints\n- none\n## Progress\n- read\n## Decisions\n- none\n## Next steps\n- test\n## Files\n- cart.ts'

const recording = (calls: LanguageModelCallOptions[]) =>
  new MockLanguageModelV3({
    provider: 'openai.responses',
    doGenerate: async (params) => {
      calls.push(params)
      return { content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] }
    },
    doStream: async (params) => {
      calls.push(params)
      return {
        stream: convertArrayToReadableStream([{ type: 'text-start' as const, id: 't' }, { type: 'text-delta' as const, id: 't', delta: 'ok' }, {
          type: 'text-end' as const,
          id: 't',
        }, { type: 'finish' as const, finishReason: { unified: 'stop' as const, raw: undefined }, usage }]),
      }
    },
  })

/** A conversation of `turns` tool rounds of `size` characters of output each, then a request. */
const history = (turns: number, size: number, request = 'Now fix it.'): LanguageModelPrompt => [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: [{ type: 'text', text: 'The cart total is off by a cent.' }] },
  ...Array.from({ length: turns }, (_, i): LanguageModelPrompt => [
    {
      role: 'assistant',
      content: [{ type: 'text', text: `Reading part ${i}.` }, { type: 'tool-call', toolCallId: `c${i}`, toolName: 'read', input: { part: i } }],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${i}`, toolName: 'read', output: { type: 'text', value: `part ${i} `.repeat(size / 7) } }] },
  ]).flat(),
  { role: 'user', content: [{ type: 'text', text: request }] },
]

/** The call arguments that give `prompt`: its system prompt apart, its messages as `ModelMessage`s (the same shapes here). */
const argsOf = (prompt: LanguageModelPrompt): { system: string; messages: ModelMessage[] } => {
  const [system, ...rest] = prompt
  if (system?.role !== 'system') throw new Error('a history starts with its system prompt')
  return { system: system.content, messages: rest as ModelMessage[] }
}

describe('contextMiddleware', () => {
  it('lets a request that fits go through as it is, with no record', async () => {
    const calls: LanguageModelCallOptions[] = []
    const model = wrapLanguageModel({
      model: recording(calls),
      middleware: contextMiddleware({ contextWindow: 100_000, reserveTokens: 1_000, estimate: heuristic }),
    })
    const prompt = history(3, 200)
    const r = await generateText({ model, ...argsOf(prompt) })
    expect(calls[0]?.prompt).toEqual(prompt)
    expect(r.providerMetadata?.['chatfold']).toBeUndefined()
  })

  it('counts the tool definitions: the same prompt is compacted once large tools leave it no room', async () => {
    const calls: LanguageModelCallOptions[] = []
    const options = {
      contextWindow: 4_000,
      reserveTokens: 500,
      estimate: heuristic,
      keepRecentTokens: 300,
      summarize: async () => SUMMARY,
      pruning: 'off',
    } as const
    const model = wrapLanguageModel({ model: recording(calls), middleware: contextMiddleware(options) })
    const prompt = history(6, 1_400)
    await generateText({ model, ...argsOf(prompt) })
    expect(calls[0]?.prompt).toEqual(prompt)
    const big = tool({
      description: 'x '.repeat(4_000),
      inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
      execute: async () => '',
    })
    const r = await generateText({ model, ...argsOf(prompt), tools: { big } })
    const record = r.providerMetadata?.['chatfold'] as ContextRecord | undefined
    expect(record?.tokensBefore).toBeGreaterThan(3_500)
    expect(record?.tokensAfter).toBeLessThanOrEqual(3_500)
    expect(record?.compaction).toMatchObject({ from: 1, summary: SUMMARY })
    expect(calls[1]?.prompt.length).toBeLessThan(prompt.length)
    expect(calls[1]?.prompt.at(-1)).toEqual(prompt.at(-1))
  })

  it('compacts with the summariser given, recording what it summarised, in a stream too', async () => {
    const calls: LanguageModelCallOptions[] = []
    const summarize = vi.fn(async (_transcript: string) => SUMMARY)
    const model = wrapLanguageModel({
      model: recording(calls),
      middleware: contextMiddleware({ contextWindow: 3_000, reserveTokens: 500, estimate: heuristic, keepRecentTokens: 300, summarize, pruning: 'off' }),
    })
    const prompt = history(8, 1_400)
    const result = streamText({ model, ...argsOf(prompt) })
    expect(await result.text).toBe('ok')
    const record = (await result.providerMetadata)?.['chatfold'] as ContextRecord | undefined
    expect(summarize).toHaveBeenCalledTimes(1)
    expect(summarize.mock.calls[0]?.[0]).toContain('part 0')
    expect(record).toMatchObject({ limit: 2_500, prunedResults: 0, compaction: { from: 1, summary: SUMMARY } })
    const sent = calls[0]?.prompt ?? []
    expect(sent[0]).toEqual(prompt[0])
    expect(sent[1]).toEqual({ role: 'user', content: [{ type: 'text', text: SUMMARY }] })
    expect(sent.at(-1)).toEqual(prompt.at(-1))
    expect(record?.summarisedUpTo).toBe(record?.compaction?.to)
    // what was summarised is gone from the prompt; what follows is there as it came
    expect(JSON.stringify(sent)).not.toContain('part 0 ')
    expect(sent.slice(2, -1)).toEqual(prompt.slice(record?.compaction?.to, -1))
  })

  it('keeps conversations apart by their first request', async () => {
    const calls: LanguageModelCallOptions[] = []
    const summarize = vi.fn(async (_transcript: string) => SUMMARY)
    const model = wrapLanguageModel({
      model: recording(calls),
      middleware: contextMiddleware({ contextWindow: 3_000, reserveTokens: 500, estimate: heuristic, keepRecentTokens: 300, summarize, pruning: 'off' }),
    })
    const a = history(8, 1_400)
    const b: LanguageModelPrompt = a.map((m) => (m.role === 'user' && m === a[1] ? { role: 'user', content: [{ type: 'text', text: 'Another bug.' }] } : m))
    await generateText({ model, ...argsOf(a) })
    await generateText({ model, ...argsOf(b) })
    await generateText({ model, ...argsOf(a) })
    // a's boundary is reused on its second call; b needed its own
    expect(summarize).toHaveBeenCalledTimes(2)
    expect(calls[2]?.prompt).toEqual(calls[0]?.prompt)
  })

  it('names in the record what the prompt sent could not carry', async () => {
    const calls: LanguageModelCallOptions[] = []
    const model = wrapLanguageModel({
      model: recording(calls),
      middleware: contextMiddleware({ contextWindow: 3_000, reserveTokens: 500, estimate: heuristic }),
    })
    const prompt = history(8, 1_400)
    const thinking: LanguageModelPrompt[number] = { role: 'assistant', content: [{ type: 'reasoning', text: 'Where does the cent go?' }] }
    const r = await generateText({ model, ...argsOf([...prompt.slice(0, -1), thinking, ...prompt.slice(-1)]) })
    const record = r.providerMetadata?.['chatfold'] as ContextRecord | undefined
    expect(record).toMatchObject({ compaction: null, prunedResults: expect.any(Number) })
    expect(record?.prunedResults).toBeGreaterThan(0)
    expect(record?.notes).toEqual([expect.stringContaining('messages dropped (reasoning alone')])
    expect(calls[0]?.prompt.some((m) => m.role === 'assistant' && m.content.every((p) => p.type === 'reasoning'))).toBe(false)
  })

  it('rejects, naming the limit, when not even the last request fits', async () => {
    const model = wrapLanguageModel({
      model: recording([]),
      middleware: contextMiddleware({ contextWindow: 1_000, reserveTokens: 100, estimate: heuristic, summarize: async () => SUMMARY }),
    })
    await expect(generateText({ model, ...argsOf(history(2, 100, 'fix '.repeat(2_000))) })).rejects.toThrow(
      /Cannot fit the request in the context window: \d+ tokens .* over the limit of 900/,
    )
  })
})
