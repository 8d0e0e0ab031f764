import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { fromOpenAIChat } from '../../../src/adapters/openai/chat-from.ts'
import { toOpenAIChat } from '../../../src/adapters/openai/chat.ts'
import { fromOpenAIChatRequest, toOpenAIChatRequest, toOpenAIResponsesRequest } from '../../../src/adapters/openai/request.ts'
import { fromOpenAIResponses } from '../../../src/adapters/openai/responses-from.ts'
import { toOpenAIResponses } from '../../../src/adapters/openai/responses.ts'
import { type ModelRequest } from '../../../src/adapters/request.ts'
import { type AdapterNote } from '../../../src/adapters/types.ts'
import { textMessage } from '../../../src/message/message.ts'
import { uncovered } from './facts.ts'
import { right } from '../support.ts'

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
        fc.record({ id: fc.boolean(), summaries: fc.array(word, { maxLength: 2 }), encrypted: fc.option(word, { nil: undefined }) }).map((
          { id, summaries, encrypted },
        ) => ({
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
          word.map((text) => ({
            type: 'message',
            id: `msg_${n}`,
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text, annotations: [] }],
          })),
        ),
        { nil: undefined },
      ),
      kept: fc.option(
        fc.oneof(
          word.map((query) => ({ type: 'web_search_call', id: `ws_${n}`, status: 'completed', action: { type: 'search', query } })),
          fc.constant({ type: 'item_reference', id: `ref_${n}` }),
          word.map((result) => ({ type: 'image_generation_call', id: `ig_${n}`, status: 'completed', result })),
          fc.jsonValue({ maxDepth: 2 }).map((extra) => ({
            type: 'mcp_call',
            id: `mcp_${n}`,
            server_label: 's',
            name: 't',
            arguments: '{}',
            output: JSON.stringify(extra),
          })),
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
        c.custom ? { type: 'custom_tool_call', call_id: `c${n}_${j}`, name: 'apply_patch', input: c.input, ...(c.id ? { id: `ctc_${n}_${j}` } : {}) } : {
          type: 'function_call',
          call_id: `c${n}_${j}`,
          name: 'f',
          arguments: JSON.stringify({ q: c.input }),
          ...(c.id ? { id: `fc_${n}_${j}`, status: 'completed' } : {}),
        }
      ),
      ...calls.map((c, j) => ({ type: c.custom ? 'custom_tool_call_output' : 'function_call_output', call_id: `c${n}_${j}`, output: c.output })),
    ])

const responsesBody = fc.integer({ min: 1, max: 4 }).chain((turns) =>
  fc.tuple(...Array.from({ length: turns }, (_, n) => responsesTurn(n))).map((ts) => ({ input: ts.flat() }))
)

