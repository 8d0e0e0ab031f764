import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import OpenAI from 'openai'
import { Agent, type AgentInputItem, MemorySession, run } from '@openai/agents'
import { assistantMessage, ScriptedModel } from '@openai/agents/testing'
import { createChatStore } from '../../src/store/store.ts'
import { createChatHandler } from '../../src/store/http.ts'
import { getConversation } from '../../src/store/query.ts'
import { overlaysOf } from '../../src/store/overlay.ts'
import { chatStoreSession, httpChatLog, storeChatLog } from '../../src/openai-agents/mod.ts'
import { historyOfItems } from '../../src/openai-agents/_items.ts'
import { openAICompaction } from '../../src/summarize/openai.ts'

const memoryLog = () => storeChatLog(createChatStore({ maxHistorySize: Infinity }))

/** A log over the HTTP API of an in-process handler, with a token: the served forms' protocol without a socket. */
const servedLog = () => {
  const handler = createChatHandler(createChatStore({ maxHistorySize: Infinity }), { token: 'secret' })
  return httpChatLog({ url: 'http://store.test', token: 'secret', fetch: (input, init) => handler(new Request(input, init)) })
}

const user = (text: string): AgentInputItem => ({ role: 'user', content: text })
const call = (i: number): AgentInputItem => ({ type: 'function_call', callId: `c${i}`, name: 'read', arguments: `{"path":"f${i}.ts"}`, status: 'completed' })
const result = (i: number, text: string): AgentInputItem => ({
  type: 'function_call_result',
  callId: `c${i}`,
  name: 'read',
  status: 'completed',
  output: { type: 'text', text },
})

type Step = { op: 'add'; items: AgentInputItem[] } | { op: 'get'; limit: number | undefined } | { op: 'pop' } | { op: 'clear' }

const itemArb: fc.Arbitrary<AgentInputItem> = fc.oneof(
  fc.string({ minLength: 1, maxLength: 8 }).map(user),
  fc.nat(9).map(call),
  fc.tuple(fc.nat(9), fc.string({ maxLength: 8 })).map(([i, t]) => result(i, t)),
  fc.string({ maxLength: 8 }).map((t) => assistantMessage(t)),
)
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.array(itemArb, { maxLength: 3 }).map((items) => ({ op: 'add' as const, items })),
  fc.option(fc.integer({ min: -1, max: 5 }), { nil: undefined }).map((limit) => ({ op: 'get' as const, limit })),
  fc.constant({ op: 'pop' as const }),
  fc.constant({ op: 'clear' as const }),
)

const apply = async (
  s: {
    getItems: (l?: number) => Promise<AgentInputItem[]>
    addItems: (i: AgentInputItem[]) => Promise<void>
    popItem: () => Promise<AgentInputItem | undefined>
    clearSession: () => Promise<void>
  },
  step: Step,
): Promise<unknown> =>
  step.op === 'add' ? s.addItems(step.items) : step.op === 'get' ? s.getItems(step.limit) : step.op === 'pop' ? s.popItem() : s.clearSession()

