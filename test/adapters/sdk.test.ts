/**
 * The official SDKs, driven with a capturing `fetch` (no network): a converted history goes into
 * each SDK's own request call, the SDK serialises it, and the body it would send is checked; the
 * SDK's parsed response (and stream events) come back through the `from…` decoders and the stream
 * assemblers. The AI SDK is driven through `generateText` with its mock model. Node only.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as E from 'fp-ts/Either'
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI } from '@google/genai'
import { generateText } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { fromModelMessages } from '../../src/adapters/ai-sdk/model-messages-from.ts'
import { toModelMessages } from '../../src/adapters/ai-sdk/model-messages.ts'
import { fromAnthropic, fromAnthropicMessage } from '../../src/adapters/anthropic/messages-from.ts'
import { toAnthropic } from '../../src/adapters/anthropic/messages.ts'
import { fromGemini, fromGeminiResponse } from '../../src/adapters/gemini/contents-from.ts'
import { toGemini } from '../../src/adapters/gemini/contents.ts'
import { fromOpenAIChat, fromOpenAIChatCompletion } from '../../src/adapters/openai/chat-from.ts'
import { toOpenAIChat } from '../../src/adapters/openai/chat.ts'
import { fromOpenAIResponse, fromOpenAIResponses } from '../../src/adapters/openai/responses-from.ts'
import { toOpenAIResponses } from '../../src/adapters/openai/responses.ts'
import { type StreamAssembler } from '../../src/adapters/stream-kit.ts'
import { anthropicStream } from '../../src/adapters/anthropic/stream.ts'
import { geminiStream } from '../../src/adapters/gemini/stream.ts'
import { openAIChatStream } from '../../src/adapters/openai/chat-stream.ts'
import { makeBuilderState } from '../../src/builder/state.ts'
import { replayBuilderInputs } from '../../src/builder/step.ts'
import type { LifecycleInput } from '../../src/builder/types.ts'
import type { Messages } from '../../src/message/message.ts'
import * as anthropicFx from './fixtures/anthropic.ts'
import * as chatFx from './fixtures/openai-chat.ts'
import * as responsesFx from './fixtures/openai-responses.ts'
import * as geminiFx from './fixtures/gemini.ts'
import * as aiFx from './fixtures/ai-sdk.ts'

type Captured = { readonly url: string; readonly body: unknown }

/** A `fetch` that records each request and answers with `reply` (JSON, or server-sent events). */
const capturing = (reply: unknown, kind: 'json' | 'sse' = 'json', trailer = '') => {
  const captured: Captured[] = []
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const raw = init?.body ?? (input instanceof Request ? await input.text() : undefined)
    captured.push({ url, body: typeof raw === 'string' ? JSON.parse(raw) : raw })
    if (kind === 'sse') {
      const events = reply as ReadonlyArray<{ readonly type?: string }>
      const text = events.map((e) => (e.type === undefined ? `data: ${JSON.stringify(e)}\n\n` : `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`)).join('')
      return new Response(text + trailer, { status: 200, headers: { 'content-type': 'text/event-stream' } })
    }
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  return { captured, fetch }
}

const wire = (u: unknown): unknown => JSON.parse(JSON.stringify(u))
const right = <A>(e: E.Either<unknown, A>): A => {
  if (E.isLeft(e)) throw new Error(JSON.stringify(e.left))
  return e.right
}
const build = (assembler: StreamAssembler, events: Iterable<unknown>) => {
  const inputs: LifecycleInput[] = []
  for (const e of events) inputs.push(...assembler.push(e))
  inputs.push(...assembler.end())
  return replayBuilderInputs(inputs)(makeBuilderState()).state.history
}

const anthropicHistory: Messages = right(fromAnthropic(anthropicFx.request))

afterEach(() => {
  vi.restoreAllMocks()
})

