/**
 * UI messages kept in a chat store: a save loads back equal (the UI message corpus), a save retried
 * after a lost answer stores each message once, a message extended by a continued turn is kept as
 * its revision, and a compaction is kept as the boundary it is (the UI sees its summary; the model
 * request built from the loaded history starts at it).
 */
import type { UIMessage } from 'ai'
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { sinceCompaction, uiMessageStore } from '../../src/ai-sdk/persistence.ts'
import { createChatStore } from '../../src/store/store.ts'
import { getConversation } from '../../src/store/query.ts'
import { overlaysOf } from '../../src/store/overlay.ts'
import { createChatHandler } from '../../src/store/http.ts'
import { rebuildAfterCompaction } from '../../src/compaction/rebuild.ts'
import { isCompactionSummary } from '../../src/message/compaction-mark.ts'
import { forLLM } from '../../src/history/views.ts'
import { providerPart } from '../../src/message/part-make.ts'
import { toModelMessages } from '../../src/adapters/ai-sdk/model-messages.ts'
import type { Message } from '../../src/message/message.ts'
import { uiCorpus } from '../adapters/fixtures/ai-sdk-corpus.ts'

const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] })
const assistant = (id: string, text: string): UIMessage => ({ id, role: 'assistant', parts: [{ type: 'step-start' }, { type: 'text', text, state: 'done' }] })
const withTool = (id: string, text: string): UIMessage => ({
  id,
  role: 'assistant',
  parts: [
    { type: 'step-start' },
    { type: 'tool-weather', toolCallId: `${id}-c`, state: 'output-available', input: { city: 'Paris' }, output: { celsius: 18 } },
    { type: 'step-start' },
    { type: 'text', text, state: 'done' },
  ],
})

const turns = (n: number): UIMessage[] => Array.from({ length: n }, (_, i) => [user(`u${i}`, `question ${i}`), withTool(`a${i}`, `answer ${i}`)]).flat()

/** UI messages as an app may hold them, unchecked: what the store must read, or refuse by name. */
const untyped = (u: unknown): UIMessage[] => {
  if (!Array.isArray(u)) throw new TypeError('expected an array of UI messages')
  return u
}

const held = (store: ReturnType<typeof createChatStore>, conversationId: string) => getConversation(conversationId)(store.state()).map((m) => m.id)

