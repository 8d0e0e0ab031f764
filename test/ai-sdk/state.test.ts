import { generateText, type ModelMessage, wrapLanguageModel } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { createChatStore } from '../../src/store/store.ts'
import { createChatHandler } from '../../src/store/http.ts'
import { conversationIds } from '../../src/store/state.ts'
import {
  chatStoreContextState,
  contextMiddleware,
  type ContextMiddlewareOptions,
  type ContextOptions,
  contextPrepareStep,
  type ContextRecord,
  type ContextStateStore,
  type LanguageModelCallOptions,
  memoryContextState,
} from '../../src/ai-sdk/mod.ts'

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } }
const SUMMARY = '## Goal\n- fix\n## Constraints\n- none\n## Progress\n- read\n## Decisions\n- none\n## Next steps\n- test\n## Files\n- cart.ts'

const recording = (calls: LanguageModelCallOptions[]) =>
  new MockLanguageModelV3({
    provider: 'anthropic.messages',
    doGenerate: async (params) => {
      calls.push(params)
      return { content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] }
    },
  })

/**
 * The messages a chat route is sent at turn `n`: every earlier turn's request, tool round and
 * answer, then its request; each tool result `lines` times a line of the file (large enough for
 * the cache-aware pruner to make batches between the compactions).
 */
const lines = 150
const turn = (n: number): ModelMessage[] => [
  ...Array.from({ length: n }, (_, i): ModelMessage[] => [
    { role: 'user', content: i === 0 ? 'The cart total is off by a cent.' : `Go on with step ${i}.` },
    {
      role: 'assistant',
      content: [{ type: 'text', text: `Reading part ${i}.` }, { type: 'tool-call', toolCallId: `c${i}`, toolName: 'read', input: { part: i } }],
    },
    {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: `c${i}`, toolName: 'read', output: { type: 'text', value: `line ${i} of the file `.repeat(lines) } }],
    },
    { role: 'assistant', content: `Part ${i} read: ${'the rounding happens before the discount is applied, '.repeat(60)}` },
  ]).flat(),
  { role: 'user', content: n === 0 ? 'The cart total is off by a cent.' : `Go on with step ${n}.` },
]

/** Twelve turns of a chat route: the prompts the model was sent, and how many times the summariser ran. */
const run = async (
  middlewareOf: () => ReturnType<typeof contextMiddleware>,
): Promise<{ prompts: LanguageModelCallOptions['prompt'][]; summaries: number; records: ContextRecord[] }> => {
  const calls: LanguageModelCallOptions[] = []
  const records: ContextRecord[] = []
  for (let n = 1; n <= 12; n++) {
    const model = wrapLanguageModel({ model: recording(calls), middleware: middlewareOf() })
    const r = await generateText({ model, system: 'You are a coding agent.', messages: turn(n) })
    const record = r.providerMetadata?.['chatfold']
    if (record !== undefined) records.push(record as ContextRecord)
  }
  return { prompts: calls.map((c) => c.prompt), summaries: summarised.splice(0).length, records }
}
const summarised: string[] = []
const options = (state?: ContextStateStore): ContextOptions => ({
  contextWindow: 4_000,
  reserveTokens: 500,
  summarize: async (transcript) => (summarised.push(transcript), SUMMARY),
  ...(state === undefined ? {} : { state }),
})

