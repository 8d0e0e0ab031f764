import { describe, expect, it } from 'vitest'
import * as fc from 'fast-check'
import type { Messages } from '../../../src/message/message.ts'
import type { AdapterNote } from '../../../src/adapters/types.ts'
import { fromModelMessages } from '../../../src/adapters/ai-sdk/model-messages-from.ts'
import { fromUIMessages } from '../../../src/adapters/ai-sdk/ui-messages-from.ts'
import { toUIMessages } from '../../../src/adapters/ai-sdk/ui-messages.ts'
import { toModelMessages } from '../../../src/adapters/ai-sdk/model-messages.ts'
import { toAnthropic } from '../../../src/adapters/anthropic/messages.ts'
import { toGemini } from '../../../src/adapters/gemini/contents.ts'
import { toOpenAIChat } from '../../../src/adapters/openai/chat.ts'
import { toOpenAIResponses } from '../../../src/adapters/openai/responses.ts'
import { right } from '../support.ts'
import { modelCorpus, uiCorpus } from '../fixtures/ai-sdk-corpus.ts'

const modelTrip = (messages: unknown): unknown => right(toModelMessages()(right(fromModelMessages({ messages })))).request.messages
const uiTrip = (messages: unknown): unknown => right(toUIMessages()(right(fromUIMessages({ messages })))).request.messages

/** Markers chatfold adds to `providerFields['ai-sdk']`: how a part came, nothing a provider takes. */
const MARKERS = new Set(['outputType', 'inputText', 'state', 'alone', 'dataUrl', 'base64', 'file', 'noInput', 'dynamic', 'providerExecuted'])

/** The AI SDK-only facts of a history: each provider part, and each AI SDK field on a built-in part. */
const facts = (ms: Messages): { readonly parts: string[]; readonly fields: string[] } => {
  const parts: string[] = []
  const fields: string[] = []
  for (const m of ms) {
    // message-level fields (a message's providerOptions) are noted as fields of the part 'message'
    const own = m.metadata?.['providerFields']
    const sdk = typeof own === 'object' && own !== null ? (own as Readonly<Record<string, unknown>>)['ai-sdk'] : undefined
    if (typeof sdk === 'object' && sdk !== null) { for (const k of Object.keys(sdk)) if (!MARKERS.has(k)) fields.push(`${m.id}/message/${k}`) }
    for (const p of m.parts) {
      if (p.type === 'provider') parts.push(`${m.id}/${p.kind}`)
      const own = (p as { readonly providerFields?: Readonly<Record<string, Record<string, unknown>>> }).providerFields?.['ai-sdk'] ?? {}
      for (const k of Object.keys(own)) if (!MARKERS.has(k)) fields.push(`${m.id}/${p.type}/${k}`)
    }
  }
  return { parts: parts.sort(), fields: fields.sort() }
}

/** What the notes account for: each provider part dropped or mapped, each field dropped. */
const accounted = (notes: ReadonlyArray<AdapterNote>): { readonly parts: string[]; readonly fields: string[] } => {
  const parts: string[] = []
  const fields: string[] = []
  for (const n of notes) {
    if ((n.kind === 'provider_part_dropped' || n.kind === 'provider_part_mapped') && n.provider === 'ai-sdk') parts.push(`${n.messageId}/${n.type}`)
    if (n.kind === 'provider_fields_dropped' && n.provider === 'ai-sdk') {
      for (const f of n.fields) fields.push(`${n.messageId.replace(/:\d+$/, '')}/${n.part}/${f}`)
    }
  }
  return { parts: parts.sort(), fields: fields.sort() }
}

const others = [
  ['Anthropic', (ms: Messages) => right(toAnthropic({ repair: 'repair' })(ms)).report.notes],
  ['OpenAI Chat', (ms: Messages) => right(toOpenAIChat({ repair: 'repair' })(ms)).report.notes],
  ['OpenAI Responses', (ms: Messages) => right(toOpenAIResponses({ repair: 'repair' })(ms)).report.notes],
  ['Gemini', (ms: Messages) => right(toGemini({ repair: 'repair' })(ms)).report.notes],
] as const

describe('the AI SDK ModelMessage corpus', () => {
  for (const { name, messages } of modelCorpus) {
    it(`round-trips to itself: ${name}`, () => {
      expect(modelTrip(messages)).toEqual(messages)
    })
  }

  it('reports every AI SDK part and field a provider does not take', () => {
    for (const { messages } of modelCorpus) {
      const ms = right(fromModelMessages({ messages }))
      for (const [, convert] of others) expect(accounted(convert(ms))).toEqual(facts(ms))
    }
  })
})

