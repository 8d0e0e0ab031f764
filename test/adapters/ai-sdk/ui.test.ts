/**
 * AI SDK UI messages both ways, checked by the SDK itself: what `toUIMessages` writes passes the
 * SDK's `validateUIMessages` and its `convertToModelMessages` (then `generateText` with the mock
 * model); what the SDK's UI messages hold comes back through `fromUIMessages` and `toUIMessages`
 * unchanged; and `fromUIMessages` agrees with the SDK's own conversion to model messages.
 */
import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { convertToModelMessages, generateText, type UIMessage, validateUIMessages } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { fromModelMessages } from '../../../src/adapters/ai-sdk/model-messages-from.ts'
import { fromUIMessages } from '../../../src/adapters/ai-sdk/ui-messages-from.ts'
import { toUIMessages } from '../../../src/adapters/ai-sdk/ui-messages.ts'
import { toModelMessages } from '../../../src/adapters/ai-sdk/model-messages.ts'
import type { Messages } from '../../../src/message/message.ts'
import { formatDecodeFailure } from '../../../src/message/failure.ts'
import { call, msg, result, right, text, withoutIds } from '../support.ts'

/** A chat as `useChat` would hold it: steps, tools in every terminal state, reasoning, files, data, metadata. */
const chat: UIMessage[] = [
  { id: 's1', role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
  {
    id: 'u1',
    role: 'user',
    metadata: { createdAt: 1700000000000, tags: ['a'] },
    parts: [
      { type: 'text', text: 'Weather in Paris and Rome? See the file.' },
      { type: 'file', mediaType: 'application/pdf', filename: 'trip.pdf', url: 'data:application/pdf;base64,JVBERi0=' },
      { type: 'data-context', id: 'd1', data: { city: 'Paris' } },
    ],
  },
  {
    id: 'a1',
    role: 'assistant',
    metadata: { model: 'claude-sonnet-4-5' },
    parts: [
      { type: 'step-start' },
      { type: 'reasoning', text: 'Two cities.', state: 'done', providerMetadata: { anthropic: { signature: 'EqQBsig' } } },
      { type: 'tool-weather', toolCallId: 'c1', state: 'output-available', input: { city: 'Paris' }, output: { temperature: 18 } },
      { type: 'tool-weather', toolCallId: 'c2', state: 'output-error', input: { city: 'Rome' }, errorText: 'Service down' },
      { type: 'step-start' },
      { type: 'source-url', sourceId: 'src1', url: 'https://example.com/weather' },
      { type: 'text', text: 'Paris is 18°C; Rome is unknown.', state: 'done' },
    ],
  },
  { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'And Oslo?' }] },
  {
    id: 'a2',
    role: 'assistant',
    parts: [{ type: 'step-start' }, { type: 'tool-weather', toolCallId: 'c3', state: 'input-available', input: { city: 'Oslo' } }],
  },
]

const mock = () =>
  new MockLanguageModelV3({
    supportedUrls: { '*/*': [/^https:/] },
    doGenerate: {
      content: [{ type: 'text', text: 'ok' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
      warnings: [],
    },
  })

describe('AI SDK UI messages', () => {
  it('a useChat history comes back from fromUIMessages and toUIMessages as it was, and passes validateUIMessages', async () => {
    await validateUIMessages({ messages: chat })
    const history = right(fromUIMessages({ messages: chat }))
    expect(history.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user', 'assistant'])
    expect(history.map((m) => m.id).filter((id) => ['s1', 'u1', 'a1', 'u2', 'a2'].includes(id))).toEqual(['s1', 'u1', 'a1', 'u2', 'a2'])
    expect(history[3]?.parts).toEqual([
      {
        type: 'tool_result',
        toolCallId: 'c1',
        name: 'weather',
        content: '{"temperature":18}',
        isError: false,
        providerFields: { 'ai-sdk': { outputType: 'json' } },
      },
      { type: 'tool_result', toolCallId: 'c2', name: 'weather', content: 'Service down', isError: true },
    ])
    expect(history[6]?.parts).toEqual([{ type: 'tool_call', id: 'c3', name: 'weather', arguments: '{"city":"Oslo"}', status: 'pending' }])
    const { request, report } = right(toUIMessages()(history))
    expect(report.notes).toEqual([])
    expect(request.messages).toEqual(chat)
    await expect(validateUIMessages({ messages: request.messages })).resolves.toBeDefined()
  })

  it('agrees with the SDK’s own convertToModelMessages on texts, calls, results and signatures', async () => {
    const finished = chat.slice(0, 3)
    const sdk = await convertToModelMessages(finished)
    const ours = right(fromUIMessages({ messages: finished }))
    const theirs = right(fromModelMessages({ messages: sdk }))
    const shape = (ms: Messages) => withoutIds(ms).map(({ metadata: _m, ...rest }) => rest)
    expect(shape(ours)).toEqual(shape(theirs))
  })

  it('writes UI messages from a model-message history (the inverse the SDK lacks) that the SDK validates and can send', async () => {
    const h = [
      msg('system', [text('Be brief.')]),
      msg('user', [text('List files'), { type: 'image', data: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) }]),
      msg('assistant', [{ type: 'reasoning', text: 'ls it', signature: 'CiQBsig' }, call('c1', 'ls', '{"path":"."}')], { provider: 'google' }),
      msg('tool', [result('c1', 'README.md', { name: 'ls' })]),
      msg('assistant', [text('README.md')], { provider: 'google' }),
    ]
    const { request } = right(toUIMessages()(h))
    await validateUIMessages({ messages: request.messages })
    const model = mock()
    const sent = await generateText({ model, allowSystemInMessages: true, messages: await convertToModelMessages(request.messages as UIMessage[]) })
    expect(sent.text).toBe('ok')
    const prompt = model.doGenerateCalls[0]?.prompt ?? []
    expect(prompt.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant'])
    expect(JSON.stringify(prompt)).toContain('"thoughtSignature":"CiQBsig"')
    // and the same history through toModelMessages gives the SDK the same prompt
    const direct = mock()
    await generateText({ model: direct, allowSystemInMessages: true, ...right(toModelMessages()(h)).request })
    expect(normalised(prompt)).toEqual(normalised(direct.doGenerateCalls[0]?.prompt ?? []))
  })

  it('reports bad UI messages by path and never throws on hostile values', () => {
    const bad = fromUIMessages({
      messages: [
        { id: 'x', role: 'bot', parts: [] },
        {
          id: 'y',
          role: 'assistant',
          parts: [{ type: 'tool-f', toolCallId: 'c', state: 'done', input: {} }, { type: 'file', mediaType: 'image/png', url: 7 }],
        },
        { id: 'z', role: 'user', metadata: { n: 1n }, parts: [] },
        {
          id: 'w',
          role: 'assistant',
          parts: [{ type: 'tool-f', toolCallId: 'c', state: 'input-available', input: JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) }],
        },
      ],
    })
    expect(E.isLeft(bad)).toBe(true)
    if (E.isLeft(bad)) {
      expect(bad.left.map((i) => i.path)).toEqual([
        'messages[0].role',
        'messages[1].parts[0].state',
        'messages[1].parts[1].url',
        'messages[2].metadata.n',
        expect.stringMatching(/^messages\[3\]\.parts\[0\]\.input(\[0\])+$/),
      ])
      expect(() => formatDecodeFailure(bad.left)).not.toThrow()
    }
  })
})

/** A prompt with bytes as base64 (one route hands the SDK bytes, the other a data URL it decodes). */
const normalised = (prompt: unknown): unknown =>
  JSON.parse(JSON.stringify(prompt, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v)))
