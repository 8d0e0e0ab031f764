import { describe, expect, it } from 'vitest'
import { toAnthropic } from '../../../src/adapters/anthropic/messages.ts'
import { toGemini } from '../../../src/adapters/gemini/contents.ts'
import { fromOpenAIChat, fromOpenAIChatCompletion } from '../../../src/adapters/openai/chat-from.ts'
import { toOpenAIChat } from '../../../src/adapters/openai/chat.ts'
import { fromOpenAIChatRequest, fromOpenAIResponsesRequest, toOpenAIChatRequest, toOpenAIResponsesRequest } from '../../../src/adapters/openai/request.ts'
import { fromOpenAIResponse, fromOpenAIResponses } from '../../../src/adapters/openai/responses-from.ts'
import { toOpenAIResponses } from '../../../src/adapters/openai/responses.ts'
import { type ModelRequest } from '../../../src/adapters/request.ts'
import { checkRequest } from '../../../src/adapters/rules.ts'
import { openAIResponsesStream } from '../../../src/adapters/openai/responses-stream.ts'
import { makeBuilderState } from '../../../src/builder/state.ts'
import { replayBuilderInputs } from '../../../src/builder/step.ts'
import type { Messages } from '../../../src/message/message.ts'
import { textMessage } from '../../../src/message/message.ts'
import { openAIFields } from '../../../src/adapters/openai/_vocab.ts'
import { facts, uncovered } from './facts.ts'
import { chatCorpus, chatRequest, responsesCorpus, responsesRequest } from '../fixtures/openai-corpus.ts'
import { right } from '../support.ts'

const kinds = (ms: Messages): ReadonlyArray<string> => ms.flatMap((m) => m.parts.map((p) => (p.type === 'provider' ? `${p.provider}:${p.kind}` : p.type)))

describe('OpenAI round trips over the corpus', () => {
  it.each(Object.entries(responsesCorpus))('Responses %s: toOpenAIResponses(fromOpenAIResponses(body)) is the body', (_, body) => {
    const h = right(fromOpenAIResponses(body))
    const back = right(toOpenAIResponses()(h)).request
    expect(back.input).toEqual(body.input)
    expect(back.instructions).toEqual('instructions' in body ? body.instructions : undefined)
  })

  it.each(Object.entries(chatCorpus))('Chat %s: toOpenAIChat(fromOpenAIChat(body)) is the body', (_, body) => {
    expect(right(toOpenAIChat()(right(fromOpenAIChat(body)))).request.messages).toEqual(body.messages)
  })

  it('drops what precedes a compaction item but the system messages, as the API does', () => {
    const input = [{ role: 'system', content: 'Rules.' }, { role: 'user', content: 'old' }, { type: 'compaction', encrypted_content: 'gAAAA' }, {
      role: 'user',
      content: 'new',
    }]
    const { request, report } = right(toOpenAIResponses()(right(fromOpenAIResponses({ input }))))
    expect(request.input).toEqual([input[0], input[2], input[3]])
    expect(report.notes.map((n) => n.kind)).toEqual(['omitted_message'])
  })
})

