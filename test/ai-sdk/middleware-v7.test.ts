// The middleware under `ai` 7 (installed as `ai-v7`), whose `wrapLanguageModel` hands a middleware
// LanguageModelV4 prompts: files carry tagged data (`{ type: 'data' | 'url' | 'reference' | 'text' }`),
// and assistant messages can hold custom parts and reasoning files.
import { generateText, type LanguageModelMiddleware, type ModelMessage, streamText, wrapLanguageModel } from 'ai-v7'
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai-v7/test'
import { describe, expect, it, vi } from 'vitest'
import { heuristic } from '../../src/tokens/heuristic.ts'
import { contextMiddleware, type ContextMiddlewareOptions, type ContextRecord } from '../../src/ai-sdk/mod.ts'
import { promptToV3, promptToV4 } from '../../src/ai-sdk/_specification.ts'

type CallOptions = Parameters<MockLanguageModelV4['doGenerate']>[0]
type Prompt = CallOptions['prompt']

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } }
const SUMMARY = '## Goal\n- fix\n## Constraints\n- none\n## Progress\n- read\n## Decisions\n- none\n## Next steps\n- test\n## Files\n- cart.ts'
const PNG = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10])
const SHOT = new URL('https://example.com/screenshot.png')

const recording = (calls: CallOptions[]) =>
  new MockLanguageModelV4({
    provider: 'openai.responses',
    supportedUrls: { 'image/*': [/^https:\/\//] }, // sent as URLs, never downloaded
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

// The middleware's declared type is the one of the `ai` the sources are checked against (6);
// under `ai` 7 a user's project sees ai 7's (the consumer test checks that); here it is converted once.
const middlewareV7 = (options: ContextMiddlewareOptions): LanguageModelMiddleware => contextMiddleware(options) as unknown as LanguageModelMiddleware

/** `turns` tool rounds of `size` characters each; the user's report carries a screenshot by URL, the last request one by bytes. */
const conversation = (turns: number, size: number): ModelMessage[] => [
  { role: 'user', content: [{ type: 'text', text: 'The cart total is off by a cent.' }, { type: 'file', data: SHOT, mediaType: 'image/png' }] },
  ...Array.from({ length: turns }, (_, i): ModelMessage[] => [
    {
      role: 'assistant',
      content: [{ type: 'text', text: `Reading part ${i}.` }, { type: 'tool-call', toolCallId: `c${i}`, toolName: 'read', input: { part: i } }],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${i}`, toolName: 'read', output: { type: 'text', value: `part ${i} `.repeat(size / 7) } }] },
  ]).flat(),
  { role: 'user', content: [{ type: 'text', text: 'Now fix it; this is what I see.' }, { type: 'file', data: PNG, mediaType: 'image/png' }] },
]

describe('contextMiddleware under ai 7 (LanguageModelV4)', () => {
  it('lets a request that fits go through as ai 7 sent it, with no record', async () => {
    const plain: CallOptions[] = []
    await generateText({ model: recording(plain), system: 'You are a coding agent.', messages: conversation(3, 200) })
    const calls: CallOptions[] = []
    const model = wrapLanguageModel({
      model: recording(calls),
      middleware: middlewareV7({ contextWindow: 100_000, reserveTokens: 1_000, estimate: heuristic }),
    })
    const r = await generateText({ model, system: 'You are a coding agent.', messages: conversation(3, 200) })
    expect(calls[0]?.prompt).toEqual(plain[0]?.prompt)
    expect(r.providerMetadata?.['chatfold']).toBeUndefined()
  })

  it('prunes, and the prompt it writes is a V4 prompt: files with tagged data, as ai 7 sends them', async () => {
    const plain: CallOptions[] = []
    await generateText({ model: recording(plain), system: 'You are a coding agent.', messages: conversation(8, 2_800) })
    const calls: CallOptions[] = []
    const model = wrapLanguageModel({ model: recording(calls), middleware: middlewareV7({ contextWindow: 6_000, reserveTokens: 500, estimate: heuristic }) })
    const r = await generateText({ model, system: 'You are a coding agent.', messages: conversation(8, 2_800) })
    const record = r.providerMetadata?.['chatfold'] as ContextRecord | undefined
    expect(record).toMatchObject({ compaction: null })
    expect(record?.prunedResults).toBeGreaterThan(0)
    const sent = calls[0]?.prompt ?? []
    // the first request and the last, files and all, reach the model as ai 7 wrote them
    expect(sent[1]).toEqual(plain[0]?.prompt[1])
    expect(sent.at(-1)).toEqual(plain[0]?.prompt.at(-1))
    expect(sent.at(-1)).toMatchObject({ content: [{ type: 'text' }, { type: 'file', data: { type: 'data' } }] })
    expect(sent[1]).toMatchObject({ content: [{ type: 'text' }, { type: 'file', data: { type: 'url', url: SHOT } }] })
  })

  it('compacts in a stream, recording it on the finish part', async () => {
    const calls: CallOptions[] = []
    const summarize = vi.fn(async (_transcript: string) => SUMMARY)
    const model = wrapLanguageModel({
      model: recording(calls),
      middleware: middlewareV7({ contextWindow: 3_000, reserveTokens: 500, estimate: heuristic, keepRecentTokens: 300, summarize, pruning: 'off' }),
    })
    const result = streamText({ model, system: 'You are a coding agent.', messages: conversation(8, 1_400) })
    expect(await result.text).toBe('ok')
    const record = (await result.providerMetadata)?.['chatfold'] as ContextRecord | undefined
    expect(summarize).toHaveBeenCalledTimes(1)
    expect(record).toMatchObject({ limit: 2_500, prunedResults: 0, compaction: { from: 1, summary: SUMMARY } })
    const sent = calls[0]?.prompt ?? []
    expect(sent[0]).toEqual({ role: 'system', content: 'You are a coding agent.' })
    expect(sent[1]).toEqual({ role: 'user', content: [{ type: 'text', text: SUMMARY }] })
    expect(sent.at(-1)).toMatchObject({ content: [{ type: 'text' }, { type: 'file', data: { type: 'data' } }] })
  })
})

describe('promptToV3 and promptToV4', () => {
  it('carry the V4 parts V3 has no shape for there and back as they came', () => {
    const prompt: Prompt = [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'file', mediaType: 'text/plain', data: { type: 'text', text: 'notes' } },
          { type: 'file', mediaType: 'application/pdf', data: { type: 'reference', reference: { openai: 'file-1' } } },
          { type: 'file', mediaType: 'image/png', data: { type: 'url', url: SHOT, originalUrl: 'https://example.com/s.png' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'custom', kind: 'acme.marker' },
          { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: PNG } },
          { type: 'tool-call', toolCallId: 'c', toolName: 'shot', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [{
          type: 'tool-result',
          toolCallId: 'c',
          toolName: 'shot',
          output: { type: 'content', value: [{ type: 'text', text: 'taken' }, { type: 'file', mediaType: 'image/png', data: { type: 'data', data: PNG } }] },
        }],
      },
    ]
    const v3 = promptToV3(prompt)
    // in V3 shapes: a file's data bare, a tool result's file as file-data (base64)
    expect(v3[1]).toMatchObject({
      content: [{ type: 'text', text: 'notes' }, { type: 'text' }, { type: 'file', data: SHOT, originalUrl: 'https://example.com/s.png' }],
    })
    expect(v3[3]).toMatchObject({ content: [{ output: { value: [{ type: 'text' }, { type: 'file-data', data: 'iVBORw0KGgo=', mediaType: 'image/png' }] } }] })
    expect(promptToV4(v3)).toEqual(prompt)
  })
})
