import { describe, expect, it } from 'vitest'
import { fromAnthropicMessage } from '../../src/adapters/anthropic/messages-from.ts'
import { fromGeminiResponse } from '../../src/adapters/gemini/contents-from.ts'
import { type StreamAssembler } from '../../src/adapters/stream-kit.ts'
import { anthropicStream } from '../../src/adapters/anthropic/stream.ts'
import { geminiStream } from '../../src/adapters/gemini/stream.ts'
import { openAIResponsesStream } from '../../src/adapters/openai/responses-stream.ts'
import { openAIChatStream } from '../../src/adapters/openai/chat-stream.ts'
import { makeBuilderState } from '../../src/builder/state.ts'
import { replayBuilderInputs } from '../../src/builder/step.ts'
import type { LifecycleInput } from '../../src/builder/types.ts'
import { call, right, text } from './support.ts'
import * as anthropic from './fixtures/anthropic.ts'
import * as chat from './fixtures/openai-chat.ts'
import * as responses from './fixtures/openai-responses.ts'
import * as gemini from './fixtures/gemini.ts'

/** Feeds events to an assembler, then the inputs to a fresh builder. */
const run = (assembler: StreamAssembler, events: ReadonlyArray<unknown>) => {
  const inputs: LifecycleInput[] = [...events.flatMap((e) => assembler.push(e)), ...assembler.end()]
  const { state, events: out } = replayBuilderInputs(inputs)(makeBuilderState())
  return { inputs, history: state.history, events: out, message: state.history[0] }
}

const eventTypes = (events: ReadonlyArray<{ readonly type: string }>) => events.map((e) => e.type)

describe('anthropicStream', () => {
  it('builds the streamed reply: thinking with its signature, text, tool calls with streamed input', () => {
    const { message, events, inputs } = run(anthropicStream(), anthropic.streamEvents)
    expect(message).toMatchObject({ id: 'msg_01Stream', role: 'assistant', model: 'claude-sonnet-4-5', provider: 'anthropic', tokens: { total: 89 } })
    expect(message?.parts).toEqual([
      { type: 'reasoning', text: 'I need the weather for Paris.', signature: 'EqQBCgIYAhIMstream' },
      text('Let me check.'),
      call('toolu_01Stream', 'get_weather', '{"location": "Paris"}', 'pending'),
      call('toolu_02Stream', 'get_time', '{}', 'pending'),
      { type: 'finish', reason: 'tool_use' },
    ])
    expect(eventTypes(events)).toEqual([
      'messageStarted',
      'messagePartAdded',
      'messagePartUpdated',
      'messagePartUpdated',
      'messagePartAdded',
      'messagePartUpdated',
      'messagePartAdded',
      'messagePartUpdated',
      'messagePartUpdated',
      'messagePartAdded',
      'messagePartAdded',
      'messageFinalized',
    ])
    expect(inputs.filter((i) => i.type === 'finalizeAssistant')).toHaveLength(1)
  })

  it('gives the same message as the non-streamed response with the same content', () => {
    const streamed = run(anthropicStream(), anthropic.streamEvents).message
    const whole = right(
      fromAnthropicMessage({
        id: 'msg_01Stream',
        model: 'claude-sonnet-4-5',
        stop_reason: 'tool_use',
        usage: { output_tokens: 89 },
        content: [
          { type: 'thinking', thinking: 'I need the weather for Paris.', signature: 'EqQBCgIYAhIMstream' },
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'toolu_01Stream', name: 'get_weather', input: { location: 'Paris' } },
          { type: 'tool_use', id: 'toolu_02Stream', name: 'get_time', input: {} },
        ],
      }),
    )
    expect(streamed?.parts.map((p) => (p.type === 'tool_call' ? { ...p, arguments: JSON.stringify(JSON.parse(p.arguments)) } : p))).toEqual(whole.parts)
    expect(streamed?.tokens).toEqual(whole.tokens)
  })

  it('sets the error of a stream that fails, and finalizes it at the end', () => {
    const { message, events } = run(anthropicStream(), anthropic.streamError)
    expect(message).toMatchObject({ id: 'msg_01Err', error: 'overloaded_error: Overloaded', parts: [text('Hel')] })
    expect(eventTypes(events)).toContain('messageErrored')
  })

  it('keeps redacted thinking, and gives a thinking block with only a signature a signed part of its own', () => {
    const events = [
      { type: 'message_start', message: { id: 'm', model: 'x', content: [] } },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'first' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'S1' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'OPAQUE' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'thinking', thinking: '' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'signature_delta', signature: 'S2' } },
      { type: 'content_block_stop', index: 2 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } },
      { type: 'message_stop' },
    ]
    const { message } = run(anthropicStream(), events)
    expect(message?.parts).toEqual([
      { type: 'reasoning', text: 'first', signature: 'S1' },
      { type: 'reasoning', text: 'OPAQUE', redacted: true },
      { type: 'reasoning', text: '', signature: 'S2' },
      { type: 'finish', reason: 'end_turn' },
    ])
  })

  it('ignores malformed and unknown events', () => {
    const a = anthropicStream()
    expect([null, 42, { type: 'content_block_start', content_block: 'x' }, { type: 'ping' }, { type: 'message_delta', delta: {} }].flatMap((e) => a.push(e)))
      .toEqual([])
    expect(a.end()).toEqual([])
  })
})