describe('the AI SDK UIMessage corpus', () => {
  for (const { name, messages } of uiCorpus) {
    it(`round-trips to itself: ${name}`, () => {
      expect(uiTrip(messages)).toEqual(messages)
    })
  }

  it('reports every AI SDK part and field a provider does not take', () => {
    for (const { messages } of uiCorpus) {
      const ms = right(fromUIMessages({ messages }))
      for (const [, convert] of others) expect(accounted(convert(ms))).toEqual(facts(ms))
    }
  })
})

describe('tool input as JSON text', () => {
  const ui = [
    { id: 'u', role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
    {
      id: 'a',
      role: 'assistant',
      parts: [{ type: 'step-start' }, { type: 'tool-weather', toolCallId: 'c1', state: 'output-available', input: '{"city":"Oslo"}', output: 'cold' }],
    },
  ]

  it('is the call’s arguments, never a JSON string of them', () => {
    const ms = right(fromUIMessages({ messages: ui }))
    expect(ms[1]?.parts[0]).toMatchObject({ type: 'tool_call', arguments: '{"city":"Oslo"}' })
    const model = right(
      fromModelMessages({ messages: [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'w', input: '{"a":1}' }] }] }),
    )
    expect(model[0]?.parts[0]).toMatchObject({ type: 'tool_call', arguments: '{"a":1}' })
  })

  it('reaches a provider as the object it is; repair has nothing to replace', () => {
    const ms = right(fromUIMessages({ messages: ui }))
    const r = right(toAnthropic({ repair: 'repair' })(ms))
    expect(r.request.messages[1]?.content).toEqual([{ type: 'tool_use', id: 'c1', name: 'weather', input: { city: 'Oslo' } }])
    expect(r.report.notes.filter((n) => n.kind === 'arguments_replaced')).toEqual([])
  })
})

describe('a v4-era UI message', () => {
  it('is read from its parts, not its stale content; a message with content only is read from it', () => {
    const ms = right(
      fromUIMessages({
        messages: [
          { id: 'u1', role: 'user', content: 'The stale question', parts: [{ type: 'text', text: 'The real question, edited.' }] },
          { id: 'u2', role: 'user', content: 'Only content' },
        ],
      }),
    )
    expect(ms.map((m) => m.parts)).toEqual([[{ type: 'text', text: 'The real question, edited.' }], [{ type: 'text', text: 'Only content' }]])
    expect(right(toModelMessages()(ms)).request.messages).toEqual([
      { role: 'user', content: 'The real question, edited.' },
      { role: 'user', content: 'Only content' },
    ])
  })

  it('without parts or content is reported by path', () => {
    const r = fromUIMessages({ messages: [{ id: 'u1', role: 'user' }] })
    expect(r._tag === 'Left' && r.left.map((i) => i.path)).toEqual(['messages[0].parts'])
  })
})

// --- generated messages ---

const word = fc.string({ minLength: 1, maxLength: 8 })
const json = fc.dictionary(fc.constantFrom('a', 'b'), fc.oneof(fc.integer(), word, fc.boolean()))
const options = fc.option(fc.record({ anthropic: fc.record({ cacheControl: fc.constant({ type: 'ephemeral' }) }) }), { nil: undefined })
const withOptions = <A extends Record<string, unknown>>(a: fc.Arbitrary<A>) =>
  fc.tuple(a, options).map(([p, o]) => (o === undefined ? p : { ...p, providerOptions: o }))
const userPart = fc.oneof(
  withOptions(fc.record({ type: fc.constant('text'), text: word })),
  withOptions(
    fc.record({ type: fc.constant('image'), image: fc.constantFrom('iVBORw0KGgo=', 'https://example.com/a.png'), mediaType: fc.constant('image/png') }),
  ),
  withOptions(
    fc.record({
      type: fc.constant('file'),
      data: fc.constantFrom('data:application/pdf;base64,JVBERi0=', 'JVBERi0='),
      mediaType: fc.constant('application/pdf'),
      filename: word,
    }),
  ),
)
const output = fc.oneof(
  fc.record({ type: fc.constantFrom('text', 'error-text'), value: word }),
  fc.record({ type: fc.constantFrom('json', 'error-json'), value: json }),
  fc.record({ type: fc.constant('execution-denied'), reason: word }),
)
const turn = fc.tuple(
  fc.array(withOptions(fc.record({ type: fc.constant('text'), text: word })), { maxLength: 2 }),
  fc.array(fc.tuple(fc.oneof(json, json.map((j) => JSON.stringify(j))), output), { maxLength: 2 }),
  fc.array(userPart, { minLength: 2, maxLength: 3 }),
)

