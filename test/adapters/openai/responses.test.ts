import { describe, expect, it } from 'vitest'
import { fromOpenAIResponse, fromOpenAIResponses } from '../../../src/adapters/openai/responses-from.ts'
import { toOpenAIResponses } from '../../../src/adapters/openai/responses.ts'
import { call, left, msg, result, right, text, withoutIds } from '../support.ts'
import * as fx from '../fixtures/openai-responses.ts'

const token = (id: string, encrypted?: string): string => JSON.stringify(encrypted === undefined ? { id } : { id, encrypted_content: encrypted })

describe('toOpenAIResponses', () => {
  it('writes messages, reasoning, function calls and outputs as items, in order', () => {
    const h = [
      msg('system', [text('Be brief.')]),
      msg('user', [text('Weather?')]),
      msg('assistant', [
        { type: 'reasoning', text: 'Need data.', signature: token('rs_1', 'gAAA') },
        text('Checking.'),
        call('c1', 'weather', '{"city":"Paris"}'),
      ], {
        provider: 'openai',
      }),
      msg('tool', [result('c1', '18C')]),
      msg('assistant', [{ type: 'reasoning', text: token('rs_2'), redacted: true }, text('18C.')], { provider: 'openai' }),
    ]
    const { request, report } = right(toOpenAIResponses({ systemRole: 'developer' })(h))
    expect(request.input).toEqual([
      { type: 'message', role: 'developer', content: 'Be brief.' },
      { type: 'message', role: 'user', content: 'Weather?' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Need data.' }], encrypted_content: 'gAAA' },
      { type: 'message', role: 'assistant', content: 'Checking.' },
      { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'c1', output: '18C' },
      { type: 'reasoning', id: 'rs_2', summary: [] },
      { type: 'message', role: 'assistant', content: '18C.' },
    ])
    expect(report.notes).toEqual([])
  })

  it('sends reasoning items back only to OpenAI; other reasoning follows foreignReasoning', () => {
    const anthropic = msg('assistant', [{ type: 'reasoning', text: 'x', signature: 'anthropic-sig' }, text('a')], { provider: 'anthropic' })
    const unsigned = msg('assistant', [{ type: 'reasoning', text: 'y' }, text('b')], { provider: 'openai' })
    const h = [msg('user', [text('q')]), anthropic, msg('user', [text('q2')]), unsigned]
    const drop = right(toOpenAIResponses()(h))
    expect(drop.request.input.filter((i) => i.type === 'reasoning')).toEqual([])
    expect(drop.report.notes).toEqual([
      { kind: 'reasoning_dropped', messageId: anthropic.id, reason: 'foreign' },
      { kind: 'reasoning_dropped', messageId: unsigned.id, reason: 'unsigned' },
    ])
    const asText = right(toOpenAIResponses({ foreignReasoning: 'text' })(h))
    expect(asText.request.input[1]).toEqual({ type: 'message', role: 'assistant', content: '<thinking>\nx\n</thinking>' })
  })

  it('keeps call ids within 64 characters, consistently', () => {
    const long = 'c'.repeat(80)
    const { request, report } = right(toOpenAIResponses()([msg('user', [text('q')]), msg('assistant', [call(long, 'ls')]), msg('tool', [result(long, 'r')])]))
    const ids = request.input.flatMap((i) => ('call_id' in i ? [i.call_id] : []))
    expect(ids).toEqual(['c'.repeat(56), 'c'.repeat(56)])
    expect(report.notes).toEqual([{ kind: 'id_renamed', from: long, to: 'c'.repeat(56) }])
  })

  it('sends images and files as input content, a file by bytes with a filename from its media type', () => {
    const { request, report } = right(
      toOpenAIResponses()([
        msg('user', [
          { type: 'image', data: new Uint8Array([0xff, 0xd8, 0xff, 0]) },
          { type: 'file', url: 'https://example.com/a.pdf', mediaType: 'application/pdf', filename: 'a.pdf' },
          { type: 'file', data: new Uint8Array([1]), mediaType: 'application/pdf' },
        ]),
      ]),
    )
    expect(request.input[0]).toEqual({
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_image', image_url: 'data:image/jpeg;base64,/9j/AA==', detail: 'auto' },
        { type: 'input_file', file_url: 'https://example.com/a.pdf', filename: 'a.pdf' },
        { type: 'input_file', file_data: 'data:application/pdf;base64,AQ==', filename: 'file.pdf' },
      ],
    })
    expect(report.notes).toEqual([{ kind: 'request_fixed', rule: 'openai-responses/file-filename', path: 'input[0].content[2].filename', action: 'filled' }])
  })
})

