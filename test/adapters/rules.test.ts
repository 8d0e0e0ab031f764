/**
 * The providers' request rules: for each rule, a request built to break it is found by
 * `checkRequest` at its path, and the history that used to produce it goes through the `to…`
 * adapter into a request that follows the rule, with a `request_fixed` note saying what changed.
 */
import { describe, expect, it } from 'vitest'
import { fromModelMessages } from '../../src/adapters/ai-sdk/model-messages-from.ts'
import { toModelMessages } from '../../src/adapters/ai-sdk/model-messages.ts'
import { toAnthropic } from '../../src/adapters/anthropic/messages.ts'
import { toGemini } from '../../src/adapters/gemini/contents.ts'
import { toOpenAIChat } from '../../src/adapters/openai/chat.ts'
import { fromOpenAIResponses } from '../../src/adapters/openai/responses-from.ts'
import { toOpenAIResponses } from '../../src/adapters/openai/responses.ts'
import { checkRequest } from '../../src/adapters/rules.ts'
import type { AdapterNote } from '../../src/adapters/types.ts'
import { GEMINI_PLACEHOLDER_SIGNATURE } from '../../src/adapters/gemini/rules.ts'
import { filenameFor } from '../../src/adapters/rules-kit.ts'
import { call, msg, result, right, text } from './support.ts'

const rulesOf = (vs: ReadonlyArray<{ readonly rule: string }>): ReadonlyArray<string> => vs.map((v) => v.rule)
const fixes = (notes: ReadonlyArray<AdapterNote>) => notes.filter((n) => n.kind === 'request_fixed')

describe('checkRequest', () => {
  it('refuses what is not a request of the provider, and never throws on odd values', () => {
    expect(checkRequest('anthropic')(null)).toEqual([{ path: '', rule: 'anthropic/shape', message: 'a request is an object' }])
    expect(rulesOf(checkRequest('gemini')({ messages: [] }))).toEqual(['gemini/shape'])
    expect(checkRequest('openai-responses')({ input: 'Hi' })).toEqual([])
    for (const provider of ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'ai-sdk'] as const) {
      for (const odd of [{ messages: [1, null, 'x', [], { content: 7 }] }, { input: [null, { content: 'x' }] }, { contents: [null, 3, { parts: 'x' }] }]) {
        expect(() => checkRequest(provider)(odd)).not.toThrow()
      }
    }
  })
})

