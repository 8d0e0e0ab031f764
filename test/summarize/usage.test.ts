/**
 * Every summariser chatfold ships tells its caller the usage of each model call it makes
 * (`SummarizerContext.onAnswer`), so that the call is priced as the compaction's own cost line:
 * Anthropic's usage (input beside the cache reads and writes), OpenAI's (cached tokens inside the
 * input, Chat Completions' and the Responses API's names), the AI SDK's.
 */
import { describe, expect, it } from 'vitest'
import { MockLanguageModelV3 } from 'ai/test'
import { anthropicCompaction, anthropicSummarizer } from '../../src/summarize/anthropic.ts'
import { openAISummarizer } from '../../src/summarize/openai.ts'
import { aiSdkSummarizer } from '../../src/summarize/ai-sdk.ts'
import { callCostLineOf } from '../../src/cost/call-cost.ts'
import type { Summarizer, SummarizerContext } from '../../src/compaction/compact.ts'
import { textMessage } from '../../src/message/message.ts'

const SUMMARY = '## Goal\n- fix\n## Constraints\n- none\n## Progress\n- read\n## Decisions\n- none\n## Next steps\n- test\n## Files\n- cart.ts'

/** The cost lines of the calls a summariser made for one summary. */
const costsOf = async (summarize: Summarizer, context: Omit<SummarizerContext, 'onAnswer'> = { prompt: 'Summarise.' }) => {
  const answers: Array<Parameters<NonNullable<SummarizerContext['onAnswer']>>[0]> = []
  await summarize('the transcript', { ...context, onAnswer: (a) => answers.push(a) })
  return answers.map(callCostLineOf({}))
}

describe('summarisers report the usage of their calls', () => {
  it("anthropicSummarizer: Anthropic's input, cache reads and writes apart", async () => {
    const client = {
      messages: {
        create: async () => ({
          content: [{ type: 'text', text: SUMMARY }],
          usage: { input_tokens: 1_000, cache_read_input_tokens: 100_000, cache_creation_input_tokens: 4_000, output_tokens: 500 },
        }),
      },
    }
    // Claude Haiku 4.5: $1 a million in, $0.10 read, $1.25 written (5 minutes), $5 out
    expect(await costsOf(anthropicSummarizer({ client, model: 'claude-haiku-4-5' }))).toEqual([
      { model: 'claude-haiku-4-5', usd: expect.closeTo((1_000 * 1 + 100_000 * 0.1 + 4_000 * 1.25 + 500 * 5) / 1e6, 12), charge: expect.anything() },
    ])
  })

  it("anthropicCompaction: the compaction request's usage", async () => {
    const client = {
      beta: {
        messages: {
          create: async () => ({
            id: 'msg_c1',
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-6',
            content: [{ type: 'compaction', content: '## Goal\nA parser.', encrypted_content: 'Zm9v', signature: 'c2ln' }],
            stop_reason: 'compaction',
            stop_sequence: null,
            usage: { input_tokens: 400_000, output_tokens: 3_000 },
          }),
        },
      },
    }
    const context = { prompt: 'Summarise.', history: { system: [], head: [textMessage('user', 'Write the parser.'), textMessage('assistant', 'Written.')] } }
    // Claude Sonnet 4.6: $3 a million in, $15 out
    expect((await costsOf(anthropicCompaction({ client, model: 'claude-sonnet-4-6' }), context)).map((c) => c.usd)).toEqual([
      expect.closeTo((400_000 * 3 + 3_000 * 15) / 1e6, 12),
    ])
  })

  it("openAISummarizer: Chat Completions' and the Responses API's usage, the cached tokens inside the input", async () => {
    const client = {
      chat: {
        completions: {
          create: async () => ({
            choices: [{ message: { content: SUMMARY } }],
            usage: { prompt_tokens: 1_000_000, prompt_tokens_details: { cached_tokens: 800_000 }, completion_tokens: 10_000 },
          }),
        },
      },
      responses: {
        create: async () => ({
          output_text: SUMMARY,
          usage: { input_tokens: 1_000_000, input_tokens_details: { cached_tokens: 800_000 }, output_tokens: 10_000 },
        }),
      },
    }
    // gpt-5: $1.25 a million in, $0.125 cached, $10 out
    const usd = 200_000 * 1.25e-6 + 800_000 * 0.125e-6 + 10_000 * 10e-6
    for (const api of ['chat', 'responses'] as const) {
      expect((await costsOf(openAISummarizer({ client, model: 'gpt-5', api }))).map((c) => c.usd)).toEqual([expect.closeTo(usd, 12)])
    }
  })

  it('aiSdkSummarizer: one line per call, a retried summary two', async () => {
    let n = 0
    const model = new MockLanguageModelV3({
      modelId: 'claude-haiku-4-5',
      doGenerate: async () => ({
        // the first answer lacks its sections: the summariser asks again
        content: [{ type: 'text', text: n++ === 0 ? 'Fixed it.' : SUMMARY }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: {
          inputTokens: { total: 1_000, noCache: 1_000, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 100, text: 100, reasoning: undefined },
        },
        warnings: [],
      }),
    })
    const lines = await costsOf(aiSdkSummarizer({ model }))
    expect(lines).toHaveLength(2)
    for (const l of lines) expect(l).toMatchObject({ model: 'claude-haiku-4-5', usd: expect.closeTo((1_000 * 1 + 100 * 5) / 1e6, 12) })
  })
})