describe('fromOpenAIResponses', () => {
  it('decodes the documented input list: reasoning items kept whole, consecutive assistant items merged', () => {
    expect(withoutIds(right(fromOpenAIResponses(fx.request)))).toEqual([
      {
        role: 'system',
        kind: 'normal',
        parts: [text('You are a weather assistant.')],
        metadata: { providerFields: { openai: { item: { role: 'developer' } } } },
      },
      {
        role: 'user',
        kind: 'normal',
        metadata: { providerFields: { openai: { item: { role: 'user' } } } },
        parts: [text('Weather in Paris?'), { type: 'image', url: 'https://example.com/p.png' }],
      },
      {
        role: 'assistant',
        kind: 'normal',
        provider: 'openai',
        parts: [
          { type: 'reasoning', text: 'Need weather.', signature: token('rs_1', 'gAAAAencrypted1') },
          call('call_1', 'get_weather', '{"location":"Paris"}'),
        ],
      },
      { role: 'tool', kind: 'normal', parts: [result('call_1', '15 degrees', { name: 'get_weather' })] },
      {
        role: 'assistant',
        kind: 'normal',
        provider: 'openai',
        parts: [{ type: 'reasoning', text: token('rs_2', 'gAAAAencrypted2'), redacted: true }, text('It is 15 degrees.')],
      },
    ])
  })

  it('round-trips the documented input list through toOpenAIResponses', () => {
    const h = right(fromOpenAIResponses(fx.request))
    const back = right(toOpenAIResponses({ systemRole: 'developer' })(h)).request
    expect(back.input.filter((i) => i.type === 'reasoning')).toEqual(fx.request.input.filter((i) => 'type' in i && i.type === 'reasoning'))
    expect(withoutIds(right(fromOpenAIResponses(back)))).toEqual(withoutIds(h))
  })

  it('reads a string input as one user message, and reports unknown items', () => {
    expect(withoutIds(right(fromOpenAIResponses({ input: 'Hi' })))).toEqual([{ role: 'user', kind: 'normal', parts: [text('Hi')] }])
    expect(left(fromOpenAIResponses({ input: [{ type: 'bogus_call', id: 'ws' }] }))[0]).toMatchObject({ path: 'input[0].type' })
  })
})

describe('fromOpenAIResponse', () => {
  it('decodes reasoning and a function call, with tool_use and reasoning tokens', () => {
    expect(right(fromOpenAIResponse(fx.functionCallResponse))).toEqual({
      id: 'resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b',
      role: 'assistant',
      kind: 'normal',
      provider: 'openai',
      model: 'o4-mini-2025-04-16',
      tokens: { total: 310, thinking: 256 },
      parts: [
        {
          type: 'reasoning',
          text: '**Checking the weather**\n\nThe user asks about Paris.',
          signature: token('rs_6820f383d7c08191846711c5df8233bc0ac5ba57aafcbac7', 'gAAAAABoISQ24OyVRYbkYfukvQ'),
        },
        {
          ...call('call_12345xyz', 'get_weather', '{"location":"Paris, France"}', 'pending'),
          providerFields: { openai: { type: 'function_call', id: 'fc_12345xyz', status: 'completed' } },
        },
        { type: 'finish', reason: 'tool_use' },
      ],
    })
  })

  it('decodes encrypted reasoning without summary as redacted, a message as text', () => {
    const m = right(fromOpenAIResponse(fx.messageResponse))
    expect(m.parts).toEqual([
      { type: 'reasoning', text: token('rs_nosummary', 'gAAAAABencrypted'), redacted: true },
      {
        ...text('It is 15 degrees in Paris.'),
        providerFields: {
          openai: {
            item: { type: 'message', id: 'msg_67ccd2bf17f0819081ff3bb2cf6508e6', status: 'completed', role: 'assistant' },
            type: 'output_text',
            annotations: [],
          },
        },
      },
      { type: 'finish', reason: 'end_turn' },
    ])
  })

  it('maps incomplete and failed responses', () => {
    expect(right(fromOpenAIResponse(fx.incompleteResponse)).parts.at(-1)).toEqual({ type: 'finish', reason: 'max_tokens' })
    expect(right(fromOpenAIResponse(fx.failedResponse)).error).toBe('server_error: The server had an error while processing your request.')
    expect(right(fromOpenAIResponse({ error: { message: 'Bad key', type: 'invalid_request_error' } })).error).toBe('invalid_request_error: Bad key')
  })
})