describe('uiMessageStore over a store in this process', () => {
  it.each(uiCorpus.map((c) => [c.name, c.messages] as const))('loads back what it saved: %s', async (_name, messages) => {
    const chat = uiMessageStore({ store: createChatStore(), conversationId: 'c' })
    const ui = untyped(messages)
    expect(await chat.save(ui)).toEqual({ added: ui.map((m) => m.id), revised: [], unchanged: 0, skipped: 0 })
    expect(await chat.load()).toEqual(ui)
  })

  it('keeps each conversation apart, and ids as the store message ids', async () => {
    const store = createChatStore()
    const a = uiMessageStore({ store, conversationId: 'a' })
    const b = uiMessageStore({ store, conversationId: 'b' })
    await a.save(turns(2))
    await b.save([user('u0', 'other conversation')])
    expect(held(store, 'a')).toEqual(['u0', 'a0', 'u1', 'a1'])
    expect(await b.load()).toEqual([user('u0', 'other conversation')])
  })

  it('is idempotent: saving again stores nothing, and only the new messages of the next turn', async () => {
    const store = createChatStore()
    const chat = uiMessageStore({ store, conversationId: 'c' })
    await chat.save(turns(1))
    expect(await chat.save(turns(1))).toEqual({ added: [], revised: [], unchanged: 2, skipped: 0 })
    expect(await chat.save(turns(2))).toEqual({ added: ['u1', 'a1'], revised: [], unchanged: 2, skipped: 0 })
    expect(held(store, 'c')).toEqual(['u0', 'a0', 'u1', 'a1'])
    expect(await chat.load()).toEqual(turns(2))
  })

  it('a save retried after its answer was lost stores each message once', async () => {
    const store = createChatStore()
    const handler = createChatHandler(store)
    let lose = 1
    // the store takes the first message, and the answer never reaches the client
    const fetch = async (request: Request): Promise<Response> => {
      const response = await handler(request)
      if (request.url.endsWith('/submit') && lose-- > 0) throw new TypeError('fetch failed: connection reset')
      return response
    }
    const chat = uiMessageStore({ url: 'http://localhost', conversationId: 'c', fetch })
    await expect(chat.save(turns(1))).rejects.toThrow('connection reset')
    expect(held(store, 'c')).toEqual(['u0'])
    expect(await chat.save(turns(1))).toEqual({ added: ['a0'], revised: [], unchanged: 1, skipped: 0 })
    expect(held(store, 'c')).toEqual(['u0', 'a0'])
    expect(await chat.load()).toEqual(turns(1))
  })

  it('an id another writer took with other content between reading and writing is an error naming it', async () => {
    const store = createChatStore()
    const handler = createChatHandler(store)
    const fetch = async (request: Request): Promise<Response> => {
      if (request.url.endsWith('/submit')) store.submit({ role: 'user', content: 'someone else', message_id: 'u0', conversation_id: 'c' })
      return handler(request)
    }
    const chat = uiMessageStore({ url: 'http://localhost', conversationId: 'c', fetch })
    await expect(chat.save([user('u0', 'mine')])).rejects.toThrow('Cannot save message "u0": the store holds a different message under this id')
  })

  it('a message a continued turn extended is stored as its revision, loaded where the first stood', async () => {
    const store = createChatStore()
    const chat = uiMessageStore({ store, conversationId: 'c' })
    const first = [user('u0', 'weather?'), assistant('a0', 'Let me look.')]
    await chat.save(first)
    const extended = [first[0] as UIMessage, withTool('a0', 'It is 18°C.')]
    expect(await chat.save(extended)).toEqual({ added: [], revised: ['a0'], unchanged: 1, skipped: 0 })
    expect(await chat.save(extended)).toEqual({ added: [], revised: [], unchanged: 2, skipped: 0 })
    const next = [...extended, user('u1', 'thanks')]
    await chat.save(next)
    expect(held(store, 'c')).toEqual(['u0', 'a0', 'a0#2', 'u1'])
    expect(await chat.load()).toEqual(next)
  })

  it('counts what the store dropped past its history limit, and never stores it again behind the newer messages', async () => {
    const store = createChatStore({ maxHistorySize: 3 })
    const chat = uiMessageStore({ store, conversationId: 'c' })
    await chat.save(turns(2))
    expect(held(store, 'c')).toEqual(['a0', 'u1', 'a1'])
    expect(await chat.dropped()).toBe(1)
    // useChat sends the whole list again: u0, dropped, is left out, and only the new message is stored
    expect(await chat.save([...turns(2), user('u2', 'question 2')])).toEqual({ added: ['u2'], revised: [], unchanged: 3, skipped: 1 })
    expect(held(store, 'c')).toEqual(['u1', 'a1', 'u2'])
    expect(await chat.dropped()).toBe(2)
    expect((await chat.load()).map((m) => m.id)).toEqual(['u1', 'a1', 'u2'])
  })

  it('reads messages other writers stored without chatfold metadata as text messages', async () => {
    const store = createChatStore()
    store.submit({ role: 'user', content: 'from a plain client', message_id: 'p1', conversation_id: 'c' })
    const chat = uiMessageStore({ store, conversationId: 'c' })
    expect(await chat.load()).toEqual([{ id: 'p1', role: 'user', parts: [{ type: 'text', text: 'from a plain client' }] }])
  })

  it('refuses a UI message it cannot read, naming it', async () => {
    const chat = uiMessageStore({ store: createChatStore(), conversationId: 'c' })
    await expect(chat.save(untyped([{ id: 'x1', role: 'user', parts: [{ type: 'text' }] }]))).rejects.toThrow(/Cannot save UI message "x1": .*parts\[0\]/)
    // a field chatfold has no place for would be lost: the save says where, and stores nothing
    await expect(chat.save(untyped([{ id: 'x2', role: 'user', parts: [{ type: 'text', text: 'hi', extra: 1 }] }]))).rejects.toThrow(
      'Cannot save UI message "x2": it would not load back as it is (it differs at parts[0].extra)',
    )
    expect(await chat.load()).toEqual([])
    // a step of data parts alone does not come back as a step of its own (its chatfold messages have no step for it)
    const dataStep = untyped([{
      id: 'x3',
      role: 'assistant',
      parts: [{ type: 'step-start' }, { type: 'data-note', data: 1 }, { type: 'step-start' }, { type: 'text', text: 'hi', state: 'done' }],
    }])
    await expect(chat.save(dataStep)).rejects.toThrow('Cannot save UI message "x3": it would not load back as it is (it differs at parts[2].type)')
  })

  it('gives an assistant message saved without a leading step-start back without one, and counts it unchanged when saved again with one', async () => {
    const chat = uiMessageStore({ store: createChatStore(), conversationId: 'c' })
    const bare: UIMessage = { id: 'a0', role: 'assistant', parts: [{ type: 'text', text: 'Hello!', state: 'done' }] }
    await chat.save([bare])
    expect(await chat.load()).toEqual([bare])
    expect(await chat.save([assistant('a0', 'Hello!')])).toEqual({ added: [], revised: [], unchanged: 1, skipped: 0 })
  })
})

