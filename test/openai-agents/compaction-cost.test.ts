/**
 * A compaction of the Agents SDK session reports its receipt (the items summarised, by history id,
 * and the tool calls that left with them) and the cost of each call its summariser made: the
 * Responses API's compaction priced from the usage it answers, an offline summariser none.
 */
import { describe, expect, it } from 'vitest'
import OpenAI from 'openai'
import type { AgentInputItem } from '@openai/agents'
import { createChatStore } from '../../src/store/store.ts'
import { chatStoreSession, type SessionCompactionReport, storeChatLog } from '../../src/openai-agents/mod.ts'
import { openAICompaction } from '../../src/summarize/openai.ts'
import { withPrices } from '../../src/cost/lookup.ts'
import { PRICES } from '../../src/cost/prices.ts'

const memoryLog = () => storeChatLog(createChatStore({ maxHistorySize: Infinity }))
const user = (text: string): AgentInputItem => ({ role: 'user', content: text })
const call = (i: number): AgentInputItem => ({ type: 'function_call', callId: `c${i}`, name: 'read', arguments: `{"path":"f${i}.ts"}`, status: 'completed' })
const result = (i: number): AgentInputItem => ({
  type: 'function_call_result',
  callId: `c${i}`,
  name: 'read',
  status: 'completed',
  output: { type: 'text', text: `${'line of a long file read by the tool '.repeat(40)}#${i}` },
})
const history = (): AgentInputItem[] => [user('Fix the parser.'), ...Array.from({ length: 12 }, (_, i) => [call(i), result(i)]).flat(), user('Now the tests.')]

/** An OpenAI client whose `responses.compact` answers a compaction item with this usage. */
const compactingClient = (usage: Record<string, unknown>) =>
  new OpenAI({
    apiKey: 'test',
    maxRetries: 0,
    fetch: async () =>
      new Response(
        JSON.stringify({
          id: 'resp_c',
          object: 'response.compaction',
          created_at: 1,
          output: [{ id: 'cmp_1', type: 'compaction', encrypted_content: 'gAAAAB' }],
          usage,
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      ),
  })

describe('chatStoreSession compaction: receipt and cost', () => {
  it('reports the items summarised and the calls that left, by the ids of the history, and no call for the offline summariser', async () => {
    const reports: SessionCompactionReport[] = []
    const session = chatStoreSession({
      log: memoryLog(),
      sessionId: 'r',
      compaction: { contextWindow: 2_000, keepRecentTokens: 400, onCompaction: (r) => reports.push(r) },
    })
    await session.addItems(history())
    const before = await session.history()
    const report = await session.compact()
    expect(reports).toEqual([report])
    expect(report?.calls).toEqual([])
    const after = await session.getItems()
    // the items gone are the ones summarised: the history's ids of the items no longer stored
    const keptCalls = new Set(after.flatMap((i) => (i.type === 'function_call' ? [i.callId] : [])))
    // the head of the history, by its ids (`item-<index>-<n>`), up to the first item kept
    const n = report?.receipt.summarised.length ?? 0
    expect(n).toBeGreaterThan(1)
    expect(report?.receipt.summarised).toEqual(before.slice(0, n).map((m) => m.id))
    expect(after.slice(1)).toEqual(history().slice(history().length - (after.length - 1)))
    const leftCalls = history().flatMap((i) => (i.type === 'function_call' && !keptCalls.has(i.callId) ? [i.callId] : []))
    expect(leftCalls.length).toBeGreaterThan(0)
    expect(report?.receipt.toolCalls.map((c) => c.id)).toEqual(leftCalls)
    expect(report?.receipt.toolCalls.every((c) => c.name === 'read')).toBe(true)
  })

  it("prices the Responses API's compaction call from the usage it answers, cached input apart, as the compaction's own line", async () => {
    const usage = {
      input_tokens: 1_000_000,
      output_tokens: 10_000,
      total_tokens: 1_010_000,
      input_tokens_details: { cached_tokens: 800_000 },
      output_tokens_details: { reasoning_tokens: 0 },
    }
    const session = chatStoreSession({
      log: memoryLog(),
      sessionId: 'o',
      compaction: { contextWindow: 2_000, keepRecentTokens: 400, summarize: openAICompaction({ client: compactingClient(usage), model: 'gpt-5' }) },
    })
    await session.addItems(history())
    const report = await session.compact()
    // gpt-5: $1.25 a million in, $0.125 cached, $10 out
    expect(report?.calls).toEqual([{
      model: 'gpt-5',
      usd: expect.closeTo(200_000 * 1.25e-6 + 800_000 * 0.125e-6 + 10_000 * 10e-6, 12),
      charge: expect.anything(),
    }])
  })

  it('names a model the price table lacks, never pricing its call as zero, and takes a table given', async () => {
    const usage = { input_tokens: 1_000_000, output_tokens: 0, total_tokens: 1_000_000 }
    const unpriced = chatStoreSession({
      log: memoryLog(),
      sessionId: 'u',
      compaction: {
        contextWindow: 2_000,
        keepRecentTokens: 400,
        summarize: openAICompaction({ client: compactingClient(usage), model: 'in-house-compactor' }),
      },
    })
    await unpriced.addItems(history())
    expect((await unpriced.compact())?.calls).toEqual([{ model: 'in-house-compactor', usd: null, unpriced: { kind: 'unpriced', model: 'in-house-compactor' } }])
    const priced = chatStoreSession({
      log: memoryLog(),
      sessionId: 'p',
      compaction: {
        contextWindow: 2_000,
        keepRecentTokens: 400,
        summarize: openAICompaction({ client: compactingClient(usage), model: 'in-house-compactor' }),
        prices: withPrices([{ model: 'in-house-compactor', input: 0.5, output: 1 }])(PRICES),
      },
    })
    await priced.addItems(history())
    expect((await priced.compact())?.calls.map((c) => c.usd)).toEqual([0.5])
  })
})
