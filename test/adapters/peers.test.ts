/**
 * Cases from the peers' own conversion suites (the AI SDK's provider converters, vercel/ai
 * `packages/{anthropic,google,openai}/src/convert-to-*.test.ts` and the Google provider's Gemini 3
 * signature fix; pi-mono `packages/ai/test/` transform-messages and cross-provider hand-off), restated
 * as input and expected output in chatfold's terms. Where chatfold differs on purpose, the case says so.
 */
import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { toAnthropic } from '../../src/adapters/anthropic/messages.ts'
import { toGemini } from '../../src/adapters/gemini/contents.ts'
import { toOpenAIChat } from '../../src/adapters/openai/chat.ts'
import { checkRequest } from '../../src/adapters/rules.ts'
import { call, msg, result, right, text } from './support.ts'

describe('vercel/ai Anthropic converter cases', () => {
  it('trims the trailing whitespace of the last assistant message, and only of the last', () => {
    const h = [msg('user', [text('q')]), msg('assistant', [text('a  ')]), msg('user', [text('q2')]), msg('assistant', [text('prefill \n')])]
    const { request } = right(toAnthropic()(h))
    expect(request.messages.map((m) => m.content)).toEqual(['q', 'a  ', 'q2', 'prefill'])
  })

  it('makes several system messages one system array of text blocks', () => {
    const { request } = right(toAnthropic()([msg('system', [text('one')]), msg('system', [text('two')]), msg('user', [text('hi')])]))
    expect(request.system).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ])
  })

  it('joins consecutive tool messages into one user turn', () => {
    const h = [msg('assistant', [call('a', 'f'), call('b', 'g')]), msg('tool', [result('a', '1')]), msg('tool', [result('b', '2')])]
    const { request } = right(toAnthropic()(h))
    expect(request.messages[1]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'a', content: '1' },
        { type: 'tool_result', tool_use_id: 'b', content: '2' },
      ],
    })
  })
})

describe('vercel/ai Google provider: Gemini 3 replays of unsigned calls', () => {
  const h = [msg('user', [text('go')]), msg('assistant', [call('c1', 'f')], { provider: 'openai' }), msg('tool', [result('c1', 'ok', { name: 'f' })])]

  it('puts skip_thought_signature_validator on an unsigned call for Gemini 3, not for earlier models', () => {
    expect(right(toGemini({ model: 'gemini-3-flash-preview' })(h)).request.contents[1]?.parts[0]).toMatchObject({
      thoughtSignature: 'skip_thought_signature_validator',
    })
    expect(right(toGemini({ model: 'gemini-2.5-flash' })(h)).request.contents[1]?.parts[0]).not.toHaveProperty('thoughtSignature')
  })

  it('keeps a real signature over the placeholder', () => {
    const signed = [h[0], msg('assistant', [{ type: 'reasoning', text: 'sig', redacted: true }, call('c1', 'f')], { provider: 'google' }), h[2]] as typeof h
    expect(right(toGemini({ model: 'gemini-3-pro-preview' })(signed)).request.contents[1]?.parts[0]).toMatchObject({ thoughtSignature: 'sig' })
  })
})

describe('pi-mono transform-messages and cross-provider hand-off', () => {
  it('a call left without a result: pi-mono adds an error result; chatfold refuses unless repair is asked for (on purpose: a silent fix would hide a lost result)', () => {
    const h = [msg('user', [text('go')]), msg('assistant', [call('c1', 'f')]), msg('user', [text('next')])]
    const refused = toOpenAIChat()(h)
    expect(E.isLeft(refused) && refused.left.kind).toBe('invalid_tool_pairs')
    const { request, report } = right(toOpenAIChat({ repair: 'repair' })(h))
    expect(report.repair?.addedResults).toEqual(['c1'])
    expect(request.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user'])
    expect(checkRequest('openai-chat')(request)).toEqual([])
  })

  it('thinking of another provider: pi-mono sends it as plain text; chatfold drops it by default and, when asked, sends it inside <thinking> tags (on purpose: the model should not take it for something said)', () => {
    const h = [
      msg('user', [text('q')]),
      msg('assistant', [{ type: 'reasoning', text: 'mull', signature: 'anthropic-sig' }, text('a')], { provider: 'anthropic' }),
      msg('user', [text('q2')]),
    ]
    const dropped = right(toGemini()(h))
    expect(dropped.request.contents[1]).toEqual({ role: 'model', parts: [{ text: 'a' }] })
    const kept = right(toGemini({ foreignReasoning: 'text' })(h))
    expect(kept.request.contents[1]).toEqual({ role: 'model', parts: [{ text: '<thinking>\nmull\n</thinking>' }, { text: 'a' }] })
  })

  it('tool-call ids from OpenAI Responses (with "|") are rewritten for Anthropic, the same for call and result', () => {
    const id = `call_abc|${'x'.repeat(70)}`
    const { request, report } = right(toAnthropic()([msg('assistant', [call(id, 'f')]), msg('tool', [result(id, 'ok')])]))
    const use = (request.messages[0]?.content as Array<{ readonly id?: string }>)[0]?.id
    const answered = (request.messages[1]?.content as Array<{ readonly tool_use_id?: string }>)[0]?.tool_use_id
    expect(use).toBe(answered)
    expect(use).toMatch(/^[a-zA-Z0-9_-]+$/)
    expect(report.notes).toContainEqual({ kind: 'id_renamed', from: id, to: use })
    expect(checkRequest('anthropic')(request)).toEqual([])
  })
})
