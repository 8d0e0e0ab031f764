import { describe, expect, it } from 'vitest'
import { fromAnthropic, fromAnthropicMessage } from '../../../src/adapters/anthropic/messages-from.ts'
import { toAnthropic } from '../../../src/adapters/anthropic/messages.ts'
import type { AdapterFailure } from '../../../src/adapters/types.ts'
import { call, left, msg, result, right, text, withoutIds } from '../support.ts'
import * as fx from '../fixtures/anthropic.ts'
import { deepFreeze } from '../../support/arbitraries.ts'

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

describe('toAnthropic', () => {
  it('puts the system prompt apart and tool results in the user turn after the tool use', () => {
    const h = deepFreeze([
      msg('system', [text('Be brief.')]),
      msg('user', [text('Weather?')]),
      msg('assistant', [text('Checking.'), call('c1', 'weather', '{"city":"Paris"}')], { provider: 'anthropic' }),
      msg('tool', [result('c1', '18C', { name: 'weather' })]),
      msg('tool', [result('c2', 'x')]),
    ])
    const bad = left(toAnthropic()(h)) as Extract<AdapterFailure, { kind: 'invalid_tool_pairs' }>
    expect(bad.kind).toBe('invalid_tool_pairs')
    expect(bad.issues.map((i) => i.kind)).toEqual(['orphan_result'])
    const { request, report } = right(toAnthropic({ repair: 'repair' })(h))
    expect(request).toEqual({
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, { type: 'tool_use', id: 'c1', name: 'weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: '18C' }] },
      ],
    })
    expect(report.repair?.droppedResults).toEqual(['c2'])
  })

  it('merges consecutive turns of one role, tool results first, and marks error results', () => {
    const h = [
      msg('user', [text('a')]),
      msg('assistant', [call('c1', 'ls'), call('c2', 'cat')]),
      msg('tool', [result('c1', 'one')]),
      msg('tool', [result('c2', 'boom', { isError: true })]),
      msg('user', [text('then?')]),
      msg('user', [text('well?')]),
    ]
    const { request } = right(toAnthropic()(h))
    expect(request.messages).toHaveLength(3)
    expect(request.messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'c1', content: 'one' },
        { type: 'tool_result', tool_use_id: 'c2', content: 'boom', is_error: true },
        { type: 'text', text: 'then?' },
        { type: 'text', text: 'well?' },
      ],
    })
  })

  it('returns thinking and redacted thinking to Anthropic unmodified, and only to the model that produced them', () => {
    const a = msg(
      'assistant',
      [
        { type: 'reasoning', text: 'hmm', signature: 'SIG/+=' },
        { type: 'reasoning', text: 'OPAQUE', redacted: true },
        text('done'),
      ],
      { provider: 'anthropic', model: 'claude-opus-4-1' },
    )
    const h = [msg('user', [text('q')]), a]
    const same = right(toAnthropic({ model: 'claude-opus-4-1' })(h)).request.messages[1]
    expect(same?.content).toEqual([
      { type: 'thinking', thinking: 'hmm', signature: 'SIG/+=' },
      { type: 'redacted_thinking', data: 'OPAQUE' },
      { type: 'text', text: 'done' },
    ])
    const other = right(toAnthropic({ model: 'claude-sonnet-4-5' })(h))
    expect(other.request.messages[1]?.content).toBe('done')
    expect(other.report.notes).toEqual([
      { kind: 'reasoning_dropped', messageId: a.id, reason: 'foreign' },
      { kind: 'reasoning_dropped', messageId: a.id, reason: 'opaque' },
    ])
    const asText = right(toAnthropic({ model: 'claude-sonnet-4-5', foreignReasoning: 'text' })(h))
    expect(asText.request.messages[1]?.content).toEqual([
      { type: 'text', text: '<thinking>\nhmm\n</thinking>' },
      { type: 'text', text: 'done' },
    ])
  })

  it('never sends another provider’s signatures, nor unsigned reasoning as thinking', () => {
    const h = [
      msg('user', [text('q')]),
      msg('assistant', [{ type: 'reasoning', text: 'gemini thought', signature: 'g-sig' }, text('a')], { provider: 'google' }),
      msg('user', [text('q2')]),
      msg('assistant', [{ type: 'reasoning', text: 'plain' }, text('b')], { provider: 'anthropic' }),
    ]
    const { request, report } = right(toAnthropic({ foreignReasoning: 'text' })(h))
    expect(JSON.stringify(request)).not.toContain('g-sig')
    expect(request.messages[1]?.content).toEqual([{ type: 'text', text: '<thinking>\ngemini thought\n</thinking>' }, { type: 'text', text: 'a' }])
    expect(request.messages[3]?.content).toEqual([{ type: 'text', text: '<thinking>\nplain\n</thinking>' }, { type: 'text', text: 'b' }])
    expect(report.notes.map((n) => n.kind)).toEqual(['reasoning_as_text', 'reasoning_as_text'])
  })

  it('makes tool-call ids valid, the same for a call and its result, without collisions', () => {
    const h = [
      msg('user', [text('q')]),
      msg('assistant', [call('call.1', 'a'), call('call_1', 'b'), call('', 'c')]),
      msg('tool', [result('call.1', 'x'), result('call_1', 'y'), result('', 'z')]),
    ]
    const { request, report } = right(toAnthropic()(h))
    const ids = (request.messages[1]?.content as Array<{ id: string }>).map((b) => b.id)
    const resultIds = (request.messages[2]?.content as Array<{ tool_use_id: string }>).map((b) => b.tool_use_id)
    expect(ids).toEqual(['call_1_2', 'call_1', 'call'])
    expect(resultIds).toEqual(ids)
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/)
    expect(report.notes).toEqual([
      { kind: 'id_renamed', from: 'call.1', to: 'call_1_2' },
      { kind: 'id_renamed', from: '', to: 'call' },
    ])
  })

  it('sends images as base64 or URL sources and PDFs as documents; reports what it cannot carry', () => {
    const u = msg('user', [
      { type: 'image', data: PNG },
      { type: 'image', url: 'https://example.com/a.jpg', mediaType: 'image/jpeg' },
      { type: 'image', data: new Uint8Array([1, 2, 3]), mediaType: 'image/bmp' },
      { type: 'file', data: new Uint8Array([37, 80, 68, 70]), mediaType: 'application/pdf', filename: 'a.pdf' },
      { type: 'file', data: new TextEncoder().encode('héllo'), mediaType: 'text/plain' },
      { type: 'file', url: 'https://example.com/a.mp3', mediaType: 'audio/mpeg' },
    ])
    const { request, report } = right(toAnthropic()([u]))
    expect(request.messages[0]?.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERg==' }, title: 'a.pdf' },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'héllo' } },
    ])
    expect(report.notes.map((n) => (n.kind === 'omitted_part' ? n.part : n.kind))).toEqual(['image', 'file'])
  })

  it('leaves out what forLLM leaves out, and a later system message goes out as user text', () => {
    const display = msg('assistant', [text('Saved.')], { kind: 'display' })
    const late = msg('system', [text('Now be verbose.')])
    const { request, report } = right(toAnthropic()([msg('system', [text('A')]), msg('system', [text('B')]), msg('user', [text('q')]), display, late]))
    expect(request.system).toEqual([
      { type: 'text', text: 'A' },
      { type: 'text', text: 'B' },
    ])
    expect(request.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'q' }, { type: 'text', text: 'Now be verbose.' }] }])
    expect(report.notes).toEqual([
      { kind: 'omitted_message', messageId: display.id, reason: 'not_for_llm' },
      { kind: 'system_as_user', messageId: late.id },
    ])
  })

  it('fails on arguments that are not a JSON object, or replaces them when repairing', () => {
    const a = msg('assistant', [call('c1', 'ls', '{"pa')])
    const h = [msg('user', [text('q')]), a, msg('tool', [result('c1', 'r')])]
    expect(left(toAnthropic()(h))).toEqual({ kind: 'invalid_arguments', messageId: a.id, toolCallId: 'c1', arguments: '{"pa' })
    const { request, report } = right(toAnthropic({ repair: 'repair' })(h))
    expect(request.messages[1]?.content).toEqual([{ type: 'tool_use', id: 'c1', name: 'ls', input: {} }])
    expect(report.notes).toEqual([{ kind: 'arguments_replaced', messageId: a.id, toolCallId: 'c1' }])
  })
})