describe('Anthropic rules', () => {
  it('text-not-blank: finds empty and whitespace text blocks everywhere, and toAnthropic drops them', () => {
    const bad = {
      system: [{ type: 'text', text: '' }],
      messages: [
        { role: 'user', content: ' ' },
        { role: 'assistant', content: [{ type: 'text', text: '\n' }, { type: 'tool_use', id: 't1', name: 'ls', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: '\t' }] }] },
      ],
    }
    expect(checkRequest('anthropic')(bad).filter((v) => v.rule === 'anthropic/text-not-blank').map((v) => v.path)).toEqual([
      'system[0].text',
      'messages[0].content',
      'messages[1].content[0].text',
      'messages[2].content[0].content[0].text',
    ])
    const { request, report } = right(
      toAnthropic()([
        msg('system', [text('')]),
        msg('user', [text(' ')]),
        msg('user', [text('Hi')]),
        msg('assistant', [text('\n'), call('t1', 'ls')], { provider: 'anthropic' }),
        msg('tool', [result('t1', '')]),
        msg('assistant', [text('Done.')]),
      ]),
    )
    expect(request).toEqual({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ls', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '' }] },
        { role: 'assistant', content: 'Done.' },
      ],
    })
    // the two user messages were one turn already: the blank block goes, the turn stays
    expect(fixes(report.notes).map((n) => [n.rule, n.path, n.action])).toEqual([
      ['anthropic/text-not-blank', 'system', 'dropped'],
      ['anthropic/text-not-blank', 'messages[0].content[0]', 'dropped'],
      ['anthropic/text-not-blank', 'messages[1].content[0]', 'dropped'],
    ])
    expect(checkRequest('anthropic')(request)).toEqual([])
  })

  it('error-result-not-empty: an error result with no content gets a short text', () => {
    const bad = {
      messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] }, {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 't', content: '', is_error: true }],
      }],
    }
    expect(checkRequest('anthropic')(bad)).toEqual([{
      path: 'messages[1].content[0].content',
      rule: 'anthropic/error-result-not-empty',
      message: 'content cannot be empty if is_error is true',
    }])
    const { request, report } = right(toAnthropic()([msg('assistant', [call('t', 'f')]), msg('tool', [result('t', '', { isError: true })])]))
    expect(request.messages[1]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'Error (no output)', is_error: true }] })
    expect(fixes(report.notes)).toEqual([{
      kind: 'request_fixed',
      rule: 'anthropic/error-result-not-empty',
      path: 'messages[1].content[0].content',
      action: 'filled',
    }])
  })

  it('content-not-empty: a turn emptied by the rules goes, and the turns of one role that then meet are joined', () => {
    expect(rulesOf(checkRequest('anthropic')({ messages: [{ role: 'user', content: [] }] }))).toEqual(['anthropic/content-not-empty'])
    const { request, report } = right(toAnthropic()([msg('user', [text('a')]), msg('assistant', [text('  ')]), msg('user', [text('b')])]))
    expect(request.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }])
    expect(fixes(report.notes).map((n) => n.action)).toEqual(['dropped', 'dropped', 'merged'])
  })

  it('prefill-no-trailing-whitespace: a final assistant text is trimmed at its end only', () => {
    expect(checkRequest('anthropic')({ messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Sure, ' }] })).toEqual([
      { path: 'messages[1].content', rule: 'anthropic/prefill-no-trailing-whitespace', message: 'final assistant content cannot end with trailing whitespace' },
    ])
    const { request, report } = right(toAnthropic()([msg('user', [text('Hi')]), msg('assistant', [text('  {"a": '), text('1 \n')])]))
    expect(request.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: '  {"a": ' }, { type: 'text', text: '1' }] })
    expect(fixes(report.notes)).toEqual([{
      kind: 'request_fixed',
      rule: 'anthropic/prefill-no-trailing-whitespace',
      path: 'messages[1].content[1].text',
      action: 'trimmed',
    }])
    // not the final turn: left alone
    expect(right(toAnthropic()([msg('assistant', [text('a ')]), msg('user', [text('b')])])).request.messages[0]).toEqual({ role: 'assistant', content: 'a ' })
  })

  it('tool-results-follow-calls, tool-id-format, thinking-signed: found by path', () => {
    const bad = {
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call.1', name: 'ls', input: {} }, { type: 'thinking', thinking: 'x' }] },
        { role: 'user', content: [{ type: 'text', text: 'and?' }, { type: 'tool_result', tool_use_id: 'call.1', content: 'ok' }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'nope', content: 'ok' }] },
      ],
    }
    expect(checkRequest('anthropic')(bad).map((v) => `${v.rule} ${v.path}`)).toEqual([
      'anthropic/tool-results-follow-calls messages[1].content[1]',
      'anthropic/tool-results-follow-calls messages[2].content[0].tool_use_id',
      'anthropic/tool-id-format messages[0].content[0].id',
      'anthropic/tool-id-format messages[1].content[1].tool_use_id',
      'anthropic/thinking-signed messages[0].content[1].signature',
    ])
    expect(rulesOf(checkRequest('anthropic')({ messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }] }] }))).toEqual([
      'anthropic/tool-results-follow-calls',
    ])
  })
})