/** Valid messages: each assistant turn's calls answered by the tool message after it. */
const conversations = fc.array(turn, { minLength: 1, maxLength: 3 }).map((turns) => {
  let n = 0
  const messages: Array<Record<string, unknown>> = []
  for (const [texts, calls, user] of turns) {
    messages.push({ role: 'user', content: user })
    const ids = calls.map(() => `c${n++}`)
    const content = [...texts, ...calls.map(([input], i) => ({ type: 'tool-call', toolCallId: ids[i], toolName: 'f', input }))]
    if (content.length === 0) continue
    messages.push({ role: 'assistant', content })
    if (calls.length > 0)
      messages.push({ role: 'tool', content: calls.map(([, out], i) => ({ type: 'tool-result', toolCallId: ids[i], toolName: 'f', output: out })) })
  }
  return messages
})

/** The documented normalisation: a user or assistant content of one plain text part is that text. */
const normalised = (messages: ReadonlyArray<Record<string, unknown>>): unknown =>
  messages.map((m) => {
    const c = m['content']
    const only = Array.isArray(c) && c.length === 1 ? (c[0] as Record<string, unknown>) : undefined
    return m['role'] !== 'tool' && only?.['type'] === 'text' && only['providerOptions'] === undefined ? { ...m, content: only['text'] } : m
  })

describe('generated ModelMessages', () => {
  it('round-trip to themselves, and providers account for every AI SDK part and field', () => {
    fc.assert(
      fc.property(conversations, (messages) => {
        expect(modelTrip(messages)).toEqual(normalised(messages))
        const ms = right(fromModelMessages({ messages }))
        for (const [, convert] of others) expect(accounted(convert(ms))).toEqual(facts(ms))
      }),
      { numRuns: 50 },
    )
  })
})

// --- generated UI messages ---

const state = fc.constantFrom<Record<string, unknown>>({}, { state: 'done' }, { state: 'streaming' })
const input = fc.oneof(json, json.map((j) => JSON.stringify(j)))
const toolState = fc.oneof(
  fc.record({ state: fc.constant('output-available'), output: fc.oneof(json, word) }),
  fc.record({ state: fc.constant('output-error'), errorText: word }),
  fc.record({ state: fc.constant('input-available') }),
  fc.record({ state: fc.constant('approval-requested'), approval: fc.record({ id: word }) }),
  fc.record({ state: fc.constant('output-denied'), approval: fc.record({ id: word, approved: fc.constant(false), reason: word }) }),
)
const content = fc.oneof(
  fc.tuple(word, state).map(([text, s]) => ({ type: 'text', text, ...s })),
  fc.tuple(word, state).map(([text, s]) => ({ type: 'reasoning', text, ...s })),
  fc.tuple(fc.constantFrom('weather', 'ls'), input, toolState).map(([name, i, s]) => ({ type: `tool-${name}`, toolCallId: '', input: i, ...s })),
)
const extra = fc.oneof(
  fc.record({ type: fc.constant('data-note'), data: json }),
  fc.record({ type: fc.constant('source-url'), sourceId: word, url: fc.constant('https://example.com') }),
)
const step = fc.tuple(fc.array(content, { minLength: 1, maxLength: 3 }), fc.option(extra, { nil: undefined })).map((
  [parts, more],
) => [{ type: 'step-start' }, ...parts, ...(more === undefined ? [] : [more])])
const uiConversation = fc.array(
  fc.tuple(fc.array(fc.record({ type: fc.constant('text'), text: word }), { minLength: 1, maxLength: 2 }), fc.array(step, { minLength: 1, maxLength: 2 })),
  { minLength: 1, maxLength: 2 },
).map((turns) => {
  let n = 0
  return turns.flatMap(([user, steps], t) => [
    { id: `u${t}`, role: 'user', parts: user },
    { id: `a${t}`, role: 'assistant', parts: steps.flat().map((p) => ('toolCallId' in p ? { ...p, toolCallId: `c${n++}` } : p)) },
  ])
})

describe('generated UI messages', () => {
  it('round-trip to themselves, and providers account for every AI SDK part and field', () => {
    fc.assert(
      fc.property(uiConversation, (messages) => {
        expect(uiTrip(messages)).toEqual(messages)
        const ms = right(fromUIMessages({ messages }))
        for (const [, convert] of others) expect(accounted(convert(ms))).toEqual(facts(ms))
      }),
      { numRuns: 60 },
    )
  })
})
