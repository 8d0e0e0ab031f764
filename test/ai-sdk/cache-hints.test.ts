/**
 * Prompt-cache hints where each provider takes them: the writers' bodies as the official SDKs send
 * them (over a capturing `fetch`), and the middleware's call options as an AI SDK provider gets them.
 */
import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import { generateText, jsonSchema, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { type Messages, textMessage } from '../../src/message/message.ts'
import type { ModelRequest } from '../../src/adapters/request.ts'
import { toAnthropicRequest } from '../../src/adapters/anthropic/request.ts'
import { toOpenAIChatRequest, toOpenAIResponsesRequest } from '../../src/adapters/openai/request.ts'
import { MAX_BREAKPOINTS, withAnthropicBreakpoints } from '../../src/adapters/cache-hints.ts'
import { contextMiddleware, type LanguageModelCallOptions } from '../../src/ai-sdk/mod.ts'

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

const history: Messages = [
  textMessage('system', 'You are a coding agent.'),
  textMessage('user', 'List the files.'),
  { id: 'a1', role: 'assistant', kind: 'normal', parts: [{ type: 'tool_call', id: 'c1', name: 'ls', arguments: '{}', status: 'complete' }] },
  { id: 'r1', role: 'tool', kind: 'normal', parts: [{ type: 'tool_result', toolCallId: 'c1', content: 'cart.ts\nprice.ts', isError: false }] },
]
const request: ModelRequest = {
  model: 'claude-sonnet-4-5',
  messages: history,
  tools: [
    { type: 'function', name: 'read', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
    { type: 'function', name: 'ls', inputSchema: { type: 'object', properties: {} } },
  ],
  settings: { maxOutputTokens: 1_024 },
}
const EPHEMERAL = { type: 'ephemeral' }
const breakpoints = (body: unknown): number => (JSON.stringify(body).match(/"cache_control"/g) ?? []).length

describe('toAnthropicRequest with cache hints', () => {
  it('puts breakpoints on the last tool, the system prompt and the last message, as the SDK sends them', async () => {
    const { bodies, fetch } = capturing({
      id: 'm',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'ok' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    })
    const client = new Anthropic({ apiKey: 'test', fetch, maxRetries: 0 })
    await client.messages.create(right(toAnthropicRequest({ cache: {} })(request)).request as Anthropic.MessageCreateParamsNonStreaming)
    const body = bodies[0] as { system: unknown; tools: Array<Record<string, unknown>>; messages: Array<{ content: Array<Record<string, unknown>> }> }
    expect(body.system).toEqual([{ type: 'text', text: 'You are a coding agent.', cache_control: EPHEMERAL }])
    expect(body.tools[1]?.['cache_control']).toEqual(EPHEMERAL)
    expect(body.tools[0]?.['cache_control']).toBeUndefined()
    expect(body.messages.at(-1)?.content.at(-1)?.['cache_control']).toEqual(EPHEMERAL)
    expect(breakpoints(body)).toBe(3)
  })

  it('writes none by default, and a TTL when asked', () => {
    expect(breakpoints(right(toAnthropicRequest()(request)).request)).toBe(0)
    expect(breakpoints(right(toAnthropicRequest({ cache: 'off' })(request)).request)).toBe(0)
    expect(JSON.stringify(right(toAnthropicRequest({ cache: { ttl: '1h' } })(request)).request)).toContain('"cache_control":{"type":"ephemeral","ttl":"1h"}')
  })

  it('never goes past four breakpoints, counting those the body holds, and skips thinking blocks', () => {
    const held = { type: 'text', text: 'x', cache_control: EPHEMERAL }
    const body = {
      system: 'Be brief.',
      tools: [{ name: 'ls', input_schema: {} }],
      messages: [
        { role: 'user', content: [held] },
        { role: 'assistant', content: [held] },
        { role: 'user', content: [held] },
        { role: 'assistant', content: [{ type: 'text', text: 'Done.' }, { type: 'thinking', thinking: 'hm', signature: 's' }] },
      ],
    }
    const out = withAnthropicBreakpoints({}, body)
    expect(breakpoints(out)).toBe(MAX_BREAKPOINTS)
    expect(out.messages.at(-1)?.content).toEqual([{ type: 'text', text: 'Done.', cache_control: EPHEMERAL }, {
      type: 'thinking',
      thinking: 'hm',
      signature: 's',
    }])
    expect(out.system).toBe('Be brief.')
  })
})

describe('the OpenAI writers with cache hints', () => {
  it('send the conversation key as prompt_cache_key, Chat Completions and Responses', async () => {
    const { bodies, fetch } = capturing({
      id: 'c',
      object: 'chat.completion',
      created: 0,
      model: 'gpt-4.1',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok', refusal: null }, finish_reason: 'stop', logprobs: null }],
    })
    const client = new OpenAI({ apiKey: 'sk-test', fetch, maxRetries: 0 })
    const chat = { ...request, model: 'gpt-4.1' }
    await client.chat.completions.create(
      { ...right(toOpenAIChatRequest({ cache: { key: 'chat-42' } })(chat)).request, model: 'gpt-4.1' } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
    )
    await client.responses.create(
      {
        ...right(toOpenAIResponsesRequest({ cache: { key: 'chat-42' } })(chat)).request,
        model: 'gpt-4.1',
      } as OpenAI.Responses.ResponseCreateParamsNonStreaming,
    ).catch(() => undefined)
    expect(bodies.map((b) => b['prompt_cache_key'])).toEqual(['chat-42', 'chat-42'])
    expect(right(toOpenAIChatRequest()(chat)).request['prompt_cache_key']).toBeUndefined()
    expect(
      right(toOpenAIResponsesRequest({ cache: { key: 'other' } })({ ...chat, providerFields: { openai: { prompt_cache_key: 'kept' } } }))
        .request['prompt_cache_key'],
    ).toBe('kept')
  })
})

describe('contextMiddleware cache hints', () => {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  }
  const run = async (provider: string, options: { cache?: 'auto' | 'off' } = {}, first = 'List the files.') => {
    const calls: LanguageModelCallOptions[] = []
    const inner = new MockLanguageModelV3({
      provider,
      doGenerate: async (
        params,
      ) => (calls.push(params), { content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] }),
    })
    const model = wrapLanguageModel({ model: inner, middleware: contextMiddleware({ contextWindow: 200_000, ...options }) })
    const read = tool({ inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } } }), execute: async () => '' })
    const ls = tool({ inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }), execute: async () => '' })
    await generateText({ model, system: 'You are a coding agent.', messages: [{ role: 'user', content: first }], tools: { read, ls } })
    return calls[0] as LanguageModelCallOptions
  }

  it('marks the system prompt, the last message and the last tool for Anthropic', async () => {
    const params = await run('anthropic.messages')
    const cacheControl = { anthropic: { cacheControl: EPHEMERAL } }
    expect(params.prompt[0]?.providerOptions).toEqual(cacheControl)
    expect(params.prompt.at(-1)?.providerOptions).toEqual(cacheControl)
    expect(params.tools?.at(-1)).toMatchObject({ name: 'ls', providerOptions: cacheControl })
    expect(JSON.stringify(params.tools?.[0])).not.toContain('cacheControl')
    expect(params.providerOptions?.['openai']).toBeUndefined()
  })

  it('gives OpenAI one promptCacheKey per conversation', async () => {
    const a = await run('openai.responses')
    const again = await run('openai.responses')
    const b = await run('openai.responses', {}, 'Another chat.')
    const key = a.providerOptions?.['openai']?.['promptCacheKey']
    expect(key).toMatch(/^chatfold-[0-9a-f]{16}$/)
    expect(again.providerOptions?.['openai']?.['promptCacheKey']).toBe(key)
    expect(b.providerOptions?.['openai']?.['promptCacheKey']).not.toBe(key)
    expect(JSON.stringify(a.prompt)).not.toContain('cacheControl')
  })

  it('writes none with cache off', async () => {
    for (const provider of ['anthropic.messages', 'openai.responses']) {
      const params = await run(provider, { cache: 'off' })
      expect(JSON.stringify(params)).not.toMatch(/cacheControl|promptCacheKey/)
    }
  })
})
