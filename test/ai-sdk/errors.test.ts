/**
 * The AI SDK drop-ins fail with errors that say why in a `code` (`ContextError` from the middleware
 * and `prepareStep`, `UIMessageStoreError` from the persistence), and the middleware's record is
 * read back typed, without a cast (`contextRecordOf`).
 */
import { generateText, type ModelMessage, streamText, wrapLanguageModel } from 'ai'
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test'
import * as O from 'fp-ts/Option'
import { describe, expect, it } from 'vitest'
import { heuristic } from '../../src/tokens/heuristic.ts'
import { ContextError, contextMiddleware, contextPrepareStep, contextRecordOf, uiMessageStore, UIMessageStoreError } from '../../src/ai-sdk/mod.ts'
import { createChatStore } from '../../src/store/store.ts'
import { createChatHandler } from '../../src/store/http.ts'
import { textMessage } from '../../src/message/message.ts'

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } }
const SUMMARY = '## Goal\n- fix\n## Constraints\n- none\n## Progress\n- read\n## Decisions\n- none\n## Next steps\n- test\n## Files\n- cart.ts'

const mock = () =>
  new MockLanguageModelV3({
    provider: 'openai.responses',
    doGenerate: async () => ({ content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] }),
    doStream: async () => ({
      stream: convertArrayToReadableStream([
        { type: 'text-start' as const, id: 't' },
        { type: 'text-delta' as const, id: 't', delta: 'ok' },
        { type: 'text-end' as const, id: 't' },
        { type: 'finish' as const, finishReason: { unified: 'stop' as const, raw: undefined }, usage },
      ]),
    }),
  })

/** A conversation of tool rounds with long outputs, then a request. */
const messages = (turns: number, request = 'Now fix it.'): ModelMessage[] => [
  { role: 'user', content: 'The cart total is off by a cent.' },
  ...Array.from({ length: turns }, (_, i): ModelMessage[] => [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${i}`, toolName: 'read', input: { part: i } }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${i}`, toolName: 'read', output: { type: 'text', value: `part ${i} `.repeat(200) } }] },
  ]).flat(),
  { role: 'user', content: request },
]

/** The error a promise rejects with. */
const rejection = async (p: Promise<unknown>): Promise<unknown> => {
  try {
    await p
  } catch (e) {
    return e
  }
  throw new Error('expected a rejection')
}

describe('ContextError', () => {
  it("too-large: the middleware's call whose last request alone is over the window", async () => {
    const model = wrapLanguageModel({
      model: mock(),
      middleware: contextMiddleware({ contextWindow: 1_000, reserveTokens: 100, estimate: heuristic, summarize: async () => SUMMARY }),
    })
    const e = await rejection(generateText({ model, messages: messages(2, 'fix '.repeat(2_000)) }))
    expect(e).toBeInstanceOf(ContextError)
    expect(e).toMatchObject({ name: 'ContextError', code: 'too-large', message: expect.stringMatching(/over the limit of 900/) })
  })

  it('too-large from prepareStep too', async () => {
    const prepare = contextPrepareStep({ contextWindow: 1_000, reserveTokens: 100, estimate: heuristic, summarize: async () => SUMMARY })
    const e = await rejection(prepare({ messages: messages(2, 'fix '.repeat(2_000)), model: 'openai/gpt-5', stepNumber: 0 }))
    expect(e).toMatchObject({ code: 'too-large' })
    expect(e).toBeInstanceOf(ContextError)
  })

  it("unreadable: a step's messages chatfold cannot read, named by path", async () => {
    const prepare = contextPrepareStep({ contextWindow: 1_000, estimate: heuristic })
    const bad: unknown = [{ role: 'robot', content: 'beep' }]
    const e = await rejection(prepare({ messages: bad as ModelMessage[], model: 'openai/gpt-5', stepNumber: 0 }))
    expect(e).toBeInstanceOf(ContextError)
    expect(e).toMatchObject({ code: 'unreadable', message: expect.stringMatching(/^Cannot read the messages: .*role/) })
  })
})

