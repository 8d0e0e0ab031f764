import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/Either'
import { toModelMessages } from '../../../src/adapters/ai-sdk/model-messages.ts'
import { ANTHROPIC_BLOCK_TYPES } from '../../../src/adapters/anthropic/_blocks.ts'
import { fromAnthropic, fromAnthropicMessage } from '../../../src/adapters/anthropic/messages-from.ts'
import { fromAnthropicRequest, toAnthropicRequest } from '../../../src/adapters/anthropic/request.ts'
import { toAnthropic } from '../../../src/adapters/anthropic/messages.ts'
import { toGemini } from '../../../src/adapters/gemini/contents.ts'
import { toOpenAIChat } from '../../../src/adapters/openai/chat.ts'
import { toOpenAIResponses } from '../../../src/adapters/openai/responses.ts'
import { type ModelRequest, type ToolChoice, type ToolDefinition } from '../../../src/adapters/request.ts'
import { type AdapterNote } from '../../../src/adapters/types.ts'
import { decodeMessages, encodeMessages, type Message, type Messages, textMessage } from '../../../src/message/message.ts'
import { isCompactionBoundary } from '../../../src/message/part-make.ts'
import { type Part } from '../../../src/message/part-model.ts'
import { forLLM } from '../../../src/history/views.ts'
import { right } from '../support.ts'
import { blockTypesOf, compacted, corpus, type CorpusBody, PNG_BASE64, requestBodies } from '../fixtures/anthropic-corpus.ts'
import { anthropicBodyArb } from './arbitraries.ts'

const roundTrip = (body: unknown) => right(toAnthropic()(right(fromAnthropic(body))))

describe('the Anthropic corpus', () => {
  it('holds an example of every block type the adapter handles', () => {
    const seen = blockTypesOf([...corpus.map((c) => c.body), compacted.body])
    expect(ANTHROPIC_BLOCK_TYPES.filter((t) => !seen.has(t))).toEqual([])
  })

  it.each(corpus.map((c) => [c.name, c] as const))('round-trips to itself: %s', (_, c) => {
    const { request, report } = roundTrip(c.body)
    expect(request).toEqual(c.body)
    expect(report.notes).toEqual([])
  })

  it.each(corpus.map((c) => [c.name, c] as const))('round-trips to itself through the stored JSON form: %s', (_, c) => {
    const stored = right(decodeMessages(JSON.parse(JSON.stringify(encodeMessages(right(fromAnthropic(c.body)))))))
    expect(right(toAnthropic()(stored)).request).toEqual(c.body)
  })

  it('sends a compaction block and what follows it, never what it replaced, as the API reads it', () => {
    const history = right(fromAnthropic(compacted.body))
    const { request, report } = right(toAnthropic()(history))
    expect(request).toEqual(compacted.after)
    expect(report.notes.filter((n) => n.kind === 'omitted_message')).toHaveLength(3)
    expect(report.notes).toContainEqual({ kind: 'omitted_part', messageId: history[4]?.id, part: 'text', reason: 'before a compaction boundary' })
    const boundary = history[4]?.parts[1]
    expect(boundary !== undefined && isCompactionBoundary(boundary)).toBe(true)
  })
})

