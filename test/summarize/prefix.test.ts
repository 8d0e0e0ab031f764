/**
 * The summariser's request shares the conversation's prefix: the official SDKs over a capturing
 * `fetch` (the chat's request and the summariser's, both as the SDK would send them), and the AI
 * SDK through `contextMiddleware` with mock models capturing each prompt.
 */
import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import { generateText, jsonSchema, type ModelMessage, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { compact } from '../../src/compaction/compact.ts'
import { type Messages, textMessage } from '../../src/message/message.ts'
import type { ToolDefinition } from '../../src/adapters/request.ts'
import { toAnthropicRequest } from '../../src/adapters/anthropic/request.ts'
import { toOpenAIChatRequest, toOpenAIResponsesRequest } from '../../src/adapters/openai/request.ts'
import { anthropicSummarizer } from '../../src/summarize/anthropic.ts'
import { openAISummarizer } from '../../src/summarize/openai.ts'
import { aiSdkSummarizer, PREFIX_INSTRUCTION } from '../../src/summarize/ai-sdk.ts'
import { contextMiddleware, type LanguageModelCallOptions } from '../../src/ai-sdk/mod.ts'
import { SUMMARY_PROMPT } from '../../src/compaction/summary.ts'

const SUMMARY = '## Goal\n- fix\n## Constraints\n- none\n## Progress\n- read\n## Decisions\n- none\n## Next steps\n- test\n## Files\n- cart.ts'

/** A `fetch` that records each request body and answers `reply`. */
const capturing = (reply: unknown) => {
  const bodies: Array<Record<string, unknown>> = []
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const raw = init?.body ?? (input instanceof Request ? await input.text() : undefined)
    bodies.push(typeof raw === 'string' ? JSON.parse(raw) : {})
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  return { bodies, fetch }
}

const right = <A>(e: E.Either<unknown, A>): A => {
  if (E.isLeft(e)) throw new Error(JSON.stringify(e.left))
  return e.right
}

const TOOLS: ReadonlyArray<ToolDefinition> = [{
  type: 'function',
  name: 'read',
  description: 'Reads a part of the file',
  inputSchema: { type: 'object', properties: { part: { type: 'number' } } },
}]

/** A conversation of `turns` tool rounds, each `size` characters of output, ending with a request. */
const conversation = (turns: number, size: number): Messages => [
  textMessage('system', 'You are a coding agent.', { id: 's' }),
  textMessage('user', 'The cart total is off by a cent.', { id: 'u0' }),
  ...Array.from({ length: turns }, (_, i): Messages => [
    {
      id: `a${i}`,
      role: 'assistant',
      kind: 'normal',
      parts: [{ type: 'text', text: `Reading part ${i}.` }, { type: 'tool_call', id: `c${i}`, name: 'read', arguments: `{"part":${i}}`, status: 'complete' }],
    },
    {
      id: `r${i}`,
      role: 'tool',
      kind: 'normal',
      parts: [{ type: 'tool_result', toolCallId: `c${i}`, content: `line ${i} `.repeat(size / 7), isError: false }],
    },
  ]).flat(),
  textMessage('user', 'Go on.', { id: 'u1' }),
]

const anthropicAnswer = (text: string) => ({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [{ type: 'text', text }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
})
const chatAnswer = (text: string) => ({
  id: 'c1',
  object: 'chat.completion',
  created: 0,
  model: 'gpt-4.1',
  choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, finish_reason: 'stop', logprobs: null }],
})

