import { describe, expect, it } from 'vitest'
import { fromGemini, fromGeminiResponse } from '../../../src/adapters/gemini/contents-from.ts'
import { toGemini } from '../../../src/adapters/gemini/contents.ts'
import { call, left, msg, result, right, text, withoutIds } from '../support.ts'
import * as fx from '../fixtures/gemini.ts'

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const carrier = (signature: string) => ({ type: 'reasoning' as const, text: signature, redacted: true })

describe('toGemini', () => {
  it('writes systemInstruction, user/model contents, functionCall and functionResponse parts', () => {
    const h = [
      msg('system', [text('Be brief.')]),
      msg('user', [text('Weather?')]),
      msg('assistant', [call('c1', 'weather', '{"city":"Paris"}'), call('c2', 'time')], { provider: 'google' }),
      msg('tool', [result('c1', '18C')]),
      msg('tool', [result('c2', 'no tz', { isError: true, name: 'time' })]),
      msg('user', [text('thanks')]),
    ]
    const { request } = right(toGemini()(h))
    expect(request).toEqual({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Weather?' }] },
        {
          role: 'model',
          parts: [{ functionCall: { id: 'c1', name: 'weather', args: { city: 'Paris' } } }, { functionCall: { id: 'c2', name: 'time', args: {} } }],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'c1', name: 'weather', response: { output: '18C' } } },
            { functionResponse: { id: 'c2', name: 'time', response: { error: 'no tz' } } },
            { text: 'thanks' },
          ],
        },
      ],
    })
  })

  it('returns thoughts and signatures to Google only, each signature on the part it came with', () => {
    const a = msg(
      'assistant',
      [{ type: 'reasoning', text: 'plan', signature: 'S0' }, carrier('S1'), call('c1', 'weather'), carrier('S2'), carrier('S3'), text('x'), carrier('S4')],
      { provider: 'google', model: 'gemini-3-pro' },
    )
    const h = [msg('user', [text('q')]), a, msg('tool', [result('c1', 'r')])]
    const mine = right(toGemini({ model: 'gemini-3-pro' })(h)).request.contents[1]
    expect(mine?.parts).toEqual([
      { text: 'plan', thought: true, thoughtSignature: 'S0' },
      { functionCall: { id: 'c1', name: 'weather', args: {} }, thoughtSignature: 'S1' },
      { text: '', thoughtSignature: 'S2' },
      { text: 'x', thoughtSignature: 'S3' },
      { text: '', thoughtSignature: 'S4' },
    ])
    const other = right(toGemini({ model: 'gemini-2.5-flash', foreignReasoning: 'text' })(h))
    expect(other.request.contents[1]?.parts).toEqual([{ text: '<thinking>\nplan\n</thinking>' }, { functionCall: { id: 'c1', name: 'weather', args: {} } }, {
      text: 'x',
    }])
    expect(other.report.notes.filter((n) => n.kind === 'reasoning_dropped')).toHaveLength(4)
  })

  it('sends images as inlineData or fileData', () => {
    const { request } = right(
      toGemini()([
        msg('user', [{ type: 'image', data: PNG }, { type: 'image', url: 'gs://b/a.jpg', mediaType: 'image/jpeg' }, {
          type: 'file',
          url: 'https://x/a.pdf',
          mediaType: 'application/pdf',
        }]),
      ]),
    )
    expect(request.contents[0]?.parts).toEqual([
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { fileData: { fileUri: 'gs://b/a.jpg', mimeType: 'image/jpeg' } },
      { fileData: { fileUri: 'https://x/a.pdf', mimeType: 'application/pdf' } },
    ])
  })
})

