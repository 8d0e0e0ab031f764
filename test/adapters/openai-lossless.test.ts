import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import {
  fromOpenAIChat,
  fromOpenAIChatCompletion,
  fromOpenAIChatRequest,
  fromOpenAIResponse,
  fromOpenAIResponses,
  fromOpenAIResponsesRequest,
  toAnthropic,
  toGemini,
  toModelMessages,
  toOpenAIChat,
  toOpenAIChatRequest,
  toOpenAIResponses,
  toOpenAIResponsesRequest,
  checkRequest,
  type AdapterNote,
  type ChatRequest,
} from '../../src/adapters/index.ts'
import type { Messages } from '../../src/message.ts'
import { textMessage } from '../../src/message.ts'
import { openAIFields } from '../../src/adapters/openai-vocab.ts'
import { chatCorpus, chatRequest, responsesCorpus, responsesRequest } from './fixtures/openai-corpus.ts'
import { right } from './support.ts'

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
    const input = [{ role: 'system', content: 'Rules.' }, { role: 'user', content: 'old' }, { type: 'compaction', encrypted_content: 'gAAAA' }, { role: 'user', content: 'new' }]
    const { request, report } = right(toOpenAIResponses()(right(fromOpenAIResponses({ input }))))
    expect(request.input).toEqual([input[0], input[2], input[3]])
    expect(report.notes.map((n) => n.kind)).toEqual(['omitted_message'])
  })
})

describe('the probes', () => {
  it('web_search_call, image_generation_call, item_reference and compaction are provider parts, in place', () => {
    const h = right(fromOpenAIResponses(responsesCorpus.outputMessage))
    expect(kinds(h)).toEqual(['text', 'openai:web_search_call', 'text', 'text', 'text'])
    expect(kinds(right(fromOpenAIResponses(responsesCorpus.references)))).toEqual(['openai:item_reference', 'openai:item_reference', 'text', 'openai:compaction_trigger'])
    expect(kinds(right(fromOpenAIResponses(responsesCorpus.compaction)))).toEqual(['text', 'openai:compaction', 'text'])
    expect(kinds(right(fromOpenAIResponses(responsesCorpus.hostedTools)))).toContain('openai:image_generation_call')
  })

  it('a custom tool call (apply_patch) is a tool call whose arguments are {"input": …}, and its output a result', () => {
    const [, assistant, tool] = right(fromOpenAIResponses(responsesCorpus.customToolCalls))
    const patch = responsesCorpus.customToolCalls.input[1].input
    expect(assistant?.parts).toEqual([
      { type: 'tool_call', id: 'call_patch', name: 'apply_patch', arguments: JSON.stringify({ input: patch }), status: 'complete', providerFields: { openai: { type: 'custom_tool_call', id: 'ctc_1', status: 'completed' } } },
    ])
    expect(tool?.parts[0]).toMatchObject({ type: 'tool_result', toolCallId: 'call_patch', content: 'Done!', providerFields: { openai: { type: 'custom_tool_call_output' } } })
  })

  it('a reasoning item without an id is read, and goes back without one', () => {
    const input = [{ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Think.' }], encrypted_content: 'gAAAA' }, { role: 'assistant', content: 'Done.' }]
    const h = right(fromOpenAIResponses({ input }))
    expect(h[0]?.parts[0]).toEqual({ type: 'reasoning', text: 'Think.', signature: '{"encrypted_content":"gAAAA"}' })
    expect(right(toOpenAIResponses()(h)).request.input).toEqual(input)
  })

  it('a response keeps its output items: web search as a provider part, the text with its item and citations', () => {
    const m = right(
      fromOpenAIResponse({ id: 'resp_1', status: 'completed', output: [responsesCorpus.outputMessage.input[1], responsesCorpus.outputMessage.input[2]] }),
    )
    expect(kinds([m])).toEqual(['openai:web_search_call', 'text', 'text', 'finish'])
    expect(openAIFields(m.parts[1] ?? { type: 'finish', reason: '' })).toMatchObject({ item: { id: 'msg_68a2', status: 'completed' }, annotations: [{ type: 'url_citation' }] })
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
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Hi', refusal: null, annotations, audio: { id: 'audio_1', data: 'AA==', expires_at: 1, transcript: 'Hi' } } }],
      }),
    )
    expect(m.metadata).toEqual({ providerFields: { openai: { message: { annotations, audio: { id: 'audio_1', data: 'AA==', expires_at: 1, transcript: 'Hi' } } } } })
    const { report } = right(toAnthropic()([textMessage('user', 'q'), m]))
    expect(report.notes).toContainEqual({ kind: 'provider_fields_dropped', messageId: m.id, provider: 'openai', part: 'message', fields: ['message.annotations', 'message.audio'] })
  })
})

