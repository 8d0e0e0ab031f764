import { describe, expect, it } from 'vitest'
import { fromOpenAIChat, fromOpenAIChatCompletion } from '../../../src/adapters/openai/chat-from.ts'
import { toOpenAIChat } from '../../../src/adapters/openai/chat.ts'
import { call, left, msg, result, right, text, withoutIds } from '../support.ts'
import * as fx from '../fixtures/openai-chat.ts'

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

describe('toOpenAIChat', () => {
  it('keeps system messages in place, tool calls with raw arguments, results as tool messages', () => {
    const h = [
      msg('system', [text('Be brief.')]),
      msg('user', [text('Weather?')]),
      msg('assistant', [text('Checking.'), call('c1', 'weather', '{ "city" : "Paris" }')], { provider: 'openai' }),
      msg('tool', [result('c1', '18C', { name: 'weather' })]),
      msg('assistant', [text('18C.')]),
    ]
    const { request, report } = right(toOpenAIChat()(h))
    expect(request.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{ "city" : "Paris" }' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '18C' },
      { role: 'assistant', content: '18C.' },
    ])
    expect(report.notes).toEqual([])
    expect(right(toOpenAIChat({ systemRole: 'developer' })(h)).request.messages[0]).toEqual({ role: 'developer', content: 'Be brief.' })
  })

  it('sends images as image_url (bytes as a data URL), audio as input_audio, other files as file data', () => {
    const u = msg('user', [
      text('Look'),
      { type: 'image', data: PNG },
      { type: 'image', url: 'https://example.com/a.jpg' },
      { type: 'file', data: new Uint8Array([1, 2]), mediaType: 'audio/wav' },
      { type: 'file', data: new Uint8Array([37, 80]), mediaType: 'application/pdf', filename: 'a.pdf' },
      { type: 'file', url: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
    ])
    const { request, report } = right(toOpenAIChat()([u]))
    expect(request.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Look' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        { type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } },
        { type: 'input_audio', input_audio: { data: 'AQI=', format: 'wav' } },
        { type: 'file', file: { file_data: 'data:application/pdf;base64,JVA=', filename: 'a.pdf' } },
      ],
    })
    expect(report.notes).toEqual([{ kind: 'omitted_part', messageId: u.id, part: 'file', reason: 'a file by URL (Chat Completions takes file bytes only)' }])
  })

  it('has no field for reasoning: foreign by default, reasoning_content on request', () => {
    const a = msg('assistant', [{ type: 'reasoning', text: 'think' }, { type: 'reasoning', text: 'signed', signature: 's' }, text('ok')], {
      provider: 'openai',
    })
    const h = [msg('user', [text('q')]), a]
    expect(right(toOpenAIChat()(h)).request.messages[1]).toEqual({ role: 'assistant', content: 'ok' })
    const compat = right(toOpenAIChat({ reasoningField: 'reasoning_content' })(h))
    expect(compat.request.messages[1]).toEqual({ role: 'assistant', content: 'ok', reasoning_content: 'think' })
    expect(compat.report.notes).toEqual([{ kind: 'reasoning_dropped', messageId: a.id, reason: 'foreign' }])
  })

  it('reports an error flag it cannot carry, and drops foreign reasoning', () => {
    const empty = msg('assistant', [{ type: 'reasoning', text: 'x', signature: 's' }, text('y')], { provider: 'anthropic' })
    const h = [msg('user', [text('q')]), msg('assistant', [call('c1', 'ls')]), msg('tool', [result('c1', 'denied', { isError: true })]), empty]
    const { report } = right(toOpenAIChat()(h))
    expect(report.notes).toContainEqual({ kind: 'error_flag_lost', messageId: h[2]?.id, toolCallId: 'c1' })
    const none = right(toOpenAIChat()([msg('user', [text('q')]), msg('assistant', [{ type: 'reasoning', text: 'x' }, text('z')], { provider: 'google' })]))
    expect(none.request.messages[1]).toEqual({ role: 'assistant', content: 'z' })
  })

  it('fails on unanswered tool calls unless asked to repair', () => {
    const h = [msg('user', [text('q')]), msg('assistant', [call('c1', 'ls')])]
    expect(left(toOpenAIChat()(h)).kind).toBe('invalid_tool_pairs')
    const { request, report } = right(toOpenAIChat({ repair: 'repair' })(h))
    expect(report.repair?.addedResults).toEqual(['c1'])
    expect(request.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'c1' })
  })
})