describe('chatStoreSession', () => {
  for (const [name, makeLog] of [['in process', memoryLog], ['over HTTP with a token', servedLog]] as const) {
    it(`answers every operation as the SDK's MemorySession does (${name})`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { maxLength: 12 }), async (steps) => {
          const ours = chatStoreSession({ log: makeLog(), sessionId: 's-1' })
          const theirs = new MemorySession({ sessionId: 's-1' })
          for (const step of steps) expect(await apply(ours, step)).toEqual(await apply(theirs, step))
          expect(await ours.getItems()).toEqual(await theirs.getItems())
          expect(await ours.getSessionId()).toBe('s-1')
        }),
        { numRuns: name === 'in process' ? 60 : 15 },
      )
    })
  }

  it('keeps sessions apart, and a second session object on the same log sees the first one’s items', async () => {
    const log = memoryLog()
    const a = chatStoreSession({ log, sessionId: 'a' })
    await a.addItems([user('one'), call(1), result(1, 'x')])
    await chatStoreSession({ log, sessionId: 'b' }).addItems([user('other')])
    expect(await chatStoreSession({ log, sessionId: 'a' }).getItems()).toEqual([user('one'), call(1), result(1, 'x')])
  })

  it('refuses a session the store has cut, unless what it holds starts at a clear or a compaction', async () => {
    const log = storeChatLog(createChatStore({ maxHistorySize: 3 }))
    const session = chatStoreSession({ log, sessionId: 's' })
    // a batch is one record: four batches, of which the store keeps the last three
    for (const text of ['a', 'b', 'c', 'd']) await session.addItems([user(text)])
    await expect(session.getItems()).rejects.toThrow(/dropped its first 1 records.*no clear or compaction/)
    await session.clearSession()
    await session.addItems([user('e')])
    expect(await session.getItems()).toEqual([user('e')])
    const other = chatStoreSession({ log, sessionId: 't' })
    await other.addItems([user('a'), user('b')])
    expect(await other.getItems()).toEqual([user('a'), user('b')])
  })

  it('interleaves two writers of one session without losing either’s items', async () => {
    const log = servedLog()
    const a = chatStoreSession({ log, sessionId: 'w' })
    const b = chatStoreSession({ log, sessionId: 'w' })
    await Promise.all([a.addItems([user('a1'), user('a2')]), b.addItems([user('b1'), user('b2')])])
    const items = (await a.getItems()).map((i) => JSON.stringify(i))
    expect([...items].sort()).toEqual([user('a1'), user('a2'), user('b1'), user('b2')].map((i) => JSON.stringify(i)).sort())
    expect(items.indexOf(JSON.stringify(user('a1')))).toBeLessThan(items.indexOf(JSON.stringify(user('a2'))))
  })

  it('pops the item it answers, and a compaction replaces only what it read, when another writer adds meanwhile', async () => {
    for (let round = 0; round < 5; round++) {
      const log = servedLog()
      const a = chatStoreSession({ log, sessionId: 'p', compaction: { contextWindow: 2_000, keepRecentTokens: 400 } })
      const b = chatStoreSession({ log, sessionId: 'p' })
      await a.addItems([user('one'), user('two')])
      const [popped] = await Promise.all([a.popItem(), b.addItems([user(`three-${round}`)])])
      const after = await a.getItems()
      expect(after).toHaveLength(2)
      expect(after).not.toContainEqual(popped)
      await a.addItems(Array.from({ length: 8 }, (_, i) => [call(i), result(i, 'x '.repeat(600))]).flat())
      await Promise.all([a.runCompaction(), b.addItems([user(`late-${round}`)])])
      expect(await a.getItems()).toContainEqual(user(`late-${round}`))
    }
  })

  it('is the session of an agent run with the SDK’s scripted model: the second run sends the first one’s items', async () => {
    const model = new ScriptedModel([[assistantMessage('Paris.')], [assistantMessage('About 2.1 million.')]])
    const agent = new Agent({ name: 'geo', instructions: 'Answer briefly.', model })
    const session = chatStoreSession({ log: servedLog(), sessionId: 'run' })
    await run(agent, 'Capital of France?', { session })
    const second = await run(agent, 'Its population?', { session })
    expect(second.finalOutput).toBe('About 2.1 million.')
    const sent = JSON.stringify(model.lastCall?.request.input)
    expect(sent).toContain('Capital of France?')
    expect(sent).toContain('Paris.')
    expect(sent).toContain('Its population?')
    const texts = (await session.getItems()).map((i) => JSON.stringify(i))
    expect(texts).toHaveLength(4)
    expect(texts[0]).toContain('Capital of France?')
    expect(texts[3]).toContain('About 2.1 million.')
  })
})

describe('historyOfItems', () => {
  it('reads calls and results as a tool pair, one message per item, each naming its item', () => {
    const ms = historyOfItems([user('Read it.'), call(1), result(1, 'contents'), assistantMessage('Done.')])
    expect(ms.map((m) => [m.id, m.role])).toEqual([
      ['item-0-0', 'user'],
      ['item-1-0', 'assistant'],
      ['item-2-0', 'tool'],
      ['item-3-0', 'assistant'],
    ])
    expect(ms[1]?.parts).toMatchObject([{ type: 'tool_call', id: 'c1', name: 'read', arguments: '{"path":"f1.ts"}' }])
    expect(ms[2]?.parts).toMatchObject([{ type: 'tool_result', toolCallId: 'c1', content: 'contents' }])
  })
})