const chatTurn = (n: number) =>
  fc
    .record({
      system: fc.option(fc.record({ role: fc.constantFrom('system', 'developer'), text: word, name: fc.option(word, { nil: undefined }) }), { nil: undefined }),
      user: fc.oneof(
        word.map((text) => ({ role: 'user', content: text })),
        fc.record({ text: word, detail: fc.option(fc.constantFrom('auto', 'low'), { nil: undefined }) }).map(({ text, detail }) => ({
          role: 'user',
          content: [{ type: 'text', text }, {
            type: 'image_url',
            image_url: { url: `https://example.com/${n}.png`, ...(detail === undefined ? {} : { detail }) },
          }],
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
        ...(calls.length === 0 ? {} : {
          tool_calls: calls.map((c, j) =>
            c.custom
              ? { id: `c${n}_${j}`, type: 'custom', custom: { name: 'p', input: c.input } }
              : { id: `c${n}_${j}`, type: 'function', function: { name: 'f', arguments: JSON.stringify({ q: c.input }) } }
          ),
        }),
      },
      ...calls.map((c, j) => ({ role: 'tool', tool_call_id: `c${n}_${j}`, content: c.output })),
    ])
    .filter((ms) => ms.some((m) => m.role === 'assistant' && (m.content !== null || 'tool_calls' in m)))

const chatBody = fc.integer({ min: 1, max: 4 }).chain((turns) =>
  fc.tuple(...Array.from({ length: turns }, (_, n) => chatTurn(n))).map((ts) => ({ messages: ts.flat() }))
)

describe('generated bodies', () => {
  it('any Chat request settings and extra fields go back as they came and extra fields go back as they came (generated)', () => {
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

describe('a request from another provider', () => {
  const FIELDS: Readonly<Record<string, { readonly responses?: string; readonly chat?: string }>> = {
    maxOutputTokens: { responses: 'max_output_tokens', chat: 'max_completion_tokens' },
    temperature: { responses: 'temperature', chat: 'temperature' },
    topP: { responses: 'top_p', chat: 'top_p' },
    topK: {},
    stop: { chat: 'stop' },
    seed: { chat: 'seed' },
    presencePenalty: { chat: 'presence_penalty' },
    frequencyPenalty: { chat: 'frequency_penalty' },
    parallelToolCalls: { responses: 'parallel_tool_calls', chat: 'parallel_tool_calls' },
  }
  const settings = fc.record(
    {
      maxOutputTokens: fc.nat(),
      temperature: fc.double({ min: 0, max: 1, noNaN: true }),
      topP: fc.double({ min: 0, max: 1, noNaN: true }),
      topK: fc.nat(),
      stop: fc.array(word, { minLength: 1, maxLength: 2 }),
      seed: fc.integer(),
      presencePenalty: fc.double({ min: 0, max: 1, noNaN: true }),
      frequencyPenalty: fc.double({ min: 0, max: 1, noNaN: true }),
      parallelToolCalls: fc.boolean(),
    },
    { requiredKeys: [] },
  )
  const request = fc.record({
    settings,
    extras: fc.dictionary(fc.constantFrom('thinking', 'metadata', 'safetySettings', 'top_k'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
    provider: fc.constantFrom('anthropic', 'google'),
    tools: fc.array(fc.record({ provider: fc.boolean(), name: fc.stringMatching(/^[a-z]{1,6}$/) }), { maxLength: 3 }),
  })

  it('carries each setting and tool or names it in a note', () => {
    fc.assert(
      fc.property(request, fc.constantFrom('responses', 'chat'), ({ settings: s, extras, provider, tools }, api) => {
        const r: ModelRequest = {
          messages: [textMessage('user', 'Hi')],
          settings: s,
          tools: tools.map((t) =>
            t.provider
              ? { type: 'provider', provider, kind: `${t.name}_tool`, data: { type: t.name } }
              : { type: 'function', name: t.name, inputSchema: { type: 'object' } }
          ),
          ...(Object.keys(extras).length === 0 ? {} : { providerFields: { [provider]: extras } }),
        }
        const { request: body, report }: {
          readonly request: Readonly<Record<string, unknown>>
          readonly report: { readonly notes: ReadonlyArray<AdapterNote> }
        } = api === 'responses' ? right(toOpenAIResponsesRequest()(r)) : right(toOpenAIChatRequest()(r))
        const noted = new Set(report.notes.flatMap((n) => (n.kind === 'setting_dropped' ? [n.setting] : n.kind === 'tool_dropped' ? [n.name] : [])))
        for (const [key, value] of Object.entries(s)) {
          const field = FIELDS[key]?.[api]
          if (field === undefined) expect(noted.has(key)).toBe(true)
          else expect(body[field]).toEqual(value)
        }
        for (const k of Object.keys(extras)) expect(noted.has(`${provider}.${k}`)).toBe(true)
        const written = (body['tools'] as ReadonlyArray<unknown>).length
        expect(written).toBe(tools.filter((t) => !t.provider).length)
        for (const t of tools) if (t.provider) expect(noted.has(`${t.name}_tool`)).toBe(true)
      }),
      { numRuns: 100 },
    )
  })
})