describe('fromAnthropic', () => {
  it('decodes the documented request: system, images, signed thinking, tool results with is_error', () => {
    const h = right(fromAnthropic(fx.request))
    expect(withoutIds(h)).toEqual([
      { role: 'system', kind: 'normal', parts: [text('You are a weather assistant.')] },
      {
        role: 'user',
        kind: 'normal',
        parts: [
          text('What is the weather where this photo was taken?'),
          { type: 'image', data: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), mediaType: 'image/png' },
          { type: 'image', url: 'https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg' },
        ],
      },
      {
        role: 'assistant',
        kind: 'normal',
        provider: 'anthropic',
        parts: [
          { type: 'reasoning', text: 'It looks like Paris.', signature: 'EqQBCgIYAhIMsig1' },
          call('toolu_01', 'get_weather', '{"location":"Paris"}', 'complete'),
          call('toolu_02', 'get_time', '{"timezone":"Europe/Paris"}', 'error'),
        ],
      },
      { role: 'tool', kind: 'normal', parts: [result('toolu_01', '15 degrees', { name: 'get_weather' })] },
      { role: 'tool', kind: 'normal', parts: [result('toolu_02', 'Timezone database unavailable', { name: 'get_time', isError: true })] },
      { role: 'user', kind: 'normal', parts: [text('Also, is it raining?')] },
      { role: 'assistant', kind: 'normal', provider: 'anthropic', parts: [text('It is 15 degrees and dry in Paris.')] },
    ])
  })

  it('round-trips the documented request through toAnthropic', () => {
    const h = right(fromAnthropic(fx.request))
    const back = right(toAnthropic()(h)).request
    expect(right(fromAnthropic(back)).map(({ id: _, ...m }) => m)).toEqual(withoutIds(h))
    expect(back.messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_01', content: '15 degrees' },
        { type: 'tool_result', tool_use_id: 'toolu_02', content: 'Timezone database unavailable', is_error: true },
        { type: 'text', text: 'Also, is it raining?' },
      ],
    })
  })

  it('keeps images inside a tool result in its content', () => {
    const h = right(
      fromAnthropic({
        messages: [
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'screenshot', input: {} }] },
          {
            role: 'user',
            content: [{
              type: 'tool_result',
              tool_use_id: 't1',
              content: [{ type: 'text', text: 'shot' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: fx.PNG_BASE64 } }],
            }],
          },
        ],
      }),
    )
    expect(h[1]?.parts).toEqual([
      { ...result('t1', 'shot', { name: 'screenshot' }), content: [{ type: 'text', text: 'shot' }, { type: 'image', data: PNG, mediaType: 'image/png' }] },
    ])
    const back = right(toAnthropic()(h)).request.messages[1]
    expect(back).toEqual({
      role: 'user',
      content: [{
        type: 'tool_result',
        tool_use_id: 't1',
        content: [{ type: 'text', text: 'shot' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: fx.PNG_BASE64 } }],
      }],
    })
  })

  it('reports every bad field by path and never throws', () => {
    const bad = left(
      fromAnthropic({
        messages: [
          { role: 'bot', content: 'x' },
          { role: 'user', content: [{ type: 'text' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: '!!' } }] },
        ],
      }),
    )
    expect(bad.map((i) => i.path)).toEqual(['messages[0].role', 'messages[1].content[0].text', 'messages[1].content[1].source.data'])
    expect(left(fromAnthropic(null))[0]?.path).toBe('')
    expect(left(fromAnthropic({ messages: 'no' }))[0]?.path).toBe('messages')
  })
})

