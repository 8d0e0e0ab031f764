import { describe, expect, it } from 'vitest'
import * as fc from 'fast-check'
import type { Messages } from '../../../src/message/message.ts'
import type { AdapterNote } from '../../../src/adapters/types.ts'
import { toAnthropic } from '../../../src/adapters/anthropic/messages.ts'
import { fromGemini, fromGeminiResponse } from '../../../src/adapters/gemini/contents-from.ts'
import { fromGeminiRequest, toGeminiRequest } from '../../../src/adapters/gemini/request.ts'
import { toGemini } from '../../../src/adapters/gemini/contents.ts'
import { toOpenAIChat } from '../../../src/adapters/openai/chat.ts'
import { toOpenAIResponses } from '../../../src/adapters/openai/responses.ts'
import { textMessage } from '../../../src/message/message.ts'
import { right } from '../support.ts'
import { geminiCorpus } from '../fixtures/gemini-corpus.ts'

const roundTrip = (body: Record<string, unknown>): unknown => right(toGeminiRequest()(right(fromGeminiRequest(body)))).request

/** Markers chatfold adds to `providerFields.google`; not Gemini data. */
const MARKERS = new Set(['alone', 'responseJson'])

/** The Gemini-only facts of a history: each provider part, and each Gemini field on a built-in part. */
const facts = (ms: Messages): { readonly parts: string[]; readonly fields: string[] } => {
  const parts: string[] = []
  const fields: string[] = []
  for (const m of ms) {
    for (const p of m.parts) {
      if (p.type === 'provider') parts.push(`${m.id}/${p.kind}`)
      const google = (p as { readonly providerFields?: { readonly google?: Record<string, unknown> } }).providerFields?.google ?? {}
      for (const k of Object.keys(google)) if (!MARKERS.has(k)) fields.push(`${m.id}/${p.type}/${k}`)
    }
  }
  return { parts: parts.sort(), fields: fields.sort() }
}

/** What the notes account for: each provider part mapped or dropped, each field dropped. */
const accounted = (notes: ReadonlyArray<AdapterNote>): { readonly parts: string[]; readonly fields: string[] } => {
  const parts: string[] = []
  const fields: string[] = []
  for (const n of notes) {
    if ((n.kind === 'provider_part_dropped' || n.kind === 'provider_part_mapped') && n.provider === 'google') parts.push(`${n.messageId}/${n.type}`)
    if (n.kind === 'provider_fields_dropped' && n.provider === 'google') { for (const f of n.fields) fields.push(`${n.messageId}/${n.part}/${f}`) }
  }
  return { parts: parts.sort(), fields: fields.sort() }
}

const others = [
  ['Anthropic', (ms: Messages) => right(toAnthropic({ repair: 'repair' })(ms)).report.notes],
  ['OpenAI Chat', (ms: Messages) => right(toOpenAIChat({ repair: 'repair' })(ms)).report.notes],
  ['OpenAI Responses', (ms: Messages) => right(toOpenAIResponses({ repair: 'repair' })(ms)).report.notes],
] as const

describe('the Gemini corpus', () => {
  for (const { name, body } of geminiCorpus) {
    it(`round-trips to itself: ${name}`, () => {
      expect(roundTrip(body)).toEqual(body)
      const { contents, systemInstruction } = body
      const history = { contents, ...(systemInstruction === undefined ? {} : { systemInstruction }) }
      expect(right(toGemini()(right(fromGemini(history)))).request).toEqual(history)
    })
  }

  it('reports every Gemini part and field another provider does not take', () => {
    for (const { body } of geminiCorpus) {
      const ms = right(fromGeminiRequest(body)).messages
      const want = facts(ms)
      for (const [, convert] of others) expect(accounted(convert(ms))).toEqual(want)
    }
  })
})