describe('Gemini rules', () => {
  it('text-not-empty and parts-not-empty: an empty text part goes, and so does the content it leaves empty', () => {
    expect(checkRequest('gemini')({ contents: [{ role: 'user', parts: [{ text: '' }] }, { role: 'model', parts: [] }] }).map((v) => `${v.rule} ${v.path}`))
      .toEqual([
        'gemini/text-not-empty contents[0].parts[0].text',
        'gemini/parts-not-empty contents[1].parts',
      ])
    // a signature carrier (an empty text with a signature) is what Gemini itself sends: kept
    expect(checkRequest('gemini')({ contents: [{ role: 'model', parts: [{ text: '', thoughtSignature: 'c2ln' }] }] })).toEqual([])
    const { request, report } = right(
      toGemini()([msg('system', [text('')]), msg('user', [text('Hi')]), msg('assistant', [text('')]), msg('user', [text('')]), msg('user', [text('?')])]),
    )
    expect(request).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Hi' }, { text: '?' }] }] })
    expect(fixes(report.notes).map((n) => `${n.rule} ${n.action}`)).toEqual([
      'gemini/text-not-empty dropped',
      'gemini/text-not-empty dropped',
      'gemini/text-not-empty dropped',
      'gemini/parts-not-empty dropped',
      'gemini/parts-not-empty merged',
    ])
    expect(checkRequest('gemini')(request)).toEqual([])
  })

  it('gemini-3-call-signature: an unsigned call of the current turn gets the documented placeholder, for Gemini 3 only', () => {
    const h = [
      msg('user', [text('old')]),
      msg('assistant', [call('a', 'f')], { provider: 'openai' }),
      msg('tool', [result('a', '1', { name: 'f' })]),
      msg('user', [text('now')]),
      msg('assistant', [call('b', 'f'), call('c', 'g')], { provider: 'openai' }),
      msg('tool', [result('b', '2', { name: 'f' }), result('c', '3', { name: 'g' })]),
      msg('assistant', [call('d', 'f')], { provider: 'anthropic' }),
      msg('tool', [result('d', '4', { name: 'f' })]),
    ]
    const three = right(toGemini({ model: 'gemini-3-pro-preview' })(h))
    const signed = three.request.contents.flatMap((c, i) =>
      c.parts.flatMap((p, j) => ('thoughtSignature' in p ? [`${i}.${j}=${String(p.thoughtSignature)}`] : []))
    )
    // contents: 0 user, 1 model a, 2 user (a's response and "now"), 3 model b c, 4 user, 5 model d, 6 user;
    // the current turn starts after content 2, and only the first call of a step is signed
    expect(signed).toEqual([`3.0=${GEMINI_PLACEHOLDER_SIGNATURE}`, `5.0=${GEMINI_PLACEHOLDER_SIGNATURE}`])
    expect(fixes(three.report.notes).map((n) => n.path)).toEqual(['contents[3].parts[0].thoughtSignature', 'contents[5].parts[0].thoughtSignature'])
    expect(checkRequest('gemini')({ model: 'gemini-3-pro-preview', ...three.request })).toEqual([])
    const unsignedRequest = right(toGemini({ model: 'gemini-2.5-pro' })(h)).request
    expect(fixes(right(toGemini({ model: 'gemini-2.5-pro' })(h)).report.notes)).toEqual([])
    expect(checkRequest('gemini')({ model: 'gemini-3-flash', ...unsignedRequest }).map((v) => v.path)).toEqual([
      'contents[3].parts[0].thoughtSignature',
      'contents[5].parts[0].thoughtSignature',
    ])
  })

  it('roles and function-responses-follow-calls: found by path', () => {
    const bad = {
      contents: [
        { role: 'assistant', parts: [{ text: 'x' }] },
        { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }, { functionCall: { name: 'g', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'g', response: {} } }] },
      ],
    }
    expect(checkRequest('gemini')(bad).map((v) => `${v.rule} ${v.path}`)).toEqual([
      'gemini/roles contents[0].role',
      'gemini/function-responses-follow-calls contents[2]',
      'gemini/function-responses-follow-calls contents[3]',
    ])
  })
})