describe('a middleware made per request, given a state store', () => {
  it('sends the same prompts, and summarises as often, as one kept for the process', async () => {
    const kept = contextMiddleware(options())
    const once = await run(() => kept)
    const state = memoryContextState()
    const perRequest = await run(() => contextMiddleware(options(state)))
    const forgetful = await run(() => contextMiddleware(options()))
    expect(once.summaries).toBeGreaterThanOrEqual(2)
    // the cache-aware pruner made batches between the compactions (their state kept with the summary)
    expect(once.records.filter((r) => r.prunedResults > 0 && r.compaction === null).length).toBeGreaterThanOrEqual(2)
    expect(perRequest.prompts).toEqual(once.prompts)
    expect(perRequest.summaries).toBe(once.summaries)
    expect(perRequest.records).toEqual(once.records)
    // without one, each request summarises the whole head again (7 times here)
    expect(forgetful.summaries).toBeGreaterThan(once.summaries)
    expect(forgetful.prompts).not.toEqual(once.prompts)
  })

  it('keeps the state in a chat store as well, and the conversation in it apart', async () => {
    const kept = contextMiddleware(options())
    const once = await run(() => kept)
    const store = createChatStore()
    const perRequest = await run(() => contextMiddleware(options(chatStoreContextState({ store }))))
    expect(perRequest.prompts).toEqual(once.prompts)
    expect(perRequest.summaries).toBe(once.summaries)
    // one conversation of the store holds the state, one message a call past the limit (the
    // pruner's state changes with each: what it answered last, and how fast the history grows)
    expect(conversationIds(store.state()).length).toBe(1)
    expect(store.state().updateCount).toBe(once.records.length)
  })

  it('takes up a kept summary only for a conversation that still starts with what it replaced', async () => {
    const state = memoryContextState()
    await run(() => contextMiddleware(options(state)))
    const calls: LanguageModelCallOptions[] = []
    const edited = turn(12).map((
      m,
      i,
    ) => (i === 2 && m.role === 'tool'
      ? { ...m, content: m.content.map((p) => (p.type === 'tool-result' ? { ...p, output: { type: 'text' as const, value: 'edited' } } : p)) }
      : m)
    )
    const model = wrapLanguageModel({ model: recording(calls), middleware: contextMiddleware(options(state)) })
    await generateText({ model, system: 'You are a coding agent.', messages: edited })
    expect(summarised.splice(0)).toHaveLength(1)
    expect(JSON.stringify(calls[0]?.prompt)).not.toContain('edited')
  })

  it('does not take a pruning state this version cannot read, and names it in the record', async () => {
    const state: ContextStateStore = { get: async () => ({ version: 2, boundary: null, pruning: { version: 7 } }), set: async () => undefined }
    const model = wrapLanguageModel({ model: recording([]), middleware: contextMiddleware(options(state)) })
    const r = await generateText({ model, system: 'You are a coding agent.', messages: turn(4) })
    summarised.splice(0)
    expect((r.providerMetadata?.['chatfold'] as ContextRecord | undefined)?.notes).toEqual([
      expect.stringMatching(/^the pruning state kept is not one this version reads/),
    ])
  })

  it('rejects a state that is not a kept compaction, naming the key', async () => {
    const state: ContextStateStore = { get: async () => ({ version: 9 }), set: async () => undefined }
    const model = wrapLanguageModel({
      model: recording([]),
      middleware: contextMiddleware({ ...options(state), conversationKey: () => 'chat-7' } satisfies ContextMiddlewareOptions),
    })
    await expect(generateText({ model, system: 'You are a coding agent.', messages: turn(12) })).rejects.toThrow(/Cannot read the context state of "chat-7"/)
  })
})

describe('a contextPrepareStep made per request, given a state store', () => {
  it('gives the same messages, and summarises as often, as one kept for the process', async () => {
    const model = recording([])
    const records: ContextRecord[] = []
    const steps = async (prepareOf: () => ReturnType<typeof contextPrepareStep>) => {
      const out: unknown[] = []
      for (let n = 1; n <= 12; n++) out.push(await prepareOf()({ messages: turn(n), model, stepNumber: 0 }))
      return { out, summaries: summarised.splice(0).length, records: records.splice(0) }
    }
    const prepareOptions = (state?: ContextStateStore) => ({
      ...options(state),
      system: 'You are a coding agent.',
      onRecord: (r: ContextRecord) => void records.push(r),
    })
    const kept = contextPrepareStep(prepareOptions())
    const once = await steps(() => kept)
    const state = memoryContextState()
    const perRequest = await steps(() => contextPrepareStep(prepareOptions(state)))
    expect(once.summaries).toBeGreaterThanOrEqual(2)
    expect(once.records.filter((r) => r.prunedResults > 0 && r.compaction === null).length).toBeGreaterThanOrEqual(2)
    expect(perRequest.out).toEqual(once.out)
    expect(perRequest.summaries).toBe(once.summaries)
    expect(perRequest.records).toEqual(once.records)
  })
})

describe('memoryContextState', () => {
  it('gives back a copy of what was set, by key', async () => {
    const state = memoryContextState()
    const value = { a: [1, 2] }
    await state.set('k', value)
    const back = await state.get('k')
    expect(back).toEqual(value)
    expect(back).not.toBe(value)
    expect(await state.get('other')).toBeUndefined()
  })
})

describe('chatStoreContextState', () => {
  it('reads the newest state of a key, over HTTP too', async () => {
    const store = createChatStore()
    const handler = createChatHandler(store)
    const state = chatStoreContextState({ url: 'http://store.test', fetch: (r) => handler(r) })
    await state.set('chat-1', { n: 1 })
    await state.set('chat-1', { n: 2 })
    await state.set('chat-2', { n: 3 })
    expect(await state.get('chat-1')).toEqual({ n: 2 })
    expect(await state.get('chat-2')).toEqual({ n: 3 })
    expect(await state.get('chat-3')).toBeUndefined()
    expect(await chatStoreContextState({ store }).get('chat-1')).toEqual({ n: 2 })
  })
})