describe('the probes', () => {
  it('web_search_call, image_generation_call, item_reference and compaction are provider parts, in place', () => {
    const h = right(fromOpenAIResponses(responsesCorpus.outputMessage))
    expect(kinds(h)).toEqual(['text', 'openai:web_search_call', 'text', 'text', 'text'])
    expect(kinds(right(fromOpenAIResponses(responsesCorpus.references)))).toEqual([
      'openai:item_reference',
      'openai:item_reference',
      'text',
      'openai:compaction_trigger',
    ])
    expect(kinds(right(fromOpenAIResponses(responsesCorpus.compaction)))).toEqual(['text', 'openai:compaction', 'text'])
    expect(kinds(right(fromOpenAIResponses(responsesCorpus.hostedTools)))).toContain('openai:image_generation_call')
  })

  it('a custom tool call (apply_patch) is a tool call whose arguments are {"input": …}, and its output a result', () => {
    const [, assistant, tool] = right(fromOpenAIResponses(responsesCorpus.customToolCalls))
    const patch = responsesCorpus.customToolCalls.input[1].input
    expect(assistant?.parts).toEqual([
      {
        type: 'tool_call',
        id: 'call_patch',
        name: 'apply_patch',
        arguments: JSON.stringify({ input: patch }),
        status: 'complete',
        providerFields: { openai: { type: 'custom_tool_call', id: 'ctc_1', status: 'completed' } },
      },
    ])
    expect(tool?.parts[0]).toMatchObject({
      type: 'tool_result',
      toolCallId: 'call_patch',
      content: 'Done!',
      providerFields: { openai: { type: 'custom_tool_call_output' } },
    })
  })

  it('a reasoning item without an id is read, and goes back without one', () => {
    const input = [{ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Think.' }], encrypted_content: 'gAAAA' }, {
      role: 'assistant',
      content: 'Done.',
    }]
    const h = right(fromOpenAIResponses({ input }))
    expect(h[0]?.parts[0]).toEqual({ type: 'reasoning', text: 'Think.', signature: '{"encrypted_content":"gAAAA"}' })
    expect(right(toOpenAIResponses()(h)).request.input).toEqual(input)
  })

  it('a response keeps its output items: web search as a provider part, the text with its item and citations', () => {
    const m = right(
      fromOpenAIResponse({ id: 'resp_1', status: 'completed', output: [responsesCorpus.outputMessage.input[1], responsesCorpus.outputMessage.input[2]] }),
    )
    expect(kinds([m])).toEqual(['openai:web_search_call', 'text', 'text', 'finish'])
    expect(openAIFields(m.parts[1] ?? { type: 'finish', reason: '' })).toMatchObject({
      item: { id: 'msg_68a2', status: 'completed' },
      annotations: [{ type: 'url_citation' }],
    })
  })
})

describe('reading what is wrong', () => {
  it('names an unknown item type, and a mapped item missing a field, by path', () => {
    const bad = fromOpenAIResponses({ input: [{ type: 'custom_tool_call', call_id: 'c', name: 'p' }, { type: 'telepathy_call' }] })
    expect(bad._tag === 'Left' ? bad.left.map((i) => i.path) : []).toEqual(['input[0].input', 'input[1].type'])
  })

  it('a custom tool call without its output breaks the pairing rule', () => {
    const input = [{ type: 'custom_tool_call', call_id: 'call_p', name: 'apply_patch', input: 'x' }]
    expect(checkRequest('openai-responses')({ input }).map((v) => v.rule)).toEqual(['openai-responses/outputs-follow-calls'])
  })
})

describe('a chat completion', () => {
  it("keeps the message's annotations and audio; refusal: null is no refusal", () => {
    const annotations = [{ type: 'url_citation', url_citation: { url: 'https://example.com', title: 'Ex', start_index: 0, end_index: 2 } }]
    const m = right(
      fromOpenAIChatCompletion({
        id: 'chatcmpl-1',
        model: 'gpt-4o-search-preview',
        choices: [{
          index: 0,
          finish_reason: 'stop',
          message: { role: 'assistant', content: 'Hi', refusal: null, annotations, audio: { id: 'audio_1', data: 'AA==', expires_at: 1, transcript: 'Hi' } },
        }],
      }),
    )
    expect(m.metadata).toEqual({
      providerFields: { openai: { message: { annotations, audio: { id: 'audio_1', data: 'AA==', expires_at: 1, transcript: 'Hi' } } } },
    })
    const { report } = right(toAnthropic()([textMessage('user', 'q'), m]))
    expect(report.notes).toContainEqual({
      kind: 'provider_fields_dropped',
      messageId: m.id,
      provider: 'openai',
      part: 'message',
      fields: ['message.annotations', 'message.audio'],
    })
  })
})