describe('OpenAI rules', () => {
  it('file-filename: a file by bytes without a name gets one from its media type (Chat and Responses)', () => {
    expect(filenameFor('application/pdf')).toBe('file.pdf')
    expect(filenameFor('text/plain; charset=utf-8')).toBe('file.txt')
    expect(filenameFor('application/x-foo')).toBe('file.foo')
    expect(filenameFor('weird')).toBe('file.bin')
    const h = [
      msg('user', [{ type: 'file', data: new Uint8Array([1]), mediaType: 'text/csv' }, {
        type: 'file',
        data: new Uint8Array([1]),
        mediaType: 'application/pdf',
        filename: 'r.pdf',
      }]),
    ]
    const chat = right(toOpenAIChat()(h))
    expect(chat.request.messages[0]).toMatchObject({ content: [{ file: { filename: 'file.csv' } }, { file: { filename: 'r.pdf' } }] })
    expect(fixes(chat.report.notes)).toEqual([{
      kind: 'request_fixed',
      rule: 'openai-chat/file-filename',
      path: 'messages[0].content[0].file.filename',
      action: 'filled',
    }])
    expect(
      rulesOf(checkRequest('openai-chat')({ messages: [{ role: 'user', content: [{ type: 'file', file: { file_data: 'data:text/csv;base64,AQ==' } }] }] })),
    ).toEqual(['openai-chat/file-filename'])
    const responses = right(toOpenAIResponses()(h))
    expect(responses.request.input[0]).toMatchObject({ content: [{ filename: 'file.csv' }, { filename: 'r.pdf' }] })
    expect(checkRequest('openai-responses')(responses.request)).toEqual([])
  })

  it('tool-messages-follow-calls: a system message inside a tool turn moves after the results, with a note', () => {
    const h = [
      msg('assistant', [call('c1', 'ls'), call('c2', 'ls')]),
      msg('tool', [result('c1', 'a')]),
      msg('system', [text('Be brief.')]),
      msg('tool', [result('c2', 'b')]),
    ]
    const chat = right(toOpenAIChat()(h))
    expect(chat.request.messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'tool', 'system'])
    expect(fixes(chat.report.notes).map((n) => n.action)).toEqual(['moved'])
    expect(checkRequest('openai-chat')(chat.request)).toEqual([])
    expect(
      rulesOf(
        checkRequest('openai-chat')({
          messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, {
            role: 'user',
            content: 'x',
          }],
        }),
      ),
    ).toEqual([
      'openai-chat/tool-messages-follow-calls',
    ])
  })

  it('unique-item-ids: a reasoning item with several summaries goes out as the one item it was, and comes back unmodified', () => {
    const item = {
      type: 'reasoning',
      id: 'rs_1',
      summary: [{ type: 'summary_text', text: 'first' }, { type: 'summary_text', text: 'second' }],
      encrypted_content: 'ENC',
    }
    const input = [{ type: 'message', role: 'user', content: 'Hi' }, item, { type: 'message', role: 'assistant', content: 'Hello' }]
    const h = right(fromOpenAIResponses({ input }))
    const { request, report } = right(toOpenAIResponses()(h))
    expect(request.input).toEqual(input)
    expect(fixes(report.notes)).toEqual([])
    // the AI SDK's form: one part a summary with the same item id, the encrypted content on one of them
    const dup = { input: [{ ...item, summary: [item.summary[0]], encrypted_content: undefined }, { ...item, summary: [item.summary[1]] }] }
    expect(checkRequest('openai-responses')(dup).map((v) => v.path)).toEqual(['input[1].id'])
    // the same item stored by the AI SDK, one reasoning part a summary, goes to Responses as one item
    const stored = {
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'first', providerOptions: { openai: { itemId: 'rs_1' } } },
            { type: 'reasoning', text: 'second', providerOptions: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'ENC' } } },
            { type: 'text', text: 'Hello' },
          ],
        },
      ],
    }
    const viaSdk = right(toOpenAIResponses()(right(fromModelMessages(stored))))
    expect(viaSdk.request.input).toEqual(input)
    expect(checkRequest('openai-responses')(viaSdk.request)).toEqual([])
  })

  it('tool-call-id-format and call-id-format: empty ids (Chat) and ids over 64 characters (Responses) are found', () => {
    expect(
      checkRequest('openai-chat')({
        messages: [{ role: 'assistant', content: null, tool_calls: [{ id: '', type: 'function', function: { name: 'f', arguments: '{}' } }] }, {
          role: 'tool',
          tool_call_id: '',
          content: 'x',
        }],
      }).map((v) => `${v.rule} ${v.path}`),
    ).toEqual([
      'openai-chat/tool-call-id-format messages[0].tool_calls[0].id',
      'openai-chat/tool-call-id-format messages[1].tool_call_id',
    ])
    const long = 'c'.repeat(65)
    expect(
      checkRequest('openai-responses')({
        input: [{ type: 'function_call', call_id: long, name: 'f', arguments: '{}' }, { type: 'function_call_output', call_id: long, output: 'x' }],
      }).map((v) => v.path),
    ).toEqual(['input[0].call_id', 'input[1].call_id'])
    const { request, report } = right(toOpenAIResponses()([msg('assistant', [call(long, 'f')]), msg('tool', [result(long, 'x')])]))
    expect(checkRequest('openai-responses')(request)).toEqual([])
    expect(report.notes.map((n) => n.kind)).toEqual(['id_renamed'])
  })

  it('outputs-follow-calls: an output with no call before it, and a call with no output, are found', () => {
    const bad = { input: [{ type: 'function_call_output', call_id: 'x', output: '1' }, { type: 'function_call', call_id: 'y', name: 'f', arguments: '{}' }] }
    expect(checkRequest('openai-responses')(bad).map((v) => v.path)).toEqual(['input[0].call_id', 'input[1]'])
  })
})

describe('AI SDK rules', () => {
  it('results-before-user-or-system: a system message between a call and its result moves after the results', () => {
    const h = [
      msg('user', [text('go')]),
      msg('assistant', [call('c1', 'ls')]),
      msg('system', [text('Note.')]),
      msg('tool', [result('c1', 'a', { name: 'ls' })]),
      msg('user', [text('then')]),
    ]
    const { request, report } = right(toModelMessages()(h))
    expect(request.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'system', 'user'])
    expect(fixes(report.notes)).toEqual([{ kind: 'request_fixed', rule: 'ai-sdk/results-before-user-or-system', path: 'messages[2]', action: 'moved' }])
    expect(checkRequest('ai-sdk')(request)).toEqual([])
    expect(
      checkRequest('ai-sdk')({
        messages: [
          { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'ls', input: {} }] },
          { role: 'system', content: [{ type: 'text', text: 'x' }] },
        ],
      }).map((v) => `${v.rule} ${v.path}`),
    ).toEqual([
      'ai-sdk/results-before-user-or-system messages[1]',
      'ai-sdk/results-before-user-or-system messages[1]',
      'ai-sdk/system-content-string messages[1].content',
    ])
  })
})