describe('the summariser given the conversation request', () => {
  it("Anthropic: same system and tools, the chat request's blocks first, then the instruction", async () => {
    const { bodies, fetch } = capturing(anthropicAnswer(SUMMARY))
    const client = new Anthropic({ apiKey: 'test', fetch, maxRetries: 0 })
    const history = conversation(8, 1_400)
    // the chat's own request, as the app sends it
    await client.messages.create(
      right(toAnthropicRequest({ cache: {} })({ model: 'claude-sonnet-4-5', messages: history, tools: TOOLS, settings: { maxOutputTokens: 2_000 } }))
        .request as Anthropic.MessageCreateParamsNonStreaming,
    )
    await compact({
      summarize: anthropicSummarizer({ client, model: 'claude-sonnet-4-5' }),
      keepRecentTokens: 300,
      request: { messages: history, tools: TOOLS },
    })(history)
    const [chat, summary] = bodies
    expect(summary?.['system']).toEqual(chat?.['system'])
    expect(JSON.stringify(summary?.['tools'])).toBe(JSON.stringify(chat?.['tools']))
    // the breakpoint moves to the end, where the cache is read from: blocks compared without it
    const bare = (u: unknown): Array<{ role: string; content: unknown }> =>
      JSON.parse(JSON.stringify(u, (k, v: unknown) => (k === 'cache_control' ? undefined : v)))
    const sent = bare(chat?.['messages'])
    const asked = bare(summary?.['messages'])
    expect(JSON.stringify(summary?.['messages']).match(/cache_control/g)).toHaveLength(1)
    // every message of the chat's request as it was, but the last, whose blocks the instruction follows in the same user turn
    expect(JSON.stringify(asked.slice(0, sent.length - 1))).toBe(JSON.stringify(sent.slice(0, -1)))
    const last = asked[sent.length - 1]
    const blocks = (c: unknown) => (typeof c === 'string' ? [{ type: 'text', text: c }] : c)
    expect(last?.role).toBe('user')
    expect(JSON.stringify(blocks(last?.content)).startsWith(JSON.stringify(blocks(sent.at(-1)?.content)).slice(0, -1))).toBe(true)
    expect(JSON.stringify(asked.at(-1))).toContain(PREFIX_INSTRUCTION)
    expect(asked).toHaveLength(sent.length)
  })

  it("OpenAI Chat Completions and Responses: the chat request's messages as they were, then the instruction", async () => {
    for (const api of ['chat', 'responses'] as const) {
      const reply = api === 'chat' ? chatAnswer(SUMMARY) : {
        id: 'r1',
        object: 'response',
        created_at: 0,
        model: 'gpt-4.1',
        status: 'completed',
        output: [{ type: 'message', id: 'm1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: SUMMARY, annotations: [] }] }],
      }
      const { bodies, fetch } = capturing(reply)
      const client = new OpenAI({ apiKey: 'sk-test', fetch, maxRetries: 0 })
      const history = conversation(8, 1_400)
      const chatRequest = { model: 'gpt-4.1', messages: history, tools: TOOLS, toolChoice: { type: 'auto' as const } }
      if (api === 'chat')
        await client.chat.completions.create(
          { ...right(toOpenAIChatRequest()(chatRequest)).request, model: 'gpt-4.1' } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
        )
      else await client.responses.create(
          { ...right(toOpenAIResponsesRequest()(chatRequest)).request, model: 'gpt-4.1' } as OpenAI.Responses.ResponseCreateParamsNonStreaming,
        )
      await compact({
        summarize: openAISummarizer({ client, model: 'gpt-4.1', api }),
        keepRecentTokens: 300,
        request: { messages: history, tools: TOOLS, toolChoice: { type: 'auto' } },
      })(history)
      const [chat, summary] = bodies
      const list = api === 'chat' ? 'messages' : 'input'
      const sent = chat?.[list] as ReadonlyArray<unknown>
      const asked = summary?.[list] as ReadonlyArray<unknown>
      expect(JSON.stringify(summary?.['tools'])).toBe(JSON.stringify(chat?.['tools']))
      expect(summary?.['tool_choice']).toEqual(chat?.['tool_choice'])
      expect(summary?.['instructions']).toEqual(chat?.['instructions'])
      expect(JSON.stringify(asked.slice(0, sent.length))).toBe(JSON.stringify(sent))
      expect(asked).toHaveLength(sent.length + 1)
      expect(JSON.stringify(asked.at(-1))).toContain(PREFIX_INSTRUCTION)
    }
  })

  it('keeps the transcript form on request, and when compact is given no request', async () => {
    const { bodies, fetch } = capturing(anthropicAnswer(SUMMARY))
    const client = new Anthropic({ apiKey: 'test', fetch, maxRetries: 0 })
    const history = conversation(8, 1_400)
    await compact({
      summarize: anthropicSummarizer({ client, model: 'claude-sonnet-4-5', form: 'transcript' }),
      keepRecentTokens: 300,
      request: { messages: history, tools: TOOLS },
    })(history)
    await compact({ summarize: anthropicSummarizer({ client, model: 'claude-sonnet-4-5' }), keepRecentTokens: 300 })(history)
    for (const body of bodies) {
      expect(body['system']).toBe(SUMMARY_PROMPT)
      expect(body['tools']).toBeUndefined()
      expect(body['messages']).toHaveLength(1)
    }
  })
})

describe('contextMiddleware with aiSdkSummarizer', () => {
  it('sends the summariser the prompt the chat sent before, its tools, then the instruction', async () => {
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    }
    const answer = (text: string) => async (params: LanguageModelCallOptions) => {
      prompts.push(params)
      return { content: [{ type: 'text' as const, text }], finishReason: { unified: 'stop' as const, raw: undefined }, usage, warnings: [] }
    }
    const prompts: LanguageModelCallOptions[] = []
    const summaries: LanguageModelCallOptions[] = []
    const summariser = new MockLanguageModelV3({
      provider: 'anthropic.messages',
      doGenerate: async (
        params,
      ) => (summaries.push(params), { content: [{ type: 'text', text: SUMMARY }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] }),
    })
    const middleware = contextMiddleware({
      contextWindow: 14_000,
      reserveTokens: 6_000,
      pruning: 'off',
      keepRecentTokens: 2_000,
      summarize: aiSdkSummarizer({ model: summariser }),
    })
    const model = wrapLanguageModel({ model: new MockLanguageModelV3({ provider: 'anthropic.messages', doGenerate: answer('ok') }), middleware })
    const read = tool({
      description: 'Reads a part of the file',
      inputSchema: jsonSchema<{ part: number }>({ type: 'object', properties: { part: { type: 'number' } } }),
      execute: async () => '',
    })
    const messages: ModelMessage[] = [{ role: 'user', content: 'The cart total is off by a cent.' }]
    for (let i = 0; summaries.length === 0 && i < 40; i++) {
      messages.push(
        {
          role: 'assistant',
          content: [{ type: 'text', text: `Reading part ${i}.` }, { type: 'tool-call', toolCallId: `c${i}`, toolName: 'read', input: { part: i } }],
        },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${i}`, toolName: 'read', output: { type: 'text', value: `line ${i} `.repeat(200) } }] },
      )
      await generateText({ model, system: 'You are a coding agent.', messages, tools: { read } })
    }
    expect(summaries).toHaveLength(1)
    const before = prompts.at(-2)?.prompt ?? []
    const asked = summaries[0]?.prompt ?? []
    // the chat's previous prompt, every message as it was (its system prompt first), what the step added, then the instruction
    expect(asked.length).toBeGreaterThan(before.length)
    // (the breakpoints move to the end, where the cache is read from: providerOptions are not sent as they are)
    const bare = (ms: LanguageModelCallOptions['prompt']) => JSON.stringify(ms.map(({ providerOptions: _, ...m }) => m))
    expect(bare(asked.slice(0, before.length)) === bare(before)).toBe(true)
    expect(asked[0]).toEqual(before[0])
    expect(asked.at(-1)?.providerOptions).toEqual({ anthropic: { cacheControl: { type: 'ephemeral' } } })
    expect(JSON.stringify(summaries[0]?.tools)).toBe(JSON.stringify(prompts.at(-2)?.tools))
    expect(asked.at(-1)?.role).toBe('user')
    expect(JSON.stringify(asked.at(-1))).toContain(PREFIX_INSTRUCTION)
    // the compacted prompt keeps what precedes the summarised range (the system prompt) byte for byte
    const after = prompts.at(-1)?.prompt ?? []
    expect(JSON.stringify(after[0])).toBe(JSON.stringify(before[0]))
    expect(after[0]?.providerOptions).toEqual({ anthropic: { cacheControl: { type: 'ephemeral' } } })
    expect(after[1]).toEqual({ role: 'user', content: [{ type: 'text', text: SUMMARY }] })
  })
})