describe('between Chat Completions and Responses', () => {
  it('a custom call crosses as a custom call; a Responses-only item as its documented text or a note', () => {
    const h = right(fromOpenAIResponses(responsesCorpus.customToolCalls))
    const chat = right(toOpenAIChat()(h))
    expect(chat.request.messages[1]).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'call_patch', type: 'custom', custom: { name: 'apply_patch', input: responsesCorpus.customToolCalls.input[1].input } }] })
    const search = right(toOpenAIChat()(right(fromOpenAIResponses(responsesCorpus.outputMessage))))
    expect(search.request.messages[1]).toMatchObject({ role: 'assistant' })
    expect(search.report.notes).toContainEqual(expect.objectContaining({ kind: 'provider_part_mapped', type: 'web_search_call', to: ['text'] }))
    const back = right(toOpenAIResponses()(right(fromOpenAIChat(chatCorpus.toolCalls)))).request.input
    expect(back[2]).toEqual({ type: 'custom_tool_call', call_id: 'call_2', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' })
  })
})

// --- cross-provider: every fact of the input is in the output or a note ---

type Fact = { readonly messageId: string; readonly key: string }

/** What only OpenAI knows in a history: its provider parts and the fields on parts and messages. */
const facts = (ms: Messages): ReadonlyArray<Fact> =>
  ms.flatMap((m) => {
    const own = m.parts.flatMap((p): Fact[] => {
      if (p.type === 'provider') return [{ messageId: m.id, key: `part:${p.kind}` }]
      const f = openAIFields(p)
      const named = Object.keys(f ?? {}).filter((k) => !['type', 'continues', 'chatfold'].includes(k))
      return named.map((k) => ({ messageId: m.id, key: `field:${p.type}.${k}` }))
    })
    const meta = (m.metadata?.['providerFields'] as { openai?: Record<string, Record<string, unknown>> } | undefined)?.openai
    const message = ['item', 'message'].flatMap((api) =>
      Object.entries(meta?.[api] ?? {})
        .filter(([k, v]) => k !== 'type' && k !== 'chatfold' && !(k === 'role' && ['user', 'system', 'developer'].includes(String(v))))
        .map(([k]) => ({ messageId: m.id, key: `field:message.${api}.${k}` })),
    )
    return [...own, ...message]
  })

/** Whether a note accounts for a fact: the part mapped or dropped, the field dropped, the message left out. */
const covers = (notes: ReadonlyArray<AdapterNote>, f: Fact): boolean =>
  notes.some(
    (n) =>
      ('messageId' in n && n.messageId === f.messageId && n.kind === 'omitted_message') ||
      ((n.kind === 'provider_part_dropped' || n.kind === 'provider_part_mapped') && n.messageId === f.messageId && `part:${n.type}` === f.key) ||
      (n.kind === 'provider_fields_dropped' && n.messageId === f.messageId && n.fields.some((k) => f.key === `field:${n.part}.${k}`)),
  )

/** Citations that became sources on the text are carried, not dropped. */
const carried = (f: Fact): boolean => f.key === 'field:text.annotations'

const targets: ReadonlyArray<readonly [string, (ms: Messages) => ReadonlyArray<AdapterNote>]> = [
  ['Anthropic', (ms) => right(toAnthropic({ repair: 'repair' })(ms)).report.notes],
  ['Gemini', (ms) => right(toGemini({ repair: 'repair' })(ms)).report.notes],
  ['the AI SDK', (ms) => right(toModelMessages({ repair: 'repair' })(ms)).report.notes],
]

const uncovered = (ms: Messages): ReadonlyArray<string> =>
  targets.flatMap(([name, to]) => {
    const notes = to(ms)
    return facts(ms)
      .filter((f) => !carried(f) && !covers(notes, f))
      .map((f) => `${name}: ${f.key} of ${f.messageId}`)
  })