describe('the probes', () => {
  const history = (name: string): Messages => right(fromAnthropic((corpus.find((c) => c.name.startsWith(name)) as CorpusBody).body))
  const parts = (ms: Messages): ReadonlyArray<Part> => ms.flatMap((m) => m.parts)

  it('keeps server tool blocks in their place, and citations on the text', () => {
    const ms = history('web search')
    expect(ms[1]?.parts.map((p) => (p.type === 'provider' ? p.kind : p.type))).toEqual(['server_tool_use', 'web_search_tool_result', 'text'])
    const cited = ms[1]?.parts[2]
    expect(cited?.type === 'text' && cited.providerFields?.['anthropic']?.['citations']).toEqual([
      expect.objectContaining({ type: 'web_search_result_location', url: 'https://en.wikipedia.org/wiki/Eiffel_Tower' }),
    ])
  })

  it('keeps search results and MCP blocks as provider parts, a search result inside a tool result in its content', () => {
    const search = history('search results')
    expect(search[0]?.parts.map((p) => (p.type === 'provider' ? p.kind : p.type))).toEqual(['search_result', 'text'])
    const result = parts(search).find((p) => p.type === 'tool_result')
    expect(result?.type === 'tool_result' && result.content).toEqual([
      expect.objectContaining({ type: 'provider', provider: 'anthropic', kind: 'search_result', data: expect.objectContaining({ title: 'Rate limits' }) }),
    ])
    expect(parts(history('MCP')).flatMap((p) => (p.type === 'provider' ? [p.kind] : []))).toEqual(
      expect.arrayContaining(['mcp_tool_use', 'mcp_tool_result', 'tool_search_tool_result', 'advisor_tool_result']),
    )
  })

  it('reads a response with server tool blocks, a compaction block and citations, and sends it back as a request says it', () => {
    const response = {
      id: 'msg_01Compacted',
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-4-6',
      stop_reason: 'end_turn',
      usage: { input_tokens: 100, output_tokens: 20 },
      content: [
        { type: 'compaction', content: 'Summary: the user asked about the tower.', encrypted_content: null },
        { type: 'server_tool_use', id: 'srvtoolu_9', name: 'web_search', input: { query: 'tower' }, caller: { type: 'direct' } },
        {
          type: 'web_search_tool_result',
          tool_use_id: 'srvtoolu_9',
          content: [{ type: 'web_search_result', url: 'https://example.com', title: 'Tower', encrypted_content: 'Eq1', page_age: null }],
        },
        {
          type: 'text',
          text: 'It is tall.',
          citations: [{ type: 'web_search_result_location', url: 'https://example.com', title: 'Tower', encrypted_index: 'Eo1', cited_text: 'tall' }],
        },
        { type: 'text', text: 'Anything else?', citations: null },
        { type: 'tool_use', id: 'toolu_9', name: 'note', input: { text: 'tall' }, caller: { type: 'direct' } },
      ],
    }
    const m = right(fromAnthropicMessage(response))
    expect(m.parts.map((p) => (p.type === 'provider' ? p.kind : p.type))).toEqual([
      'compaction',
      'server_tool_use',
      'web_search_tool_result',
      'text',
      'text',
      'tool_call',
      'finish',
    ])
    const back = right(toAnthropic({ repair: 'repair' })([m])).request.messages[0]
    expect(back).toEqual({
      role: 'assistant',
      content: [
        { type: 'compaction', content: 'Summary: the user asked about the tower.' },
        { type: 'server_tool_use', id: 'srvtoolu_9', name: 'web_search', input: { query: 'tower' } },
        response.content[2],
        response.content[3],
        { type: 'text', text: 'Anything else?' },
        { type: 'tool_use', id: 'toolu_9', name: 'note', input: { text: 'tall' } },
      ],
    })
  })

  it('reports a tool result in an assistant turn and a bad image by path', () => {
    const bad = fromAnthropic({
      messages: [
        { role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'no' }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'x', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: '!!' } }] }],
        },
      ],
    })
    expect(E.isLeft(bad) && bad.left.map((i) => i.path)).toEqual(['messages[0].content', 'messages[1].content[0].content[0].source.data'])
  })

  it('keeps a block whose source no part gives back exactly, verbatim', () => {
    // the same bytes as PNG_BASE64, with unused low bits set: the API takes it, a part would not give it back
    const odd = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgp=' } }
    const ms = right(fromAnthropic({ messages: [{ role: 'user', content: [odd, { type: 'text', text: 'see' }] }] }))
    expect(ms[0]?.parts[0]).toEqual({ type: 'provider', provider: 'anthropic', kind: 'image', data: odd })
    expect(right(toAnthropic()(ms)).request.messages[0]?.content).toEqual([odd, { type: 'text', text: 'see' }])
    // elsewhere it is the image it holds
    expect(right(toGemini()(ms)).request.contents[0]?.parts[0]).toEqual({ inlineData: { mimeType: 'image/png', data: PNG_BASE64 } })
    const png = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } }
    expect(right(fromAnthropic({ messages: [{ role: 'user', content: [png] }] }))[0]?.parts[0]?.type).toBe('image')
  })
})

