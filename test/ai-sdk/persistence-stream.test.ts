/**
 * The persistence guide's chat route, run with the AI SDK's own `streamText` and a mock model that
 * calls a tool the route executes: the answer, its tool part included, is saved and loads back; a
 * field the AI SDK writes as `undefined` (a tool part's `title`, metadata from `messageMetadata`)
 * is absent, as in JSON; and a save `onFinish` cannot make is never silent, even when nothing reads
 * the stream's end.
 */
import { consumeStream, createIdGenerator, simulateReadableStream, stepCountIs, streamText, tool, type UIMessage } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { sinceCompaction, type UIMessageStore, uiMessageStore } from '../../src/ai-sdk/persistence.ts'
import { createChatStore } from '../../src/store/store.ts'
import { createChatHandler } from '../../src/store/http.ts'
import { toModelMessages } from '../../src/adapters/ai-sdk/model-messages.ts'
import { forLLM } from '../../src/history/views.ts'
import { JsonRecordC } from '../../src/internal/json.ts'

const usage = { inputTokens: { total: 9, noCache: 9, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 6, text: 6, reasoning: 0 } }

/** A model that calls `weather` for Paris, then answers with the tool's result. */
const toolCallingModel = (): MockLanguageModelV3 => {
  let calls = 0
  return new MockLanguageModelV3({
    doStream: async () => ({
      stream: calls++ === 0
        ? simulateReadableStream({
          chunks: [
            { type: 'tool-call', toolCallId: 'call-1', toolName: 'weather', input: JSON.stringify({ city: 'Paris' }) },
            { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
          ],
        })
        : simulateReadableStream({
          chunks: [
            { type: 'text-start', id: 't1' },
            { type: 'text-delta', id: 't1', delta: 'It is 18°C in Paris.' },
            { type: 'text-end', id: 't1' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
          ],
        }),
    }),
  })
}

const weather = tool({ description: 'The weather in a city', inputSchema: z.object({ city: z.string() }), execute: async () => ({ celsius: 18 }) })

/** The guide's route: save what the request brings, send the store's history, save the answer when the stream ends. */
const route = async (chat: UIMessageStore, messages: UIMessage[], metadata?: () => unknown): Promise<Response> => {
  await chat.save(messages)
  const request = toModelMessages()(forLLM(sinceCompaction(await chat.loadHistory())))
  if (E.isLeft(request)) throw new Error('the history did not convert')
  const result = streamText({ model: toolCallingModel(), ...request.right.request, tools: { weather }, stopWhen: stepCountIs(3) })
  return result.toUIMessageStreamResponse({
    originalMessages: messages,
    generateMessageId: createIdGenerator({ prefix: 'msg' }),
    onFinish: chat.onFinish,
    ...(metadata === undefined ? {} : { messageMetadata: ({ part }) => (part.type === 'finish' ? metadata() : undefined) }),
  })
}

const question: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }] }

describe('the guide route with a tool the route executes', () => {
  it('saves the answer with its tool part, which loads back as the AI SDK showed it', async () => {
    const chat = uiMessageStore({ store: createChatStore(), conversationId: 'support-42' })
    const response = await route(chat, [question])
    await response.text()

    const saved = await chat.load()
    expect(saved).toHaveLength(2)
    const answer = saved[1]
    expect(answer?.role).toBe('assistant')
    // strict: the fields the stream wrote as `undefined` (title, rawInput, providerExecuted, …) are absent, not kept as `undefined`
    expect(answer?.parts).toStrictEqual([
      { type: 'step-start' },
      { type: 'tool-weather', toolCallId: 'call-1', state: 'output-available', input: { city: 'Paris' }, output: { celsius: 18 } },
      { type: 'step-start' },
      { type: 'text', text: 'It is 18°C in Paris.', state: 'done' },
    ])
    // the history a model is sent next holds the call and its result
    const history = await chat.loadHistory()
    expect(history.flatMap((m) => m.parts.map((p) => p.type))).toEqual(['text', 'tool_call', 'tool_result', 'text'])

    // the next turn brings the saved messages back: they are held as they are
    expect(await chat.save([...saved, { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'Thanks' }] }])).toEqual({
      added: ['u2'],
      revised: [],
      unchanged: 2,
      skipped: 0,
    })
  })

  it('saves message metadata whose fields the app wrote as undefined, without them', async () => {
    const chat = uiMessageStore({ store: createChatStore(), conversationId: 'c' })
    const response = await route(chat, [question], () => ({ model: 'mock', usage: { inputTokens: 9, reasoningTokens: undefined } }))
    await response.text()
    const saved = await chat.load()
    expect(saved[1]?.metadata).toStrictEqual({ model: 'mock', usage: { inputTokens: 9 } })
  })

  it('over HTTP too: the served store takes the answer', async () => {
    const store = createChatStore()
    const handler = createChatHandler(store)
    const chat = uiMessageStore({ url: 'http://store.test', conversationId: 'c', fetch: async (r) => handler(r) })
    await (await route(chat, [question])).text()
    expect((await chat.load()).map((m) => m.role)).toEqual(['user', 'assistant'])
  })
})

describe('a save onFinish cannot make is never silent', () => {
  /** A store that takes the question and refuses every later message. */
  const refusing = () => {
    const handler = createChatHandler(createChatStore())
    let submits = 0
    return async (request: Request): Promise<Response> =>
      request.url.endsWith('/submit') && submits++ > 0
        ? new Response(JSON.stringify({ error: { message: 'storage is full' } }), { status: 507 })
        : handler(request)
  }

  it('the stream the guide reads ends with the error', async () => {
    const chat = uiMessageStore({ url: 'http://store.test', conversationId: 'c', fetch: refusing() })
    const response = await route(chat, [question])
    await expect(response.text()).rejects.toThrow(/Cannot save message "msg-[^"]+": the store answered 507 \(storage is full\)/)
  })

  it('a stream read by consumeStream, which drops errors, still reaches onError', async () => {
    let reported: (e: unknown) => void = () => {}
    const seen = new Promise<unknown>((resolve) => (reported = resolve))
    const chat = uiMessageStore({ url: 'http://store.test', conversationId: 'c', fetch: refusing(), onError: (e) => reported(e) })
    const response = await route(chat, [question])
    if (response.body === null) throw new Error('no body')
    // consumeStream swallows the stream's error: without onError, nothing would say the answer was lost
    await consumeStream({ stream: response.body })
    const error = await seen
    expect(error).toBeInstanceOf(Error)
    expect(String(error)).toMatch(/the store answered 507/)
  })
})

describe('JsonRecordC: an undefined-valued field is absent', () => {
  it('decodes to a copy without it, at any depth, and leaves a record without one as it is', () => {
    const r = JsonRecordC.decode({ a: 1, b: undefined, c: { d: undefined, e: [{ f: undefined, g: null }] } })
    expect(r).toStrictEqual(E.right({ a: 1, c: { e: [{ g: null }] } }))
    const clean = { a: 1, c: { e: [1] } }
    expect(E.isRight(JsonRecordC.decode(clean)) && JsonRecordC.decode(clean)).toStrictEqual(E.right(clean))
    const same = JsonRecordC.decode(clean)
    expect(E.isRight(same) && same.right).toBe(clean)
  })

  it('still refuses an undefined array element (JSON would make it null), naming it', () => {
    const r = JsonRecordC.decode({ list: [1, undefined] })
    expect(E.isLeft(r)).toBe(true)
  })
})