describe('openai SDK', () => {
  it('sends toOpenAIChat’s messages as they are, and its completion decodes', async () => {
    const { captured, fetch } = capturing(chatFx.toolCallsCompletion)
    const client = new OpenAI({ apiKey: 'sk-test', fetch, maxRetries: 0 })
    const { request } = right(toOpenAIChat({ foreignReasoning: 'text' })(right(fromOpenAIChat(chatFx.request))))
    const completion = await client.chat.completions.create({ model: 'gpt-4.1', ...request })
    expect(captured[0]?.url).toBe('https://api.openai.com/v1/chat/completions')
    expect(captured[0]?.body).toEqual({ model: 'gpt-4.1', ...(wire(request) as object) })
    expect(right(fromOpenAIChatCompletion(completion)).parts.at(-1)).toEqual({ type: 'finish', reason: 'tool_use' })
  })

  it('sends toOpenAIResponses’s items as they are, and its response decodes', async () => {
    const { captured, fetch } = capturing(responsesFx.functionCallResponse)
    const client = new OpenAI({ apiKey: 'sk-test', fetch, maxRetries: 0 })
    const { request } = right(toOpenAIResponses({ systemRole: 'developer' })(right(fromOpenAIResponses(responsesFx.request))))
    const response = await client.responses.create({ model: 'o4-mini', store: false, include: ['reasoning.encrypted_content'], ...request })
    expect(captured[0]?.url).toBe('https://api.openai.com/v1/responses')
    expect(captured[0]?.body).toEqual({ model: 'o4-mini', store: false, include: ['reasoning.encrypted_content'], ...(wire(request) as object) })
    const m = right(fromOpenAIResponse(response))
    expect(m.parts[0]).toMatchObject({
      type: 'reasoning',
      signature: JSON.stringify({ id: responsesFx.functionCallResponse.output[0].id, encrypted_content: 'gAAAAABoISQ24OyVRYbkYfukvQ' }),
    })
  })

  it('streams chat chunks that the assembler builds into a message', async () => {
    const { fetch } = capturing(chatFx.streamChunks, 'sse', 'data: [DONE]\n\n')
    const client = new OpenAI({ apiKey: 'sk-test', fetch, maxRetries: 0 })
    const stream = await client.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'Weather?' }], stream: true })
    const events: unknown[] = []
    for await (const chunk of stream) events.push(chunk)
    const [message] = build(openAIChatStream(), events)
    expect(message?.parts.map((p) => p.type)).toEqual(['text', 'tool_call', 'tool_call', 'finish'])
    expect(message?.tokens).toEqual({ total: 31, thinking: 0 })
  })
})

describe('@anthropic-ai/sdk', () => {
  it('sends toAnthropic’s system and messages as they are, signatures byte for byte, and its message decodes', async () => {
    const { captured, fetch } = capturing(anthropicFx.toolUseResponse)
    const client = new Anthropic({ apiKey: 'sk-ant-test', fetch, maxRetries: 0 })
    const { request } = right(toAnthropic()(anthropicHistory))
    // the request's blocks kept verbatim are typed loosely (the API's own JSON): the SDK's type is named here
    const message = await client.messages.create({
      model: 'claude-sonnet-5-5',
      max_tokens: 1024,
      ...(request as Pick<Anthropic.MessageCreateParamsNonStreaming, 'messages' | 'system'>),
    })
    expect(captured[0]?.url).toBe('https://api.anthropic.com/v1/messages')
    expect(captured[0]?.body).toEqual({ model: 'claude-sonnet-5-5', max_tokens: 1024, ...(wire(request) as object) })
    expect(JSON.stringify(captured[0]?.body)).toContain('"signature":"EqQBCgIYAhIMsig1"')
    const decoded = right(fromAnthropicMessage(message))
    expect(decoded.parts[0]).toEqual({
      type: 'reasoning',
      text: anthropicFx.toolUseResponse.content[0].thinking,
      signature: anthropicFx.toolUseResponse.content[0].signature,
    })
  })

  it('streams events that the assembler builds into the same message', async () => {
    const { fetch } = capturing(anthropicFx.streamEvents, 'sse')
    const client = new Anthropic({ apiKey: 'sk-ant-test', fetch, maxRetries: 0 })
    const stream = await client.messages.create({
      model: 'claude-sonnet-5-5',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'Weather?' }],
      stream: true,
    })
    const events: unknown[] = []
    for await (const event of stream) events.push(event)
    const [message] = build(anthropicStream(), events)
    expect(message).toMatchObject({ id: 'msg_01Stream', provider: 'anthropic', tokens: { total: 89 } })
    expect(message?.parts[0]).toEqual({ type: 'reasoning', text: 'I need the weather for Paris.', signature: 'EqQBCgIYAhIMstream' })
    expect(message?.parts.at(-1)).toEqual({ type: 'finish', reason: 'tool_use' })
  })
})