describe('between Chat Completions and Responses', () => {
  it('a custom call crosses as a custom call; a Responses-only item as its documented text or a note', () => {
    const h = right(fromOpenAIResponses(responsesCorpus.customToolCalls))
    const chat = right(toOpenAIChat()(h))
    expect(chat.request.messages[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_patch', type: 'custom', custom: { name: 'apply_patch', input: responsesCorpus.customToolCalls.input[1].input } }],
    })
    const search = right(toOpenAIChat()(right(fromOpenAIResponses(responsesCorpus.outputMessage))))
    expect(search.request.messages[1]).toMatchObject({ role: 'assistant' })
    expect(search.report.notes).toContainEqual(expect.objectContaining({ kind: 'provider_part_mapped', type: 'web_search_call', to: ['text'] }))
    const back = right(toOpenAIResponses()(right(fromOpenAIChat(chatCorpus.toolCalls)))).request.input
    expect(back[2]).toEqual({ type: 'custom_tool_call', call_id: 'call_2', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' })
  })
})

describe('to other providers, nothing OpenAI sent goes without a note', () => {
  it.each([
    ...Object.entries(responsesCorpus).map(([k, b]) => [`Responses ${k}`, right(fromOpenAIResponses(b))] as const),
    ...Object.entries(chatCorpus).map(([k, b]) => [`Chat ${k}`, right(fromOpenAIChat(b))] as const),
  ])(
    '%s',
    (_, h) => {
      expect(uncovered(h)).toEqual([])
    },
  )

  it('the check sees what it checks: the corpus holds provider parts and fields on parts and messages', () => {
    const all = [...Object.values(responsesCorpus).map((b) => right(fromOpenAIResponses(b))), ...Object.values(chatCorpus).map((b) => right(fromOpenAIChat(b)))]
      .flatMap(facts)
    const keys = new Set(all.map((f) => f.key.split('.')[0]?.split(':')[0]))
    expect(keys).toEqual(new Set(['part', 'field']))
    expect(all.some((f) => f.key.startsWith('field:message.'))).toBe(true)
  })

  it('web search results and citations arrive as text with sources', () => {
    const h = right(fromOpenAIResponses(responsesCorpus.outputMessage))
    const { request } = right(toAnthropic()(h))
    const text = JSON.stringify(request.messages[1])
    expect(text).toContain('Web search: \\"news today\\"')
    expect(text).toContain('Sources:\\n- Storm (https://news.example.com/a)')
  })

  it('the encrypted compaction is left out with its reason', () => {
    const { report } = right(toGemini()(right(fromOpenAIResponses(responsesCorpus.compaction))))
    expect(report.notes).toContainEqual(
      expect.objectContaining({ kind: 'provider_part_dropped', provider: 'openai', type: 'compaction', reason: expect.stringContaining('encrypted') }),
    )
  })
})

// --- request envelopes ---

describe('request envelopes', () => {
  it('a Responses request goes back as it came, its settings and tools read', () => {
    const r = right(fromOpenAIResponsesRequest(responsesRequest))
    expect(r.model).toBe('gpt-5')
    expect(r.settings).toEqual({ maxOutputTokens: 1024, temperature: 0.5, topP: 0.9, parallelToolCalls: false })
    expect(r.tools?.map((t) => (t.type === 'function' ? `function:${t.name}` : `openai:${t.kind}`))).toEqual([
      'function:get_weather',
      'function:noop',
      'openai:custom',
      'openai:web_search',
      'openai:file_search',
      'openai:code_interpreter',
      'openai:image_generation',
      'openai:mcp',
      'openai:shell',
      'openai:apply_patch',
    ])
    expect(r.providerFields?.['openai']).toHaveProperty('reasoning', { effort: 'low', summary: 'auto' })
    expect(r.messages[0]?.role).toBe('system')
    expect(right(toOpenAIResponsesRequest()(r)).request).toEqual(responsesRequest)
  })

  it('a Chat request goes back as it came, the deprecated max_tokens under its name', () => {
    const r = right(fromOpenAIChatRequest(chatRequest))
    expect(r.toolChoice).toEqual({ type: 'tool', name: 'get_weather' })
    expect(r.settings).toMatchObject({ maxOutputTokens: 300, stop: ['END'], seed: 7, presencePenalty: 0.1, frequencyPenalty: 0.2 })
    expect(right(toOpenAIChatRequest()(r)).request).toEqual(chatRequest)
  })

  it('a string input and instructions go back as they came', () => {
    const body = { model: 'gpt-5', instructions: 'Be brief.', input: 'Hi', store: false }
    const r = right(fromOpenAIResponsesRequest(body))
    expect(r.messages.map((m) => m.role)).toEqual(['system', 'user'])
    expect(right(toOpenAIResponsesRequest()(r)).request).toEqual(body)
    // once the history grows, the input is the list of items
    const grown = { ...r, messages: [...r.messages, textMessage('assistant', 'Hello.')] }
    expect(right(toOpenAIResponsesRequest()(grown)).request.input).toEqual([{ type: 'message', role: 'user', content: 'Hi' }, {
      type: 'message',
      role: 'assistant',
      content: 'Hello.',
    }])
  })

  it('a request from another provider keeps its function tools and notes what OpenAI cannot take', () => {
    const request: ModelRequest = {
      model: 'claude-sonnet-4-5',
      messages: [textMessage('system', 'Be brief.'), textMessage('user', 'Hi')],
      tools: [
        { type: 'function', name: 'ls', inputSchema: { type: 'object', properties: {} } },
        { type: 'provider', provider: 'anthropic', kind: 'web_search_20250305', data: { type: 'web_search_20250305', name: 'web_search' } },
      ],
      toolChoice: { type: 'required' },
      settings: { maxOutputTokens: 100, topK: 40, stop: ['x'] },
      providerFields: { anthropic: { thinking: { type: 'enabled', budget_tokens: 1024 } } },
    }
    const { request: body, report } = right(toOpenAIResponsesRequest()(request))
    expect(body).toMatchObject({
      tools: [{ type: 'function', name: 'ls', parameters: { type: 'object', properties: {} }, strict: false }],
      tool_choice: 'required',
      max_output_tokens: 100,
    })
    expect(report.notes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'tool_dropped', name: 'web_search_20250305' }),
        expect.objectContaining({ kind: 'setting_dropped', setting: 'topK' }),
        expect.objectContaining({ kind: 'setting_dropped', setting: 'stop' }),
        expect.objectContaining({ kind: 'setting_dropped', setting: 'anthropic.thinking' }),
      ]),
    )
    const chat = right(toOpenAIChatRequest()(request))
    expect(chat.request).toMatchObject({ stop: ['x'], max_completion_tokens: 100, tools: [{ type: 'function', function: { name: 'ls' } }] })
    expect(chat.report.notes.filter((n) => n.kind === 'setting_dropped' || n.kind === 'tool_dropped').map((n) => ('setting' in n ? n.setting : n.name)))
      .toEqual([
        'anthropic.thinking',
        'web_search_20250305',
        'topK',
      ])
  })
})

