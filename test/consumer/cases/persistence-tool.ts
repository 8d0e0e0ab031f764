// The persistence guide's chat route with one tool the route executes: the answer, tool call and
// all, must be saved when the response stream ends.
import * as E from 'fp-ts/Either'
import { createIdGenerator, jsonSchema, simulateReadableStream, stepCountIs, streamText, tool, type UIMessage } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { createChatStore } from 'chatfold/store'
import { formatAdapterFailure, toModelMessages } from 'chatfold/adapters'
import { forLLM } from 'chatfold/history'
import { sinceCompaction, uiMessageStore } from 'chatfold/ai-sdk'

type StreamPart = Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never

const usage = { inputTokens: { total: 9, noCache: 9, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 6, text: 6, reasoning: 0 } }
let step = 0
const model = new MockLanguageModelV3({
  doStream: async () => ({
    stream: simulateReadableStream<StreamPart>({
      chunks: step++ === 0
        ? [
          { type: 'tool-call', toolCallId: 'call-1', toolName: 'weather', input: JSON.stringify({ city: 'Paris' }) },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
        ]
        : [
          { type: 'text-start', id: 't1' },
          { type: 'text-delta', id: 't1', delta: 'It is 18°C in Paris.' },
          { type: 'text-end', id: 't1' },
          { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
        ],
    }),
  }),
})
const weather = tool({
  description: 'The weather in a city',
  inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
  execute: async ({ city }) => ({ city, celsius: 18 }),
})
const chat = uiMessageStore({ store: createChatStore(), conversationId: 'support-42' })

const messages: UIMessage[] = [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }] }]
await chat.save(messages)
const request = toModelMessages()(forLLM(sinceCompaction(await chat.loadHistory())))
if (E.isLeft(request)) throw new Error(formatAdapterFailure(request.left))
const result = streamText({ model, ...request.right.request, tools: { weather }, stopWhen: stepCountIs(2) })
const errors: unknown[] = []
const response = result.toUIMessageStreamResponse({
  originalMessages: messages,
  generateMessageId: createIdGenerator({ prefix: 'msg' }),
  onFinish: async (event) => {
    try {
      await chat.onFinish(event)
    } catch (e) {
      errors.push(e)
    }
  },
  onError: (e) => String(e),
})
const body = await response.text()
if (errors.length > 0) throw new Error(`onFinish failed: ${String(errors[0])}`)
const saved = await chat.load()
const answer = saved[1]
if (saved.length !== 2 || answer?.role !== 'assistant') throw new Error(`the answer was not saved: ${JSON.stringify(saved)}\n${body}`)
if (!answer.parts.some((p) => p.type === 'tool-weather')) throw new Error(`the tool call was not saved: ${JSON.stringify(answer.parts)}`)
if (!answer.parts.some((p) => p.type === 'text' && p.text === 'It is 18°C in Paris.'))
  throw new Error(`the text was not saved: ${JSON.stringify(answer.parts)}`)
console.log('saved', saved.length, 'messages')