describe('@google/genai', () => {
  it('sends toGemini’s contents and system instruction, signatures on their parts, and its response decodes', async () => {
    const { captured, fetch } = capturing(geminiFx.functionCallResponse)
    vi.spyOn(globalThis, 'fetch').mockImplementation(fetch as typeof globalThis.fetch)
    const ai = new GoogleGenAI({ apiKey: 'test-key' })
    const { request } = right(toGemini()(right(fromGemini(geminiFx.request))))
    const response = await ai.models.generateContent({
      model: 'gemini-2.5-pro',
      contents: request.contents,
      config: { ...(request.systemInstruction === undefined ? {} : { systemInstruction: request.systemInstruction }) },
    })
    expect(captured[0]?.url).toContain('/models/gemini-2.5-pro:generateContent')
    const body = captured[0]?.body as { contents: unknown; systemInstruction: unknown }
    expect(body.contents).toEqual(wire(request.contents))
    expect(body.systemInstruction).toEqual(wire(request.systemInstruction))
    const m = right(fromGeminiResponse(response))
    expect(m.parts.map((p) => p.type)).toEqual(['reasoning', 'reasoning', 'tool_call', 'tool_call', 'finish'])
  })

  it('streams chunks that the assembler builds into a message', async () => {
    const { fetch } = capturing(geminiFx.streamChunks.map((c) => ({ ...c })), 'sse')
    vi.spyOn(globalThis, 'fetch').mockImplementation(fetch as typeof globalThis.fetch)
    const ai = new GoogleGenAI({ apiKey: 'test-key' })
    const stream = await ai.models.generateContentStream({ model: 'gemini-2.5-pro', contents: 'Weather?' })
    const chunks: unknown[] = []
    for await (const chunk of stream) chunks.push(chunk)
    const [message] = build(geminiStream(), chunks)
    expect(message?.parts).toContainEqual({ type: 'reasoning', text: 'CiQBstream', redacted: true })
    expect(message?.tokens).toEqual({ total: 80, thinking: 60 })
  })
})

describe('ai (Vercel AI SDK)', () => {
  it('accepts toModelMessages’s messages in generateText and passes the reasoning on under each provider’s key', async () => {
    const model = new MockLanguageModelV3({
      supportedUrls: { '*/*': [/^https:/] },
      doGenerate: {
        content: [{ type: 'text', text: 'ok' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
        warnings: [],
      },
    })
    const history = [...right(fromModelMessages(aiFx.messages)), ...right(fromModelMessages(aiFx.providerReasoning))]
    const { request, report } = right(toModelMessages()(history))
    expect(report.notes).toEqual([])
    const result = await generateText({ model, allowSystemInMessages: true, ...request })
    expect(result.text).toBe('ok')
    const prompt = model.doGenerateCalls[0]?.prompt ?? []
    const assistant = prompt.find((m) => m.role === 'assistant')
    expect(assistant?.content[0]).toMatchObject({ type: 'reasoning', text: 'Paris, probably.', providerOptions: { anthropic: { signature: 'EqQBsig' } } })
    expect(JSON.stringify(prompt)).toContain('"thoughtSignature":"CiQBcall"')
    expect(prompt.find((m) => m.role === 'user')?.content).toContainEqual(expect.objectContaining({ type: 'file', mediaType: 'application/pdf' }))
  })
})
