/**
 * The store's `onFinish` in the AI SDK's own stream: `streamText` over the SDK's mock model, its UI
 * message stream answered to the end, saves the turn (in Node: the mock model needs what Deno's test
 * permissions withhold).
 */
import { convertToModelMessages, createIdGenerator, simulateReadableStream, streamText, type UIMessage } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { uiMessageStore } from '../../src/ai-sdk/persistence.ts'
import { createChatStore } from '../../src/store/store.ts'
import { getConversation } from '../../src/store/query.ts'

const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] })
const held = (store: ReturnType<typeof createChatStore>, conversationId: string) => getConversation(conversationId)(store.state()).map((m) => m.id)

describe("the AI SDK's onFinish", () => {
  const model = () =>
    new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: 'text-start', id: 't1' },
            { type: 'text-delta', id: 't1', delta: 'It is 18°C.' },
            { type: 'text-end', id: 't1' },
            {
              type: 'finish',
              finishReason: { unified: 'stop', raw: 'stop' },
              usage: { inputTokens: { total: 9, noCache: 9, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } },
            },
          ],
        }),
      }),
    })
  const ask = [user('u1', 'Weather in Paris?')]

  it('saves the turn a UI message stream finished, with the ids generateMessageId gave', async () => {
    const chat = uiMessageStore({ store: createChatStore(), conversationId: 'c' })
    const result = streamText({ model: model(), messages: await convertToModelMessages(ask) })
    await result.toUIMessageStreamResponse({ originalMessages: ask, generateMessageId: createIdGenerator({ prefix: 'msg' }), onFinish: chat.onFinish }).text()
    const loaded = await chat.load()
    expect(loaded.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(loaded[0]).toEqual(ask[0])
    expect(loaded[1]?.id).toMatch(/^msg-/)
    expect(loaded[1]?.parts).toEqual([{ type: 'step-start' }, { type: 'text', text: 'It is 18°C.', state: 'done' }])
  })

  it('without generateMessageId (the answer has an empty id) the stream ends with an error saying so, and nothing is stored', async () => {
    const store = createChatStore()
    const chat = uiMessageStore({ store, conversationId: 'c' })
    const result = streamText({ model: model(), messages: await convertToModelMessages(ask) })
    await expect(result.toUIMessageStreamResponse({ originalMessages: ask, onFinish: chat.onFinish }).text()).rejects.toThrow(
      'Cannot save messages[1]: its id "" is not a store message id (a non-empty id of at most 256 characters); give toUIMessageStreamResponse a generateMessageId',
    )
    expect(held(store, 'c')).toEqual([])
  })
})