describe('chatStoreSession compaction', () => {
  const long = (i: number) => `${'line of a long file read by the tool '.repeat(40)}#${i}`
  const history =
    (): AgentInputItem[] => [user('Fix the parser.'), ...Array.from({ length: 12 }, (_, i) => [call(i), result(i, long(i))]).flat(), user('Now the tests.')]

  it('compacts by tokens after a turn: the summary stands for the old items, the recent ones are kept as they were', async () => {
    const reports: unknown[] = []
    const session = chatStoreSession({
      log: memoryLog(),
      sessionId: 'c',
      compaction: { contextWindow: 2_000, reserveTokens: 200, keepRecentTokens: 400, onCompaction: (r) => reports.push(r) },
    })
    const items = history()
    await session.addItems(items)
    await session.runCompaction()
    const after = await session.getItems()
    expect(reports).toHaveLength(1)
    expect(reports[0]).toMatchObject({ compacted: true })
    expect(after.length).toBeLessThan(items.length)
    expect(after.at(-1)).toEqual(items.at(-1))
    const kept = after.slice(1)
    expect(kept).toEqual(items.slice(items.length - kept.length))
    expect(JSON.stringify(after[0])).toContain('Fix the parser')
    // no result kept without its call
    const calls = new Set(kept.flatMap((i) => (i.type === 'function_call' ? [i.callId] : [])))
    for (const i of kept) if (i.type === 'function_call_result') expect(calls.has(i.callId)).toBe(true)
    // under the window now: a second turn's hook leaves it alone
    await session.runCompaction()
    expect(await session.getItems()).toEqual(after)
  })

  it('is compacted by the runner itself after a turn of an agent run', async () => {
    const reports: unknown[] = []
    const session = chatStoreSession({
      log: memoryLog(),
      sessionId: 'r',
      compaction: { contextWindow: 2_000, keepRecentTokens: 400, onCompaction: (r) => reports.push(r) },
    })
    const items = history()
    await session.addItems(items)
    const model = new ScriptedModel([[assistantMessage('Tests written.')]])
    await run(new Agent({ name: 'dev', model }), 'Go on.', { session })
    expect(reports).toHaveLength(1)
    const after = await session.getItems()
    expect(after.length).toBeLessThan(items.length + 2)
    expect(JSON.stringify(after.at(-1))).toContain('Tests written.')
    // the model was sent the whole stored history: compaction came after the turn
    expect(JSON.stringify(model.lastCall?.request.input)).toContain('#11')
  })

  for (const [name, makeLog] of [['in process', memoryLog], ['over HTTP with a token', servedLog]] as const) {
    it(`keeps an append made while a compaction is computed, and commits the compaction computed again with it (${name})`, async () => {
      const log = makeLog()
      const other = chatStoreSession({ log, sessionId: 'race' })
      let summaries = 0
      const reports: unknown[] = []
      const session = chatStoreSession({
        log,
        sessionId: 'race',
        compaction: {
          contextWindow: 2_000,
          keepRecentTokens: 400,
          onCompaction: (r) => reports.push(r),
          // the first summary is computed while another writer appends: it is refused, and computed again
          summarize: async (transcript) => {
            if (++summaries === 1) await other.addItems([user('written meanwhile')])
            return `summary ${summaries} of ${transcript.length} characters`
          },
        },
      })
      await session.addItems(history())
      const report = await session.compact()
      expect(report).toMatchObject({ compacted: true })
      expect([summaries, reports.length]).toEqual([2, 1])
      const after = await session.getItems()
      expect(JSON.stringify(after[0])).toContain('summary 2')
      expect(after.at(-1)).toEqual(user('written meanwhile'))
      expect(after.length).toBeLessThan(history().length)
      // a later append follows the compaction, and a pop takes it back off
      await other.addItems([user('after')])
      expect((await session.getItems()).at(-1)).toEqual(user('after'))
      expect(await session.popItem()).toEqual(user('after'))
      expect((await session.getItems()).at(-1)).toEqual(user('written meanwhile'))
    })
  }

  it('commits a compaction as an overlay of the store: the records it stands for stay in the archive', async () => {
    const store = createChatStore({ maxHistorySize: Infinity })
    const session = chatStoreSession({ log: storeChatLog(store), sessionId: 'kept', compaction: { contextWindow: 2_000, keepRecentTokens: 400 } })
    await session.addItems(history())
    expect(await session.compact()).toMatchObject({ compacted: true })
    expect(getConversation('kept')(store.state()).map((m) => m.id)).toEqual(['r0'])
    expect(store.compacted('kept').map((m) => m.id)).toEqual(['compaction:r0'])
    expect(overlaysOf('kept')(store.simulator())).toMatchObject([{ from: 'r0', head: 'r0' }])
  })

  it('leaves a history under the window alone, and compacts it when forced', async () => {
    const session = chatStoreSession({ log: memoryLog(), sessionId: 'd', compaction: { contextWindow: 1_000_000, keepRecentTokens: 400 } })
    await session.addItems(history())
    await session.runCompaction()
    expect(await session.getItems()).toEqual(history())
    await session.runCompaction({ force: true })
    expect((await session.getItems()).length).toBeLessThan(history().length)
  })

  it("uses the Responses API's compaction when given openAICompaction: its compaction item comes first", async () => {
    const ITEM = { id: 'cmp_1', type: 'compaction', encrypted_content: 'gAAAAABpZ2Vu+/ZXJpYw==' }
    const asked: string[] = []
    const fetch = async (input: string | URL | Request): Promise<Response> => {
      asked.push(String(input instanceof Request ? input.url : input))
      return new Response(
        JSON.stringify({
          id: 'resp_c',
          object: 'response.compaction',
          created_at: 1,
          output: [ITEM],
          usage: {
            input_tokens: 1,
            output_tokens: 1,
            total_tokens: 2,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens_details: { reasoning_tokens: 0 },
          },
        }),
        {
          status: 200,
          headers: { 'content-type': 'application/json' },
        },
      )
    }
    const client = new OpenAI({ apiKey: 'test', fetch, maxRetries: 0 })
    const session = chatStoreSession({
      log: memoryLog(),
      sessionId: 'o',
      compaction: { contextWindow: 2_000, keepRecentTokens: 400, summarize: openAICompaction({ client, model: 'gpt-5.4' }) },
    })
    const items = history()
    await session.addItems(items)
    await session.runCompaction()
    const after = await session.getItems()
    expect(asked.some((u) => u.endsWith('/responses/compact'))).toBe(true)
    expect(after[0]).toMatchObject({ type: 'compaction', encrypted_content: ITEM.encrypted_content })
    expect(after.at(-1)).toEqual(items.at(-1))
  })

  it("chooses the Responses API's compaction by itself when the agent's model is OpenAI's, chatfold's otherwise", async () => {
    const ITEM = { id: 'cmp_2', type: 'compaction', encrypted_content: 'gAAAAABxY29t' }
    const asked: string[] = []
    const fetch = async (input: string | URL | Request): Promise<Response> => {
      asked.push(String(input instanceof Request ? input.url : input))
      return new Response(
        JSON.stringify({
          id: 'resp_d',
          object: 'response.compaction',
          created_at: 1,
          output: [ITEM],
          usage: {
            input_tokens: 1,
            output_tokens: 1,
            total_tokens: 2,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens_details: { reasoning_tokens: 0 },
          },
        }),
        {
          status: 200,
          headers: { 'content-type': 'application/json' },
        },
      )
    }
    const openai = new OpenAI({ apiKey: 'test', fetch, maxRetries: 0 })
    const run = async (model: string) => {
      const session = chatStoreSession({ log: memoryLog(), sessionId: model, compaction: { contextWindow: 2_000, keepRecentTokens: 400, model, openai } })
      await session.addItems(history())
      await session.runCompaction()
      return session.getItems()
    }
    const byOpenAI = await run('gpt-5.4')
    expect(asked.filter((u) => u.endsWith('/responses/compact'))).toHaveLength(1)
    expect(byOpenAI[0]).toMatchObject({ type: 'compaction', encrypted_content: ITEM.encrypted_content })
    const byChatfold = await run('claude-sonnet-4-5')
    expect(asked.filter((u) => u.endsWith('/responses/compact'))).toHaveLength(1)
    expect(byChatfold[0]).not.toMatchObject({ type: 'compaction' })
    expect(byChatfold.length).toBeLessThan(history().length)
  })
})
