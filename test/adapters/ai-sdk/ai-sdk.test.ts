import { describe, expect, it } from 'vitest'
import { fromModelMessages } from '../../../src/adapters/ai-sdk/model-messages-from.ts'
import { toModelMessages } from '../../../src/adapters/ai-sdk/model-messages.ts'
import { call, left, msg, result, right, text, withoutIds } from '../support.ts'
import * as fx from '../fixtures/ai-sdk.ts'

describe('toModelMessages', () => {
  it('writes system, user, assistant and tool messages; inputs parsed; error results as error-text', () => {
    const h = [
      msg('system', [text('Be brief.')]),
      msg('user', [text('Weather?'), { type: 'image', data: fx.PNG, mediaType: 'image/png' }]),
      msg('assistant', [text('Checking.'), call('c1', 'weather', '{"city":"Paris"}')]),
      msg('tool', [result('c1', 'denied', { isError: true })]),
    ]
    expect(right(toModelMessages()(h)).request.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }, { type: 'image', image: fx.PNG, mediaType: 'image/png' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Paris' } },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'weather', output: { type: 'error-text', value: 'denied' } }] },
    ])
  })

  it('keeps each provider’s reasoning under its key', () => {
    const h = [
      msg('user', [text('q')]),
      msg('assistant', [{ type: 'reasoning', text: 'a', signature: 'A' }, { type: 'reasoning', text: 'R', redacted: true }, text('x')], {
        provider: 'anthropic',
      }),
      msg('user', [text('q')]),
      msg('assistant', [{ type: 'reasoning', text: 'g', signature: 'G' }, { type: 'reasoning', text: 'C', redacted: true }, call('c1', 'f')], {
        provider: 'google',
      }),
      msg('tool', [result('c1', 'r')]),
      msg('user', [text('q')]),
      msg('assistant', [{ type: 'reasoning', text: 'o', signature: '{"id":"rs_1","encrypted_content":"E"}' }, {
        type: 'reasoning',
        text: '{"id":"rs_2"}',
        redacted: true,
      }, text('y')], {
        provider: 'openai',
      }),
    ]
    const out = right(toModelMessages()(h)).request.messages
    expect(out[1]?.content).toEqual([
      { type: 'reasoning', text: 'a', providerOptions: { anthropic: { signature: 'A' } } },
      { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: 'R' } } },
      { type: 'text', text: 'x' },
    ])
    expect(out[3]?.content).toEqual([
      { type: 'reasoning', text: 'g', providerOptions: { google: { thoughtSignature: 'G' } } },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'f', input: {}, providerOptions: { google: { thoughtSignature: 'C' } } },
    ])
    expect(out[6]?.content).toEqual([
      { type: 'reasoning', text: 'o', providerOptions: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'E' } } },
      { type: 'reasoning', text: '', providerOptions: { openai: { itemId: 'rs_2' } } },
      { type: 'text', text: 'y' },
    ])
  })

  it('drops signatures and opaque reasoning of an unknown provider, with a note', () => {
    const a = msg('assistant', [{ type: 'reasoning', text: 'k', signature: 'S' }, { type: 'reasoning', text: 'O', redacted: true }, {
      type: 'reasoning',
      text: 'plain',
    }, text('t')])
    const { request, report } = right(toModelMessages()([msg('user', [text('q')]), a]))
    expect(request.messages[1]?.content).toEqual([{ type: 'reasoning', text: 'plain' }, { type: 'text', text: 't' }])
    expect(report.notes).toEqual([
      { kind: 'reasoning_dropped', messageId: a.id, reason: 'foreign' },
      { kind: 'reasoning_dropped', messageId: a.id, reason: 'opaque' },
    ])
  })

  it('fails on arguments that are not JSON, unless repairing', () => {
    const h = [msg('user', [text('q')]), msg('assistant', [call('c1', 'f', 'nope')]), msg('tool', [result('c1', 'r')])]
    expect(left(toModelMessages()(h)).kind).toBe('invalid_arguments')
    expect(right(toModelMessages({ repair: 'repair' })(h)).request.messages[1]?.content).toEqual([{
      type: 'tool-call',
      toolCallId: 'c1',
      toolName: 'f',
      input: {},
    }])
  })
})

describe('fromModelMessages', () => {
  it('decodes the documented messages: signatures from providerOptions, json and error outputs', () => {
    expect(withoutIds(right(fromModelMessages(fx.messages)))).toEqual([
      { role: 'system', kind: 'normal', parts: [text('You are a weather assistant.')] },
      {
        role: 'user',
        kind: 'normal',
        parts: [text('Weather here?'), { type: 'image', data: fx.PNG, mediaType: 'image/png' }, {
          type: 'file',
          url: 'https://example.com/report.pdf',
          mediaType: 'application/pdf',
          filename: 'report.pdf',
        }],
      },
      {
        role: 'assistant',
        kind: 'normal',
        provider: 'anthropic',
        parts: [
          { type: 'reasoning', text: 'Paris, probably.', signature: 'EqQBsig' },
          { type: 'reasoning', text: 'EmwKAhgBredacted', redacted: true },
          text('Checking.'),
          call('toolu_1', 'get_weather', '{"location":"Paris"}', 'complete'),
          call('toolu_2', 'get_time', '{}', 'error'),
        ],
      },
      {
        role: 'tool',
        kind: 'normal',
        parts: [
          { ...result('toolu_1', '{"celsius":15}', { name: 'get_weather' }), providerFields: { 'ai-sdk': { outputType: 'json' } } },
          result('toolu_2', 'Timezone database unavailable', { name: 'get_time', isError: true }),
        ],
      },
      { role: 'assistant', kind: 'normal', parts: [text('It is 15 degrees.')] },
    ])
  })

  it('reads Gemini and OpenAI reasoning and sends it back the same way', () => {
    const h = right(fromModelMessages(fx.providerReasoning))
    expect(h[1]).toMatchObject({
      provider: 'google',
      parts: [
        { type: 'reasoning', text: 'Think.', signature: 'CiQBthought' },
        { type: 'reasoning', text: 'CiQBcall', redacted: true },
        call('g1', 'get_weather', '{"location":"Paris"}'),
      ],
    })
    expect(h[4]).toMatchObject({
      provider: 'openai',
      parts: [
        { type: 'reasoning', text: 'Plan.', signature: '{"id":"rs_1","encrypted_content":"gAAAA1"}' },
        { type: 'reasoning', text: '{"id":"rs_2","encrypted_content":"gAAAA2"}', redacted: true },
        text('Rain.'),
      ],
    })
    expect(right(toModelMessages()(h)).request).toEqual(fx.providerReasoning)
  })

  it('reports bad fields by path', () => {
    const bad = left(
      fromModelMessages({
        messages: [{ role: 'user', content: [{ type: 'image', image: 42 }] }, {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'x', toolName: 'y', output: { type: 'weird' } }],
        }],
      }),
    )
    expect(bad.map((i) => i.path)).toEqual(['messages[0].content[0].image', 'messages[1].content[0].output.type'])
  })
})