describe('fromAnthropicMessage', () => {
  it('decodes a tool-use response with thinking: signature kept, stop reason, model, tokens; calls pending', () => {
    const m = right(fromAnthropicMessage(fx.toolUseResponse))
    expect(m).toEqual({
      id: 'msg_01Aq9w938a90dw8q',
      role: 'assistant',
      kind: 'normal',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      tokens: { total: 89 },
      parts: [
        {
          type: 'reasoning',
          text: 'The user wants the weather in Paris. I should call get_weather.',
          signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
        },
        text("I'll check the current weather in Paris."),
        call('toolu_01A09q90qw90lq917835lq9', 'get_weather', '{"location":"Paris, France","unit":"celsius"}', 'pending'),
        { type: 'finish', reason: 'tool_use' },
      ],
    })
  })

  it('decodes redacted thinking as redacted reasoning and goes back unmodified', () => {
    const m = right(fromAnthropicMessage(fx.redactedResponse))
    expect(m.parts[1]).toEqual({ type: 'reasoning', text: fx.redactedResponse.content[1].data, redacted: true })
    const back = right(toAnthropic()([msg('user', [text('q')]), m])).request.messages[1]
    expect(back?.content).toEqual([
      { type: 'thinking', thinking: 'Let me work through this.', signature: 'WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve' },
      { type: 'redacted_thinking', data: fx.redactedResponse.content[1].data },
      { type: 'text', text: 'Here is the answer.' },
    ])
  })

  it('turns an error body into an assistant message with its error', () => {
    const m = right(fromAnthropicMessage(fx.overloadedError))
    expect(m).toMatchObject({ role: 'assistant', parts: [], provider: 'anthropic', error: 'overloaded_error: Overloaded' })
  })
})