describe('Gemini code execution', () => {
  const body = geminiCorpus.find((e) => e.name.startsWith('code execution ('))?.body ?? {}
  const withIds = geminiCorpus.find((e) => e.name.startsWith('code execution with ids'))?.body ?? {}

  it('keeps executableCode and codeExecutionResult in their place', () => {
    const ms = right(fromGeminiRequest(body)).messages
    expect(ms[1]?.parts.map((p) => (p.type === 'provider' ? p.kind : p.type))).toEqual(['text', 'executableCode', 'codeExecutionResult', 'text'])
  })

  it('becomes fenced code and its outcome as text elsewhere when no ids pair them', () => {
    const ms = right(fromGeminiRequest(body)).messages
    const r = right(toAnthropic()(ms))
    expect(r.request.messages[1]?.content).toEqual([
      { type: 'text', text: 'I will compute it.' },
      { type: 'text', text: '```python\nprint(sum(primes[:50]))\n```' },
      { type: 'text', text: 'Code execution result (OUTCOME_OK):\n```\n5117\n\n```' },
      { type: 'text', text: 'The sum is 5117.' },
    ])
    expect(r.report.notes.filter((n) => n.kind === 'provider_part_mapped').map((n) => n.kind === 'provider_part_mapped' && n.to)).toEqual([['text'], ['text']])
  })

  it('becomes a code_execution call and its result when ids pair them; a failed outcome is an error', () => {
    const ms = right(fromGeminiRequest(withIds)).messages
    const chat = right(toOpenAIChat()(ms)).request.messages
    expect(chat.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'ex1', type: 'function', function: { name: 'code_execution', arguments: '{"language":"PYTHON","code":"1/0"}' } }],
      },
      { role: 'tool', tool_call_id: 'ex1', content: 'ZeroDivisionError: division by zero' },
    ])
    const anthropic = right(toAnthropic()(ms)).request.messages
    expect(anthropic[2]?.content).toEqual([{ type: 'tool_result', tool_use_id: 'ex1', content: 'ZeroDivisionError: division by zero', is_error: true }])
  })
})

describe('fromGeminiResponse', () => {
  it('keeps grounding metadata, which other providers get as text with sources', () => {
    const m = right(
      fromGeminiResponse({
        responseId: 'r1',
        candidates: [
          {
            content: { role: 'model', parts: [{ text: 'Spain won Euro 2024.' }] },
            finishReason: 'STOP',
            groundingMetadata: { webSearchQueries: ['euro 2024 winner'], groundingChunks: [{ web: { uri: 'https://uefa.com/a', title: 'uefa.com' } }] },
          },
        ],
      }),
    )
    expect(m.parts[1]).toEqual({
      type: 'provider',
      provider: 'google',
      kind: 'groundingMetadata',
      data: { webSearchQueries: ['euro 2024 winner'], groundingChunks: [{ web: { uri: 'https://uefa.com/a', title: 'uefa.com' } }] },
    })
    const chat = right(toOpenAIChat()([textMessage('user', 'Who won?'), m])).request.messages
    expect(chat[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Spain won Euro 2024.' },
        { type: 'text', text: 'Sources (searched: euro 2024 winner):\n- uefa.com: https://uefa.com/a' },
      ],
    })
    const back = right(toGemini()([textMessage('user', 'Who won?'), m]))
    expect(back.request.contents[1]).toEqual({ role: 'model', parts: [{ text: 'Spain won Euro 2024.' }] })
    expect(back.report.notes).toContainEqual(expect.objectContaining({ kind: 'omitted_part', part: 'provider' }))
  })
})