describe('request envelopes', () => {
  it.each(requestBodies.map((b, i) => [i, b] as const))('round-trip to themselves (%i)', (_, body) => {
    const { request, report } = right(toAnthropicRequest()(right(fromAnthropicRequest(body))))
    expect(request).toEqual(body)
    expect(report.notes).toEqual([])
  })

  it('reads the envelope: tools, tool choice, settings, and every other field verbatim', () => {
    const [first] = requestBodies
    const r = right(fromAnthropicRequest(first))
    expect(r.model).toBe('claude-opus-4-6')
    expect(r.messages.map((m) => m.role)).toEqual(['system', 'user'])
    expect(r.messages[0]?.parts[0]).toEqual({
      type: 'text',
      text: 'You are a careful engineer.',
      providerFields: { anthropic: { cache_control: { type: 'ephemeral' } } },
    })
    expect(r.tools?.map((t) => (t.type === 'function' ? `function:${t.name}` : `provider:${t.kind}`))).toEqual([
      'function:read_file',
      'function:ls',
      'provider:web_search_20250305',
      'provider:code_execution_20250825',
      'provider:web_fetch_20250910',
      'provider:mcp_toolset',
    ])
    expect(r.tools?.[0]).toMatchObject({
      description: 'Reads a file of the repository',
      providerFields: { anthropic: { cache_control: { type: 'ephemeral' } } },
    })
    expect(r.toolChoice).toEqual({ type: 'required' })
    expect(r.settings).toEqual({ maxOutputTokens: 4096, temperature: 0.2, topP: 0.9, topK: 40, stop: ['</answer>'], parallelToolCalls: false })
    expect(Object.keys(r.providerFields?.['anthropic'] ?? {}).sort()).toEqual([
      'betas',
      'container',
      'context_management',
      'mcp_servers',
      'metadata',
      'service_tier',
      'thinking',
    ])
  })

  it('writes another provider’s request with a note for each tool and setting it cannot take', () => {
    const { request, report } = right(
      toAnthropicRequest()({
        model: 'gpt-5',
        messages: right(fromAnthropic({ system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] })),
        tools: [
          {
            type: 'function',
            name: 'ls',
            description: 'Lists files',
            inputSchema: { type: 'object' },
            strict: true,
            providerFields: { openai: { defer_loading: true } },
          },
          { type: 'provider', provider: 'openai', kind: 'web_search', data: { type: 'web_search' } },
        ],
        toolChoice: { type: 'required' },
        settings: { maxOutputTokens: 100, seed: 7, presencePenalty: 0.5, frequencyPenalty: 0.1, parallelToolCalls: false },
        providerFields: { openai: { reasoning: { effort: 'high' }, store: false } },
      }),
    )
    expect(request).toEqual({
      model: 'gpt-5',
      max_tokens: 100,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [{ name: 'ls', description: 'Lists files', input_schema: { type: 'object' }, strict: true }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
    })
    expect(report.notes.map((n) => (n.kind === 'setting_dropped' ? n.setting : n.kind === 'tool_dropped' ? `tool:${n.name}` : n.kind)).sort()).toEqual(
      ['openai.reasoning', 'openai.store', 'seed', 'presencePenalty', 'frequencyPenalty', 'tool:web_search', 'tools.ls.openai.defer_loading'].sort(),
    )
  })

  it('for any request of another provider, carries each setting, tool and field or notes it', () => {
    const settingArb = fc.record(
      {
        maxOutputTokens: fc.nat({ max: 4096 }),
        temperature: fc.double({ min: 0, max: 1, noNaN: true }),
        topP: fc.double({ min: 0, max: 1, noNaN: true }),
        topK: fc.nat({ max: 100 }),
        stop: fc.array(fc.constantFrom('END', '###'), { maxLength: 2 }),
        seed: fc.nat(),
        presencePenalty: fc.double({ min: -2, max: 2, noNaN: true }),
        frequencyPenalty: fc.double({ min: -2, max: 2, noNaN: true }),
        parallelToolCalls: fc.boolean(),
      },
      { requiredKeys: [] },
    )
    const toolArb = fc.oneof(
      fc.record({ name: fc.constantFrom('ls', 'cat', 'grep'), extra: fc.option(fc.constantFrom('defer_loading', 'allowed_callers'), { nil: undefined }) }).map(
        ({ name, extra }): ToolDefinition => ({
          type: 'function',
          name,
          inputSchema: { type: 'object' },
          ...(extra === undefined ? {} : { providerFields: { openai: { [extra]: true } } }),
        }),
      ),
      fc.constantFrom('web_search', 'file_search', 'googleSearch').map((kind): ToolDefinition => ({
        type: 'provider',
        provider: kind === 'googleSearch' ? 'google' : 'openai',
        kind,
        data: { type: kind },
      })),
    )
    const requestArb = fc.record(
      {
        settings: settingArb,
        tools: fc.array(toolArb, { maxLength: 3 }),
        toolChoice: fc.constantFrom<ToolChoice>({ type: 'auto' }, { type: 'none' }, { type: 'required' }, { type: 'tool', name: 'ls' }),
        providerFields: fc.dictionary(
          fc.constantFrom('openai', 'google'),
          fc.dictionary(fc.constantFrom('store', 'reasoning', 'safetySettings'), fc.boolean(), { minKeys: 1 }),
        ),
      },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(requestArb, (extra) => {
        const request: ModelRequest = { model: 'gpt-5', messages: [textMessage('user', 'Hi')], ...extra }
        const { request: body, report } = right(toAnthropicRequest()(request))
        const noted = new Set(report.notes.flatMap((n) => (n.kind === 'setting_dropped' ? [n.setting] : n.kind === 'tool_dropped' ? [`tool:${n.name}`] : [])))
        const s = request.settings ?? {}
        const carried: Record<string, unknown> = {
          maxOutputTokens: body.max_tokens,
          temperature: body.temperature,
          topP: body.top_p,
          topK: body.top_k,
          stop: body.stop_sequences,
        }
        for (const [k, v] of Object.entries(s)) {
          if (k === 'parallelToolCalls' && request.toolChoice?.type === 'none') expect(noted.has(k)).toBe(true)
          else if (k === 'parallelToolCalls')
            expect(body.tool_choice?.disable_parallel_tool_use).toBe(v === false ? true : request.toolChoice === undefined ? undefined : false)
          else if (k in carried) expect(carried[k]).toEqual(v)
          else expect(noted.has(k)).toBe(true)
        }
        for (const tool of request.tools ?? []) {
          if (tool.type === 'provider') expect(noted.has(`tool:${tool.kind}`)).toBe(true)
          else {
            expect(body.tools).toContainEqual(expect.objectContaining({ name: tool.name, input_schema: tool.inputSchema }))
            for (const field of Object.keys(tool.providerFields?.['openai'] ?? {})) expect(noted.has(`tools.${tool.name}.openai.${field}`)).toBe(true)
          }
        }
        for (const [provider, fields] of Object.entries(request.providerFields ?? {}))
          for (const field of Object.keys(fields)) expect(noted.has(`${provider}.${field}`)).toBe(true)
      }),
      { numRuns: 100 },
    )
  })

  it('reports every bad envelope field by path', () => {
    const bad = fromAnthropicRequest({ messages: [], tools: [{ input_schema: {} }], max_tokens: 'many' })
    expect(E.isLeft(bad) && [...new Set(bad.left.map((i) => i.path))].sort()).toEqual(['max_tokens', 'tools[0]'])
  })
})