describe('to other providers, nothing OpenAI sent goes without a note', () => {
  it.each([...Object.entries(responsesCorpus).map(([k, b]) => [`Responses ${k}`, right(fromOpenAIResponses(b))] as const), ...Object.entries(chatCorpus).map(([k, b]) => [`Chat ${k}`, right(fromOpenAIChat(b))] as const)])(
    '%s',
    (_, h) => {
      expect(facts(h).length + 1).toBeGreaterThan(0)
      expect(uncovered(h)).toEqual([])
    },
  )

  it('web search results and citations arrive as text with sources', () => {
    const h = right(fromOpenAIResponses(responsesCorpus.outputMessage))
    const { request } = right(toAnthropic()(h))
    const text = JSON.stringify(request.messages[1])
    expect(text).toContain('Web search: \\"news today\\"')
    expect(text).toContain('Sources:\\n- Storm (https://news.example.com/a)')
  })

  it('the encrypted compaction is left out with its reason', () => {
    const { report } = right(toGemini()(right(fromOpenAIResponses(responsesCorpus.compaction))))
    expect(report.notes).toContainEqual(expect.objectContaining({ kind: 'provider_part_dropped', provider: 'openai', type: 'compaction', reason: expect.stringContaining('encrypted') }))
  })
})

// --- generated bodies ---

// words that are not blank: a reply of blank text beside reasoning is a reasoning-only turn, which is refused
const word = fc.string({ minLength: 1, maxLength: 8 }).filter((w) => w.trim() !== '')

/** One Responses turn: a user message, then assistant-side items, then the outputs of its calls. */
const responsesTurn = (n: number) =>
  fc
    .record({
      user: fc.oneof(
        word.map((text) => ({ role: 'user', content: text })),
        fc.record({ text: word, detail: fc.constantFrom('auto', 'low', 'high') }).map(({ text, detail }) => ({
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text }, { type: 'input_image', image_url: `https://example.com/${n}.png`, detail }],
        })),
        word.map((text) => ({ role: 'developer', content: text })),
      ),
      reasoning: fc.option(
        fc.record({ id: fc.boolean(), summaries: fc.array(word, { maxLength: 2 }), encrypted: fc.option(word, { nil: undefined }) }).map(({ id, summaries, encrypted }) => ({
          type: 'reasoning',
          ...(id ? { id: `rs_${n}` } : {}),
          summary: summaries.map((text) => ({ type: 'summary_text', text })),
          ...(encrypted === undefined ? {} : { encrypted_content: encrypted }),
        })),
        { nil: undefined },
      ),
      reply: fc.option(
        fc.oneof(
          word.map((text) => ({ type: 'message', role: 'assistant', content: text })),
          word.map((text) => ({ type: 'message', id: `msg_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] })),
        ),
        { nil: undefined },
      ),
      kept: fc.option(
        fc.oneof(
          word.map((query) => ({ type: 'web_search_call', id: `ws_${n}`, status: 'completed', action: { type: 'search', query } })),
          fc.constant({ type: 'item_reference', id: `ref_${n}` }),
          word.map((result) => ({ type: 'image_generation_call', id: `ig_${n}`, status: 'completed', result })),
          fc.jsonValue({ maxDepth: 2 }).map((extra) => ({ type: 'mcp_call', id: `mcp_${n}`, server_label: 's', name: 't', arguments: '{}', output: JSON.stringify(extra) })),
        ),
        { nil: undefined },
      ),
      calls: fc.array(fc.record({ custom: fc.boolean(), input: word, output: word, id: fc.boolean() }), { maxLength: 2 }),
    })
    .map(({ user, reasoning, reply, kept, calls }) => [
      user,
      // reasoning precedes what it led to (a history holding only reasoning is refused)
      ...(reasoning === undefined || (reply === undefined && kept === undefined && calls.length === 0) ? [] : [reasoning]),
      ...(reply === undefined ? [] : [reply]),
      ...(kept === undefined ? [] : [kept]),
      ...calls.map((c, j) =>
        c.custom
          ? { type: 'custom_tool_call', call_id: `c${n}_${j}`, name: 'apply_patch', input: c.input, ...(c.id ? { id: `ctc_${n}_${j}` } : {}) }
          : { type: 'function_call', call_id: `c${n}_${j}`, name: 'f', arguments: JSON.stringify({ q: c.input }), ...(c.id ? { id: `fc_${n}_${j}`, status: 'completed' } : {}) },
      ),
      ...calls.map((c, j) => ({ type: c.custom ? 'custom_tool_call_output' : 'function_call_output', call_id: `c${n}_${j}`, output: c.output })),
    ])

const responsesBody = fc.integer({ min: 1, max: 4 }).chain((turns) => fc.tuple(...Array.from({ length: turns }, (_, n) => responsesTurn(n))).map((ts) => ({ input: ts.flat() })))

const chatTurn = (n: number) =>
  fc
    .record({
      system: fc.option(fc.record({ role: fc.constantFrom('system', 'developer'), text: word, name: fc.option(word, { nil: undefined }) }), { nil: undefined }),
      user: fc.oneof(
        word.map((text) => ({ role: 'user', content: text })),
        fc.record({ text: word, detail: fc.option(fc.constantFrom('auto', 'low'), { nil: undefined }) }).map(({ text, detail }) => ({
          role: 'user',
          content: [{ type: 'text', text }, { type: 'image_url', image_url: { url: `https://example.com/${n}.png`, ...(detail === undefined ? {} : { detail }) } }],
        })),
      ),
      text: fc.option(word, { nil: undefined }),
      calls: fc.array(fc.record({ custom: fc.boolean(), input: word, output: word }), { maxLength: 2 }),
    })
    .map(({ system, user, text, calls }) => [
      ...(system === undefined ? [] : [{ role: system.role, content: system.text, ...(system.name === undefined ? {} : { name: system.name }) }]),
      user,
      {
        role: 'assistant',
        content: text ?? null,
        ...(calls.length === 0
          ? {}
          : {
              tool_calls: calls.map((c, j) =>
                c.custom ? { id: `c${n}_${j}`, type: 'custom', custom: { name: 'p', input: c.input } } : { id: `c${n}_${j}`, type: 'function', function: { name: 'f', arguments: JSON.stringify({ q: c.input }) } },
              ),
            }),
      },
      ...calls.map((c, j) => ({ role: 'tool', tool_call_id: `c${n}_${j}`, content: c.output })),
    ])
    .filter((ms) => ms.some((m) => m.role === 'assistant' && (m.content !== null || 'tool_calls' in m)))