describe('the Gemini request envelope', () => {
  it('maps tools, tool choice and settings from another provider, noting what Gemini cannot take', () => {
    const r = right(
      toGeminiRequest()({
        model: 'gemini-2.5-pro',
        messages: [textMessage('system', 'Be brief.'), textMessage('user', 'Hi')],
        tools: [
          { type: 'function', name: 'ls', inputSchema: { type: 'object', properties: { dir: { type: 'string' } } }, strict: true },
          { type: 'function', name: 'union', inputSchema: { type: 'object', properties: { x: { type: ['string', 'null'] } } } },
          { type: 'provider', provider: 'anthropic', kind: 'web_search_20250305', data: { type: 'web_search_20250305', name: 'web_search' } },
        ],
        toolChoice: { type: 'tool', name: 'ls' },
        settings: { maxOutputTokens: 100, stop: ['x'], parallelToolCalls: false },
        providerFields: { anthropic: { metadata: { user_id: 'u' } } },
      }),
    )
    expect(r.request).toEqual({
      model: 'gemini-2.5-pro',
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
      tools: [
        {
          functionDeclarations: [
            { name: 'ls', parameters: { type: 'OBJECT', properties: { dir: { type: 'STRING' } } } },
            { name: 'union', parametersJsonSchema: { type: 'object', properties: { x: { type: ['string', 'null'] } } } },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['ls'] } },
      generationConfig: { maxOutputTokens: 100, stopSequences: ['x'] },
    })
    expect(r.report.notes).toEqual(
      expect.arrayContaining([
        { kind: 'tool_dropped', name: 'web_search_20250305', reason: 'a tool of anthropic that Gemini does not have' },
        { kind: 'setting_dropped', setting: 'tools.ls.strict', reason: 'Gemini function declarations have no strict mode' },
        { kind: 'setting_dropped', setting: 'parallelToolCalls', reason: 'Gemini has no such setting' },
        { kind: 'setting_dropped', setting: 'anthropic.metadata', reason: 'a field only anthropic knows' },
      ]),
    )
  })

  it('reads the nearest tool choice of a config that says more, and writes the config back as it was', () => {
    const body = geminiCorpus.find((e) => e.name.includes('VALIDATED'))?.body ?? {}
    const request = right(fromGeminiRequest(body))
    expect(request.toolChoice).toEqual({ type: 'auto' })
    expect(request.tools?.map((t) => (t.type === 'function' ? t.name : t.kind))).toEqual(['book', 'ping', 'googleMaps', 'fileSearch', 'computerUse'])
  })

  it('reads the @google/genai shape as the REST body it stands for', () => {
    const body = geminiCorpus.find((e) => e.name.includes('@google/genai'))?.body ?? {}
    const request = right(fromGeminiRequest(body))
    expect(request.settings).toEqual({ temperature: 0.2, maxOutputTokens: 512 })
    expect(request.toolChoice).toEqual({ type: 'auto' })
    expect(request.messages[0]?.role).toBe('system')
    const bad = fromGeminiRequest({ contents: [], config: { tools: [{ functionDeclarations: [{}] }] } })
    expect(bad._tag === 'Left' && bad.left.map((i) => i.path)).toEqual(['config.tools[0].functionDeclarations[0]'])
  })

  it('reports bad fields by path', () => {
    const bad = fromGeminiRequest({ contents: [{ role: 'robot', parts: [] }], tools: [{ functionDeclarations: [{ description: 'no name' }] }] })
    expect(bad._tag === 'Left' && bad.left.map((i) => i.path).sort()).toEqual(['contents[0].role', 'tools[0].functionDeclarations[0]'])
  })
})

// --- generated bodies ---

const word = fc.string({ minLength: 1, maxLength: 8 })
const meta = fc.option(fc.record({ partMetadata: fc.dictionary(fc.constantFrom('a', 'b'), fc.integer()) }), { nil: undefined })
const extra = <A extends Record<string, unknown>>(part: fc.Arbitrary<A>) => fc.tuple(part, meta).map(([p, m]) => ({ ...p, ...(m ?? {}) }))
const media = fc.oneof(
  fc.record({
    inlineData: fc.record({ mimeType: fc.constantFrom('image/png', 'application/pdf', 'audio/wav'), data: fc.constantFrom('iVBORw0KGgo=', 'AAEC') }),
  }),
  fc.record({ fileData: fc.record({ fileUri: word.map((w) => `gs://b/${w}`), mimeType: fc.constantFrom('video/mp4', 'image/jpeg') }) }),
)
const userPart = extra(fc.oneof(fc.record({ text: word }), media))
const modelPart = fc.oneof(
  extra(fc.record({ text: word })),
  fc.record({ text: word, thought: fc.constant(true), thoughtSignature: word }),
  fc.record({ text: word, thoughtSignature: word }),
  extra(media),
  fc.record({ executableCode: fc.record({ language: fc.constant('PYTHON'), code: word }) }),
  fc.record({ codeExecutionResult: fc.record({ outcome: fc.constantFrom('OUTCOME_OK', 'OUTCOME_FAILED'), output: word }) }),
)
const call = fc.record({ name: fc.constantFrom('f', 'g'), args: fc.dictionary(fc.constantFrom('x', 'y'), fc.oneof(fc.integer(), word, fc.boolean())) })
const turn = fc.tuple(fc.array(modelPart, { maxLength: 3 }), fc.array(call, { maxLength: 2 }), fc.array(userPart, { minLength: 1, maxLength: 2 }), fc.boolean())

/** A valid body: user turns answering every call of the model turn before them. */
const bodies = fc.tuple(fc.array(userPart, { minLength: 1, maxLength: 2 }), fc.array(turn, { maxLength: 3 })).map(([first, turns]) => {
  let n = 0
  const contents: Array<Record<string, unknown>> = [{ role: 'user', parts: first }]
  for (const [parts, calls, after, errors] of turns) {
    const ids = calls.map(() => `c${n++}`)
    const called = calls.map((c, i) => ({ functionCall: { id: ids[i], ...c } }))
    // a turn of thoughts alone is no turn (chatfold refuses reasoning-only messages)
    if (called.length === 0 && parts.every((p) => 'thought' in p)) continue
    contents.push({ role: 'model', parts: [...parts, ...called] })
    const answers = calls.map((c, i) => ({ functionResponse: { id: ids[i], name: c.name, response: errors ? { error: 'failed' } : { output: `r${i}` } } }))
    contents.push({ role: 'user', parts: [...answers, ...after] })
  }
  return { contents }
})

describe('generated Gemini bodies', () => {
  it('round-trip to themselves, and other providers account for every Gemini part and field', () => {
    fc.assert(
      fc.property(bodies, (body) => {
        expect(roundTrip(body)).toEqual(body)
        const ms = right(fromGemini(body))
        const want = facts(ms)
        for (const [, convert] of others) expect(accounted(convert(ms))).toEqual(want)
      }),
      { numRuns: 60 },
    )
  })
})

const schema: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ s: Record<string, unknown> }>((tie) => ({
  s: fc.oneof(
    { depthSize: 'small' },
    fc.record({ type: fc.constantFrom('STRING', 'INTEGER', 'NUMBER', 'BOOLEAN'), description: word }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constant('ARRAY'), items: tie('s') }),
    fc.record({ type: fc.constant('OBJECT'), properties: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('s'), { maxKeys: 2 }) }),
  ),
})).s
const declaration = fc.oneof(
  fc.record({ name: fc.constantFrom('f', 'g'), description: word, parameters: schema.map((s) => ({ type: 'OBJECT', properties: { x: s } })) }, {
    requiredKeys: ['name', 'parameters'],
  }),
  fc.record({ name: fc.constant('h'), parametersJsonSchema: fc.constant({ type: 'object', properties: { x: { type: ['string', 'null'] } } }) }),
)
const envelope = fc.record(
  {
    model: fc.constantFrom('gemini-2.5-pro', 'gemini-3-pro-preview'),
    tools: fc.tuple(fc.array(declaration, { minLength: 1, maxLength: 2 }), fc.subarray([{ googleSearch: {} }, { codeExecution: {} }, { urlContext: {} }])).map((
      [fs, others],
    ) => [{ functionDeclarations: fs }, ...others]),
    toolConfig: fc.oneof(
      fc.constantFrom('AUTO', 'ANY', 'NONE', 'VALIDATED').map((mode) => ({ functionCallingConfig: { mode } })),
      fc.constant({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f', 'g'] } }),
    ),
    generationConfig: fc.record(
      {
        maxOutputTokens: fc.nat(4096),
        temperature: fc.constantFrom(0, 0.5, 1),
        topK: fc.nat(64),
        stopSequences: fc.array(word, { maxLength: 2 }),
        seed: fc.integer(),
        thinkingConfig: fc.record({ thinkingBudget: fc.nat(2048) }),
      },
      { requiredKeys: [] },
    ),
    safetySettings: fc.constant([{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_ONLY_HIGH' }]),
  },
  { requiredKeys: [] },
)

describe('generated Gemini request envelopes', () => {
  it('round-trip to themselves, in either shape', () => {
    fc.assert(
      fc.property(envelope, (e) => {
        const body = { ...e, contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }
        const fixed = Object.keys(body.generationConfig ?? { x: 1 }).length === 0 ? (({ generationConfig: _, ...rest }) => rest)(body) : body
        expect(roundTrip(fixed)).toEqual(fixed)
        const { model, contents, generationConfig, ...rest } = fixed as typeof body
        const config = { ...generationConfig, ...rest }
        const sdk = { ...(model === undefined ? {} : { model }), contents, ...(Object.keys(config).length === 0 ? {} : { config }) }
        expect(roundTrip(sdk)).toEqual(sdk)
      }),
      { numRuns: 60 },
    )
  })
})