// --- across providers ---

const TARGETS = {
  'openai-chat': (ms: Messages) => toOpenAIChat()(ms),
  'openai-responses': (ms: Messages) => toOpenAIResponses()(ms),
  gemini: (ms: Messages) => toGemini()(ms),
  'ai-sdk': (ms: Messages) => toModelMessages()(ms),
} as const

/** Anthropic fields another provider carries in its own way (citations as sources in the text). */
const CARRIED = new Set(['citations', 'content', 'is_error'])

/**
 * What the history holds that only Anthropic knows, message by message: each provider part, and each
 * of Anthropic's fields on a built-in part. Each must come out converted or named in a note.
 */
const facts = (ms: Messages): ReadonlyArray<{ readonly message: Message; readonly part: Part }> =>
  forLLM(ms).flatMap((message) =>
    message.parts.filter((p) => p.type === 'provider' || ('providerFields' in p && p.providerFields !== undefined)).map((part) => ({ message, part }))
  )

const accounted = (notes: ReadonlyArray<AdapterNote>, output: string, message: Message, part: Part): boolean => {
  if (part.type === 'provider') {
    return notes.some((n) => (n.kind === 'provider_part_dropped' || n.kind === 'provider_part_mapped') && n.messageId === message.id && n.type === part.kind)
  }
  const fields = ('providerFields' in part ? part.providerFields?.['anthropic'] : undefined) ?? {}
  const dropped = new Set(notes.flatMap((n) => (n.kind === 'provider_fields_dropped' && n.messageId === message.id ? n.fields : [])))
  return Object.entries(fields).every(([k, v]) =>
    dropped.has(k) || (CARRIED.has(k) && (k !== 'citations' || !Array.isArray(v) || v.length === 0 || output.includes('Sources:')))
  )
}