describe('a compaction kept as the boundary it is', () => {
  const compacted = async (summary: (history: ReadonlyArray<Message>) => Message) => {
    const store = createChatStore()
    const chat = uiMessageStore({ store, conversationId: 'c' })
    await chat.save(turns(3))
    const history = await chat.loadHistory()
    const made = summary(history)
    await chat.saveCompaction(made)
    await chat.saveCompaction(made) // idempotent
    // the next turn, as useChat sends it: the loaded messages (the summary among them) and the new ones
    const next = [...(await chat.load()), user('u3', 'question 3')]
    expect(await chat.save(next)).toEqual({ added: ['u3'], revised: [], unchanged: next.length - 1, skipped: 0 })
    return { store, chat, made, next }
  }
  /** The history compacted through turn 1 (u0, and a0 with its tool result and second step), keeping turns 2 and 3. */
  const through = (answer: string | Parameters<typeof rebuildAfterCompaction>[0]) => (history: ReadonlyArray<Message>): Message => {
    const keep = history.findIndex((m) => m.id === 'u1')
    const { messages } = rebuildAfterCompaction(answer, 40, history.slice(keep))(history)
    const summary = messages.find(isCompactionSummary)
    if (summary === undefined) throw new Error('no summary')
    return summary
  }

  it('a summary message: the UI sees it after what it replaced; the model is sent it and what follows', async () => {
    const { chat, made, next } = await compacted(through('## Goal\nWeather in Paris'))
    const ui = await chat.load()
    expect(ui).toEqual(next)
    expect(ui.map((m) => m.id)).toEqual(['u0', 'a0', made.id, 'u1', 'a1', 'u2', 'a2', 'u3'])
    expect(ui[2]).toEqual({
      id: made.id,
      role: 'user',
      metadata: { chatfold: { compaction: { summarised: 4, through: 'a0~2' } } },
      parts: [{ type: 'text', text: '## Goal\nWeather in Paris' }],
    })
    const sent = sinceCompaction(await chat.loadHistory())
    expect(sent[0]).toEqual(made)
    expect(sent.map((m) => m.id)).toEqual([made.id, 'u1', 'a1', 'a1~1', 'a1~2', 'u2', 'a2', 'a2~1', 'a2~2', 'u3'])
  })

  it("a provider's compaction boundary: kept byte for byte, sent first, its summary shown", async () => {
    const boundary = providerPart('anthropic', 'compaction', { type: 'compaction', content: 'Summary: weather in Paris' })
    const { chat, made } = await compacted(through({ boundary }))
    const ui = await chat.load()
    expect(ui[2]).toMatchObject({ id: made.id, role: 'assistant', parts: [{ type: 'text', text: 'Summary: weather in Paris' }] })
    const history = await chat.loadHistory()
    expect(history.find((m) => m.id === made.id)).toEqual(made)
    const request = toModelMessages()(forLLM(sinceCompaction(history)))
    if (E.isLeft(request)) throw new Error('no request')
    const [first] = request.right.request.messages
    expect(first?.role).toBe('assistant')
    expect(JSON.stringify(first)).toContain('Summary: weather in Paris')
    expect(JSON.stringify(request.right.request.messages)).not.toContain('question 0')
  })

  for (const form of ['in process', 'over HTTP'] as const) {
    it(`commits the compaction as the store's overlay, and keeps a turn saved while it was computed (${form})`, async () => {
      const store = createChatStore()
      const handler = createChatHandler(store)
      const open = () =>
        form === 'in process'
          ? uiMessageStore({ store, conversationId: 'c' })
          : uiMessageStore({ url: 'http://store.test', conversationId: 'c', fetch: (r) => handler(r) })
      const chat = open()
      await chat.save(turns(3))
      const history = await chat.loadHistory()
      // while the summary is computed, another tab saves the next turn
      await open().save([...turns(3), user('u3', 'question 3')])
      const made = through('## Goal\nWeather in Paris')(history)
      await chat.saveCompaction(made)
      // an overlay of the store, not a message: the archive is as it was, the model view starts with the summary
      expect(held(store, 'c')).not.toContain(made.id)
      expect(overlaysOf('c')(store.simulator())).toMatchObject([{ from: 'u0', head: 'u3', through: 'a0' }])
      expect(store.compacted('c').map((m) => m.id)).toEqual(['compaction:u3', 'u1', 'a1', 'u2', 'a2', 'u3'])
      const ui = await open().load()
      expect(ui.map((m) => m.id)).toEqual(['u0', 'a0', made.id, 'u1', 'a1', 'u2', 'a2', 'u3'])
      expect(sinceCompaction(await open().loadHistory())[0]).toEqual(made)
      await chat.saveCompaction(made) // idempotent
      expect(overlaysOf('c')(store.simulator())).toHaveLength(1)
    })
  }

  it('refuses a compaction one of whose messages was saved again since its history was read', async () => {
    const store = createChatStore()
    const chat = uiMessageStore({ store, conversationId: 'c' })
    await chat.save(turns(2))
    const history = await chat.loadHistory()
    await uiMessageStore({ store, conversationId: 'c' }).save([user('u0', 'question 0, edited'), ...turns(2).slice(1)])
    await expect(chat.saveCompaction(through('## Goal')(history))).rejects.toThrow(/saved again since its history was read/)
    expect(overlaysOf('c')(store.simulator())).toEqual([])
  })

  it('refuses to save as a compaction a message that is none', async () => {
    const chat = uiMessageStore({ store: createChatStore(), conversationId: 'c' })
    const plain: Message = { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }], kind: 'normal' }
    await expect(chat.saveCompaction(plain)).rejects.toThrow('Cannot save message "m1" as a compaction')
  })

  it('sinceCompaction leaves a history without compaction as it is', () => {
    const ms: ReadonlyArray<Message> = [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }], kind: 'normal' }]
    expect(sinceCompaction(ms)).toBe(ms)
  })
})