const chatBody = fc.integer({ min: 1, max: 4 }).chain((turns) => fc.tuple(...Array.from({ length: turns }, (_, n) => chatTurn(n))).map((ts) => ({ messages: ts.flat() })))

describe('generated bodies', () => {
  it('a Responses input goes back as it came, and crosses with a note for every fact', () => {
    fc.assert(
      fc.property(responsesBody, (body) => {
        const h = right(fromOpenAIResponses(body))
        expect(right(toOpenAIResponses()(h)).request.input).toEqual(body.input)
        expect(uncovered(h)).toEqual([])
      }),
      { numRuns: 60 },
    )
  })

  it('Chat messages go back as they came, and cross with a note for every fact', () => {
    fc.assert(
      fc.property(chatBody, (body) => {
        const h = right(fromOpenAIChat(body))
        expect(right(toOpenAIChat()(h)).request.messages).toEqual(body.messages)
        expect(uncovered(h)).toEqual([])
      }),
      { numRuns: 60 },
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
    expect(right(toOpenAIResponsesRequest()(grown)).request.input).toEqual([{ type: 'message', role: 'user', content: 'Hi' }, { type: 'message', role: 'assistant', content: 'Hello.' }])
  })

  it('any settings and extra fields go back as they came (generated)', () => {
    const chatSettings = fc.record(
      {
        max_completion_tokens: fc.nat(),
        temperature: fc.double({ min: 0, max: 2, noNaN: true }),
        top_p: fc.double({ min: 0, max: 1, noNaN: true }),
        stop: fc.array(word, { minLength: 1, maxLength: 3 }),
        seed: fc.integer(),
        presence_penalty: fc.double({ min: -2, max: 2, noNaN: true }),
        frequency_penalty: fc.double({ min: -2, max: 2, noNaN: true }),
        parallel_tool_calls: fc.boolean(),
        tool_choice: fc.constantFrom('auto', 'none', 'required', { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [] } }),
        store: fc.boolean(),
        metadata: fc.dictionary(word, word, { maxKeys: 2 }),
        service_tier: fc.constantFrom('auto', 'flex', 'priority'),
      },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(chatSettings, fc.constantFrom('gpt-4.1', 'o4-mini'), (settings, model) => {
        const body = { model, messages: [{ role: 'user', content: 'Hi' }], ...settings }
        expect(right(toOpenAIChatRequest()(right(fromOpenAIChatRequest(body)))).request).toEqual(body)
      }),
      { numRuns: 80 },
    )
  })

  it('a request from another provider keeps its function tools and notes what OpenAI cannot take', () => {
    const request: ChatRequest = {
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
    expect(body).toMatchObject({ tools: [{ type: 'function', name: 'ls', parameters: { type: 'object', properties: {} }, strict: false }], tool_choice: 'required', max_output_tokens: 100 })
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
    expect(chat.report.notes.filter((n) => n.kind === 'setting_dropped' || n.kind === 'tool_dropped').map((n) => ('setting' in n ? n.setting : n.name))).toEqual([
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