describe('UIMessageStoreError', () => {
  const say = (id: string, text: string) => ({ id, role: 'user' as const, parts: [{ type: 'text' as const, text }] })
  const codeOf = async (p: Promise<unknown>) => {
    const e = await rejection(p)
    expect(e).toBeInstanceOf(UIMessageStoreError)
    return e instanceof UIMessageStoreError ? { code: e.code, status: e.status } : undefined
  }

  it('refused: a store over HTTP answering 401, with the status', async () => {
    const handler = createChatHandler(createChatStore(), { token: 'secret' })
    const chat = uiMessageStore({ url: 'http://store.test', token: 'wrong', conversationId: 'c', fetch: async (r) => handler(r) })
    expect(await codeOf(chat.save([say('u1', 'hi')]))).toEqual({ code: 'refused', status: 401 })
    expect(await codeOf(chat.load())).toEqual({ code: 'refused', status: 401 })
  })

  it('unreadable: an answer without a messages list', async () => {
    const chat = uiMessageStore({ url: 'http://store.test', conversationId: 'c', fetch: async () => Response.json({ rows: [] }) })
    expect(await codeOf(chat.load())).toEqual({ code: 'unreadable', status: undefined })
  })

  it('unsavable, no-id, conflict and not-compaction', async () => {
    const store = createChatStore()
    const chat = uiMessageStore({ store, conversationId: 'c' })
    const odd: unknown = [{ id: 'x1', role: 'user', parts: [{ type: 'text' }] }]
    expect(await codeOf(chat.save(odd as Parameters<typeof chat.save>[0]))).toMatchObject({ code: 'unsavable' })
    expect(await codeOf(chat.save([say('', 'no id')]))).toMatchObject({ code: 'no-id' })
    // another writer takes the id between this save's reading and its writing
    const handler = createChatHandler(store)
    const racing = uiMessageStore({
      url: 'http://store.test',
      conversationId: 'c',
      fetch: async (request) => {
        if (request.url.endsWith('/submit')) store.submit({ role: 'user', content: 'someone else', message_id: 'u1', conversation_id: 'c' })
        return handler(request)
      },
    })
    expect(await codeOf(racing.save([say('u1', 'mine')]))).toMatchObject({ code: 'conflict' })
    expect(await codeOf(chat.saveCompaction(textMessage('user', 'not a summary')))).toMatchObject({ code: 'not-compaction' })
  })

  it("the caller's own fetch failing (the network) is passed on as it came", async () => {
    const down = new TypeError('fetch failed')
    const chat = uiMessageStore({ url: 'http://store.test', conversationId: 'c', fetch: async () => Promise.reject(down) })
    expect(await rejection(chat.load())).toBe(down)
  })
})

describe('contextRecordOf', () => {
  const tight = () =>
    contextMiddleware({ contextWindow: 3_000, reserveTokens: 500, estimate: heuristic, keepRecentTokens: 300, summarize: async () => SUMMARY, pruning: 'off' })

  it("reads the middleware's record from generateText's answer, typed", async () => {
    const model = wrapLanguageModel({ model: mock(), middleware: tight() })
    const r = await generateText({ model, messages: messages(8) })
    const record = contextRecordOf(r)
    expect(O.isSome(record)).toBe(true)
    if (O.isNone(record)) return
    // typed: no cast between the answer and the figures
    const saved: number = record.value.tokensBefore - record.value.tokensAfter
    expect(saved).toBeGreaterThan(0)
    expect(record.value.compaction?.summary).toBe(SUMMARY)
  })

  it("and from streamText's awaited providerMetadata", async () => {
    const model = wrapLanguageModel({ model: mock(), middleware: tight() })
    const result = streamText({ model, messages: messages(8) })
    await result.text
    expect(contextRecordOf({ providerMetadata: await result.providerMetadata })).toMatchObject(O.some({ limit: 2_500 }))
  })

  it('is none for a call that went through untouched, and for what is not a record', async () => {
    const model = wrapLanguageModel({ model: mock(), middleware: contextMiddleware({ contextWindow: 100_000, estimate: heuristic }) })
    expect(contextRecordOf(await generateText({ model, messages: messages(1) }))).toEqual(O.none)
    expect(contextRecordOf({ providerMetadata: { chatfold: { limit: 'big' } } })).toEqual(O.none)
    expect(contextRecordOf({})).toEqual(O.none)
  })
})