describe('openAIChatStream', () => {
  it('builds text and parallel tool calls from chunks, with the usage chunk’s tokens', () => {
    const { message, events } = run(openAIChatStream(), chat.streamChunks)
    expect(message).toMatchObject({ id: 'chatcmpl-stream1', model: 'gpt-4.1-2025-04-14', provider: 'openai', tokens: { total: 31, thinking: 0 } })
    expect(message?.parts).toEqual([
      text('Let me check.'),
      call('call_s1', 'get_weather', '{"location":"Paris"}', 'pending'),
      call('call_s2', 'get_time', '{}', 'pending'),
      { type: 'finish', reason: 'tool_use' },
    ])
    expect(events.some((e) => e.type === 'warning')).toBe(false)
    expect(events.at(-1)?.type).toBe('messageFinalized')
  })

  it('reads reasoning deltas of compatible servers and error chunks', () => {
    const a = openAIChatStream()
    const { message } = run(a, [
      { id: 'c', model: 'deepseek-reasoner', choices: [{ index: 0, delta: { role: 'assistant', reasoning_content: 'Hmm' } }] },
      { id: 'c', model: 'deepseek-reasoner', choices: [{ index: 0, delta: { content: 'Yes' }, finish_reason: 'stop' }] },
    ])
    expect(message?.parts).toEqual([{ type: 'reasoning', text: 'Hmm' }, text('Yes'), { type: 'finish', reason: 'end_turn' }])
    expect(openAIChatStream().push({ error: { message: 'Rate limit' } })).toEqual([
      { type: 'startAssistant', provider: 'openai' },
      { type: 'setError', error: 'Rate limit' },
    ])
  })
})

describe('geminiStream', () => {
  it('builds thoughts, text and a signed call from chunks; the same parts as the whole response', () => {
    const { message, events } = run(geminiStream(), gemini.streamChunks)
    const expected = [
      { type: 'reasoning', text: '**Thinking** about the weather.' },
      text('Let me check.'),
      { type: 'reasoning', text: 'CiQBstream', redacted: true },
      call('resp-gemini-s-get_weather-0', 'get_weather', '{"location":"Paris"}', 'pending'),
      { type: 'finish', reason: 'end_turn' },
    ]
    expect(message).toMatchObject({ id: 'resp-gemini-s', model: 'gemini-2.5-pro', provider: 'google', tokens: { total: 80, thinking: 60 } })
    expect(message?.parts).toEqual(expected)
    expect(events.some((e) => e.type === 'warning')).toBe(false)
    const whole = right(
      fromGeminiResponse({
        responseId: 'resp-gemini-s',
        modelVersion: 'gemini-2.5-pro',
        candidates: [
          {
            finishReason: 'STOP',
            content: {
              role: 'model',
              parts: [
                { text: '**Thinking** about the weather.', thought: true },
                { text: 'Let me check.' },
                { functionCall: { name: 'get_weather', args: { location: 'Paris' } }, thoughtSignature: 'CiQBstream' },
              ],
            },
          },
        ],
        usageMetadata: { candidatesTokenCount: 20, thoughtsTokenCount: 60 },
      }),
    )
    expect(whole.parts.slice(0, 4)).toEqual(expected.slice(0, 4))
    expect(whole.tokens).toEqual(message?.tokens)
  })

  it('sets the error of an error chunk', () => {
    const { message } = run(geminiStream(), [gemini.invalidArgumentError])
    expect(message?.error).toBe('INVALID_ARGUMENT: Function call is missing a thought_signature in functionCall parts.')
  })
})

describe('openAIResponsesStream', () => {
  it('builds signed reasoning (summary parts apart) and a streamed function call; completes with tokens', () => {
    const { message, events } = run(openAIResponsesStream(), responses.streamEvents)
    expect(message).toMatchObject({ id: 'resp_stream', model: 'o4-mini-2025-04-16', provider: 'openai', tokens: { total: 50, thinking: 30 } })
    expect(message?.parts).toEqual([
      { type: 'reasoning', text: '**Plan**\n\nCall the tool.', signature: '{"id":"rs_s","encrypted_content":"gAAAAstream"}' },
      call('call_s', 'get_weather', '{"location":"Paris"}', 'pending'),
      { type: 'finish', reason: 'tool_use' },
    ])
    expect(events.some((e) => e.type === 'warning')).toBe(false)
  })

  it('adds encrypted reasoning without a summary as redacted, and fails a failed response', () => {
    const { message } = run(openAIResponsesStream(), [
      { type: 'response.created', response: { id: 'r', model: 'gpt-5', output: [] } },
      { type: 'response.output_item.done', item: { type: 'reasoning', id: 'rs_x', summary: [], encrypted_content: 'E' } },
      { type: 'response.output_text.delta', delta: 'Hi' },
      { type: 'response.failed', response: { id: 'r', error: { code: 'server_error', message: 'Oops' } } },
    ])
    expect(message?.parts).toEqual([{ type: 'reasoning', text: '{"id":"rs_x","encrypted_content":"E"}', redacted: true }, text('Hi')])
    expect(message?.error).toBe('server_error: Oops')
  })
})