/** A system turn's fields besides its role (`clear_at`, …), which only Anthropic takes. */
const turnFields = (m: Message): ReadonlyArray<string> => {
  const all = m.metadata?.['providerFields'] as { readonly anthropic?: Readonly<Record<string, unknown>> } | undefined
  return Object.keys(all?.anthropic ?? {}).filter((k) => k !== 'role')
}

const crossCheck = (ms: Messages): void => {
  for (const [target, convert] of Object.entries(TARGETS)) {
    const r = convert(ms)
    if (E.isLeft(r)) throw new Error(`${target}: ${JSON.stringify(r.left)}`)
    for (const m of forLLM(ms)) {
      const noted = r.right.report.notes.flatMap((n) => (n.kind === 'provider_fields_dropped' && n.messageId === m.id && n.part === 'message' ? n.fields : []))
      expect(noted).toEqual(turnFields(m))
    }
    const output = JSON.stringify(r.right.request)
    for (const { message, part } of facts(ms)) {
      if (!accounted(r.right.report.notes, output, message, part))
        throw new Error(`${target}: ${part.type === 'provider' ? part.kind : part.type} of ${message.id} left out without a note`)
    }
  }
}

describe('across providers', () => {
  it.each([...corpus, compacted].map((c) => [c.name, c] as const))('every block and field only Anthropic knows is converted or noted: %s', (_, c) => {
    crossCheck(right(fromAnthropic(c.body)))
  })

  it('maps the documented blocks: web search results and citations to text with sources, MCP calls to a call and its result, compaction to its summary', () => {
    const web = right(toOpenAIChat()(right(fromAnthropic((corpus.find((c) => c.name === 'web search with cited results') as CorpusBody).body))))
    const said = JSON.stringify(web.request)
    expect(said).toContain('Eiffel Tower - Wikipedia (https://en.wikipedia.org/wiki/Eiffel_Tower)')
    expect(said).toContain('Sources:')
    expect(web.report.notes).toContainEqual(expect.objectContaining({ kind: 'provider_part_mapped', type: 'web_search_tool_result', to: ['text'] }))
    const mcp = right(toOpenAIResponses()(right(fromAnthropic((corpus.find((c) => c.name.startsWith('MCP')) as CorpusBody).body))))
    expect(mcp.request.input).toContainEqual(
      expect.objectContaining({ type: 'function_call', call_id: 'mcptoolu_014Q35RayjACSWkSj4X2yov1', name: 'roll_dice' }),
    )
    expect(mcp.request.input).toContainEqual(
      expect.objectContaining({ type: 'function_call_output', call_id: 'mcptoolu_014Q35RayjACSWkSj4X2yov1', output: '4' }),
    )
    const summary = right(toGemini()(right(fromAnthropic(compacted.body))))
    expect(JSON.stringify(summary.request.contents)).toContain('the user wants a website for a bakery')
    expect(summary.report.notes).toContainEqual(expect.objectContaining({ kind: 'provider_part_mapped', type: 'compaction', to: ['text'] }))
  })

  it('holds for generated bodies', () => {
    fc.assert(
      fc.property(anthropicBodyArb, (body) => {
        crossCheck(right(fromAnthropic(body)))
      }),
      { numRuns: 60 },
    )
  })
})

describe('generated bodies', () => {
  it('round-trip to themselves', () => {
    fc.assert(
      fc.property(anthropicBodyArb, (body) => {
        const { request, report } = roundTrip(body)
        expect(request).toEqual(body)
        expect(report.notes).toEqual([])
      }),
      { numRuns: 150 },
    )
  })
})