describe('fromGemini', () => {
  it('decodes the documented request; responses without ids pair with their calls by name', () => {
    const h = right(fromGemini(fx.request))
    expect(withoutIds(h)).toEqual([
      { role: 'system', kind: 'normal', parts: [text('You are a weather assistant.')] },
      { role: 'user', kind: 'normal', parts: [text('Weather here?'), { type: 'image', data: PNG, mediaType: 'image/png' }] },
      {
        role: 'assistant',
        kind: 'normal',
        provider: 'google',
        parts: [carrier('CiQBreq1'), call('get_weather-0', 'get_weather', '{"location":"Paris"}', 'complete'), call('get_time-1', 'get_time', '{}', 'error')],
      },
      { role: 'tool', kind: 'normal', parts: [result('get_weather-0', '15 degrees', { name: 'get_weather' })] },
      { role: 'tool', kind: 'normal', parts: [result('get_time-1', 'Timezone database unavailable', { name: 'get_time', isError: true })] },
      { role: 'assistant', kind: 'normal', provider: 'google', parts: [carrier('CiQBreq2'), text('It is 15 degrees.')] },
    ])
  })

  it('sends the signatures back where they were', () => {
    const back = right(toGemini()(right(fromGemini(fx.request)))).request
    expect(back.contents[1]?.parts[0]).toEqual({
      functionCall: { id: 'get_weather-0', name: 'get_weather', args: { location: 'Paris' } },
      thoughtSignature: 'CiQBreq1',
    })
    expect(back.contents[3]?.parts).toEqual([{ text: 'It is 15 degrees.', thoughtSignature: 'CiQBreq2' }])
  })

  it('keeps a function response that is not output or error as JSON text', () => {
    const h = right(
      fromGemini({
        contents: [
          { role: 'model', parts: [{ functionCall: { id: 'f1', name: 'f', args: {} } }] },
          { role: 'user', parts: [{ functionResponse: { id: 'f1', name: 'f', response: { celsius: 15, rain: false } } }] },
        ],
      }),
    )
    expect(h[1]?.parts).toEqual([{ ...result('f1', '{"celsius":15,"rain":false}', { name: 'f' }), providerFields: { google: { responseJson: true } } }])
    expect(right(toGemini()(h)).request.contents[1]?.parts).toEqual([{ functionResponse: { id: 'f1', name: 'f', response: { celsius: 15, rain: false } } }])
  })

  it('reports bad fields by path', () => {
    const bad = left(fromGemini({ contents: [{ role: 'robot', parts: [] }, { role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: '@@' } }] }] }))
    expect(bad.map((i) => i.path)).toEqual(['contents[0].role', 'contents[1].parts[0].inlineData.data'])
  })
})

describe('fromGeminiResponse', () => {
  it('decodes thoughts, a signed call and an unsigned parallel call; tool_use; tokens with thoughts', () => {
    expect(right(fromGeminiResponse(fx.functionCallResponse))).toEqual({
      id: 'resp-gemini-1',
      role: 'assistant',
      kind: 'normal',
      provider: 'google',
      model: 'gemini-2.5-pro',
      tokens: { total: 144, thinking: 120 },
      parts: [
        { type: 'reasoning', text: '**Planning the lookup**\nI will check the weather and the time.' },
        carrier('CiQB0e2Kb3dRh+sig1'),
        call('resp-gemini-1-get_weather-0', 'get_weather', '{"location":"Paris"}', 'pending'),
        call('resp-gemini-1-get_time-1', 'get_time', '{"timezone":"Europe/Paris"}', 'pending'),
        { type: 'finish', reason: 'tool_use' },
      ],
    })
  })

  it('keeps a signature on text, maps safety stops, blocked prompts and errors', () => {
    expect(right(fromGeminiResponse(fx.textResponse)).parts).toEqual([carrier('CiQBsig2'), text('It is 15 degrees.'), { type: 'finish', reason: 'end_turn' }])
    expect(right(fromGeminiResponse(fx.safetyResponse)).parts).toEqual([{ type: 'finish', reason: 'content_filter' }])
    expect(right(fromGeminiResponse(fx.blockedResponse)).error).toBe('blocked: SAFETY')
    expect(right(fromGeminiResponse(fx.invalidArgumentError)).error).toBe(
      'INVALID_ARGUMENT: Function call is missing a thought_signature in functionCall parts.',
    )
  })
})