describe('fromOpenAIChat', () => {
  it('decodes the documented request', () => {
    expect(withoutIds(right(fromOpenAIChat(fx.request)))).toEqual([
      {
        role: 'system',
        kind: 'normal',
        parts: [text('You are a weather assistant.')],
        metadata: { providerFields: { openai: { message: { role: 'developer' } } } },
      },
      {
        role: 'user',
        kind: 'normal',
        parts: [
          text('Weather here?'),
          { type: 'image', data: PNG, mediaType: 'image/png' },
          { type: 'image', url: 'https://example.com/street.jpg', providerFields: { openai: { detail: 'low' } } },
        ],
      },
      { role: 'assistant', kind: 'normal', provider: 'openai', parts: [text('Checking.'), call('call_1', 'get_weather', '{"location":"Paris"}')] },
      {
        role: 'tool',
        kind: 'normal',
        parts: [{
          ...result('call_1', '15 degrees', { name: 'get_weather' }),
          providerFields: { openai: { content: [{ type: 'text', text: '15 degrees' }] } },
        }],
      },
      { role: 'assistant', kind: 'normal', provider: 'openai', parts: [text('It is 15 degrees.')] },
    ])
  })

  it('reads reasoning_content from compatible servers', () => {
    const h = right(fromOpenAIChat({ messages: [{ role: 'assistant', content: 'a', reasoning_content: 'because' }] }))
    expect(h[0]?.parts).toEqual([{ type: 'reasoning', text: 'because' }, text('a')])
  })

  it('reports bad fields by path', () => {
    const bad = left(
      fromOpenAIChat({
        messages: [{ role: 'user', content: [{ type: 'video', url: 'x' }] }, { role: 'tool', content: 'x' }, { role: 'bogus', name: 'f', content: '' }],
      }),
    )
    expect(bad.map((i) => i.path)).toEqual(['messages[0].content[0].type', 'messages[1].tool_call_id', 'messages[2].role'])
  })
})

describe('fromOpenAIChatCompletion', () => {
  it('decodes parallel tool calls: raw arguments, tool_use, pending calls, tokens', () => {
    expect(right(fromOpenAIChatCompletion(fx.toolCallsCompletion))).toEqual({
      id: 'chatcmpl-abc123',
      role: 'assistant',
      kind: 'normal',
      provider: 'openai',
      model: 'gpt-4.1-2025-04-14',
      tokens: { total: 17, thinking: 0 },
      parts: [
        call('call_DdmO9pD3xa9XTPNJ32zg2hcA', 'get_weather', '{"location":"Paris, France"}', 'pending'),
        call('call_ABCD', 'get_time', '{"tz": "Europe/Paris"}', 'pending'),
        { type: 'finish', reason: 'tool_use' },
      ],
    })
  })

  it('maps length to max_tokens and counts reasoning tokens', () => {
    const m = right(fromOpenAIChatCompletion(fx.lengthCompletion))
    expect(m.parts).toEqual([text('The answer begins'), { type: 'finish', reason: 'max_tokens' }])
    expect(m.tokens).toEqual({ total: 64, thinking: 48 })
  })

  it('turns an error body into a message with its error; a response without choices is a failure', () => {
    expect(right(fromOpenAIChatCompletion(fx.invalidRequestError))).toMatchObject({
      role: 'assistant',
      parts: [],
      error: "invalid_request_error: Invalid 'messages[2].tool_call_id': no tool call found.",
    })
    expect(left(fromOpenAIChatCompletion({ id: 'x', choices: [] }))[0]?.path).toBe('choices')
  })
})