describe('Chat Completions fields in a Responses request', () => {
  it('a refusal stays a refusal; a name has no place and is noted', () => {
    const h = right(fromOpenAIChat(chatCorpus.assistantExtras))
    const { request, report } = right(toOpenAIResponses()(h))
    // the audio reply has no item (its message is noted empty), so the refusal is the third item
    expect(request.input[2]).toEqual({ type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] })
    expect(report.notes).toContainEqual({ kind: 'omitted_message', messageId: h[1]?.id, reason: 'empty' })
    const named = right(fromOpenAIChat(chatCorpus.roles))
    const out = right(toOpenAIResponses()(named))
    expect(out.report.notes).toContainEqual({ kind: 'provider_fields_dropped', messageId: named[1]?.id, provider: 'openai', part: 'message', fields: ['name'] })
    expect(report.notes.filter((n) => n.kind === 'provider_fields_dropped').map((n) => ('fields' in n ? n.fields : []))).toEqual([['audio']])
  })
})

describe('the Responses stream', () => {
  it('adds the items it delivers whole, as a response reads them, and they go back as they came', () => {
    const search = responsesCorpus.outputMessage.input[1]
    const patch = { ...responsesCorpus.customToolCalls.input[1], status: 'completed' }
    const events = [
      { type: 'response.created', response: { id: 'resp_s', model: 'gpt-5', output: [] } },
      { type: 'response.output_item.done', output_index: 0, item: search },
      { type: 'response.output_item.added', output_index: 1, item: { ...patch, input: '', status: 'in_progress' } },
      { type: 'response.custom_tool_call_input.delta', output_index: 1, item_id: 'ctc_1', delta: patch.input },
      { type: 'response.output_item.done', output_index: 1, item: patch },
      { type: 'response.completed', response: { id: 'resp_s', status: 'completed', output: [], usage: { output_tokens: 9 } } },
    ]
    const assembler = openAIResponsesStream()
    const inputs = [...events.flatMap((e) => assembler.push(e)), ...assembler.end()]
    const { state } = replayBuilderInputs(inputs)(makeBuilderState())
    const m = state.history[0]
    expect(m === undefined ? [] : kinds([m])).toEqual(['openai:web_search_call', 'tool_call', 'finish'])
    const reply = right(fromOpenAIResponse({ id: 'resp_s', status: 'completed', output: [search, patch] }))
    expect(m?.parts).toEqual(reply.parts)
    const back = right(toOpenAIResponses({ repair: 'repair' })(m === undefined ? [] : [textMessage('user', 'q'), m])).request.input
    expect(back.slice(1, 3)).toEqual([search, patch])
  })
})
