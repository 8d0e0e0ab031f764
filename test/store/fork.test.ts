import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import { applyInputs, emptyState, validateState } from '../../src/store/state.ts'
import { makeChatInput } from '../../src/store/input.ts'
import { decodeForkRequest, forkConversation } from '../../src/store/fork.ts'
import { getConversation } from '../../src/store/query.ts'
import { createChatStore } from '../../src/store/store.ts'
import { decodeStoreCommand, type StoreCommand } from '../../src/store/log.ts'
import { memoryStorage, openDurableStore, replayLog } from '../../src/store/durable.ts'
import { createChatHandler } from '../../src/store/http.ts'
import { forkCases, idsOf, post, say } from '../support/fork-cases.ts'

const START = '2024-03-15T10:00:00Z'

const state = pipe(
  emptyState(),
  applyInputs(
    ['u1', 'a1', 'u2'].map((id, i) =>
      makeChatInput({
        role: id.startsWith('a') ? 'assistant' : 'user',
        content: [{ type: 'text', text: id }],
        message_id: id,
        conversation_id: 'c',
        timestamp: `2024-03-15T10:00:0${i}Z`,
      })
    ),
  ),
  E.getOrElseW((e) => {
    throw new Error(JSON.stringify(e))
  }),
)

describe('forkConversation', () => {
  it('holds the prefix under the fork id, sharing the content, and leaves the parent as it was', () => {
    const r = forkConversation({ conversation_id: 'c', message_id: 'a1', new_conversation_id: 'f' })(state)
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    expect(validateState(r.right)).toEqual(E.right(r.right))
    const fork = getConversation('f')(r.right)
    expect(fork.map((m) => [m.id, m.conversationId])).toEqual([['u1', 'f'], ['a1', 'f']])
    expect(getConversation('c')(r.right)).toEqual(getConversation('c')(state))
    // the parent's content, not a copy of it
    const parent = getConversation('c')(state)
    expect(fork[0]?.parts).toBe(parent[0]?.parts)
    expect(r.right.updateCount).toBe(state.updateCount + 2)
  })

  it('fails with what and where, changing nothing', () => {
    expect(forkConversation({ conversation_id: 'c', message_id: 'nope', new_conversation_id: 'f' })(state)).toEqual(
      E.left({ kind: 'unknown_message', messageId: 'nope', conversationId: 'c' }),
    )
    expect(forkConversation({ conversation_id: 'c', message_id: 'u1', new_conversation_id: 'c' })(state)).toEqual(
      E.left({ kind: 'conversation_exists', conversationId: 'c' }),
    )
  })

  it('decodes a request, every bad field by path', () => {
    expect(decodeForkRequest({ conversation_id: 'c', message_id: 'm' })).toEqual(E.right({ conversation_id: 'c', message_id: 'm' }))
    expect(E.mapLeft((f: ReadonlyArray<{ path: string }>) => f.map((i) => i.path))(decodeForkRequest({ conversation_id: '', new_conversation_id: 3 })))
      .toEqual(E.left(['conversation_id', 'message_id', 'new_conversation_id']))
  })
})

describe('ChatStore.fork', () => {
  it('logs one fork record (never the messages) that replays to the same simulator', () => {
    const commands: StoreCommand[] = []
    const store = createChatStore({ startTime: START, idPrefix: 'p-' }, { record: (c) => void commands.push(c), flush: async () => undefined })
    store.submit({ role: 'user', content: 'Hi', message_id: 'u1', conversation_id: 'c' })
    const f = store.fork('c', 'u1')
    expect(E.isRight(f) && f.right.conversation_id).toBe('p-fork-000000000002')
    expect(commands[2]).toEqual({ op: 'fork', conversation_id: 'c', message_id: 'u1', new_conversation_id: 'p-fork-000000000002' })
    expect(E.isLeft(store.fork('c', 'nope'))).toBe(true)
    expect(commands).toHaveLength(3)
    const replayed = replayLog({ snapshot: undefined, tail: JSON.parse(JSON.stringify(commands.map((command, i) => ({ seq: i + 1, command })))) })
    const sim = E.isRight(replayed) ? replayed.right.simulator : undefined
    expect([sim?.state, sim?.seq]).toEqual([store.state(), store.simulator().seq])
    expect(decodeStoreCommand({ op: 'fork', conversation_id: 'c' })).toEqual(
      E.left('fork: expected conversation_id, message_id and new_conversation_id, strings'),
    )
  })
})

describe('POST /modalities/chat/fork and who may call it', () => {
  const authed = (h: (r: Request) => Promise<Response>, token: string) => (r: Request) => {
    const headers = new Headers(r.headers)
    headers.set('authorization', `Bearer ${token}`)
    return h(new Request(r, { headers }))
  }

  it('asks for the token, refuses a read-only one, and keeps a limited caller to its conversations', async () => {
    const store = createChatStore({ startTime: START })
    const handler = createChatHandler(store, {
      token: 'w',
      readToken: 'r',
      authorize: (r) => r.headers.get('x-user') === 'limited' ? { type: 'allow', conversations: ['mine', 'mine-2'] } : { type: 'allow' },
    })
    const writer = authed(handler, 'w')
    expect((await say(writer, 'mine', 'u1')).status).toBe(201)
    expect((await say(writer, 'theirs', 'u1')).status).toBe(201)
    expect((await post(handler, '/modalities/chat/fork', { conversation_id: 'mine', message_id: 'u1' })).status).toBe(401)
    expect((await post(authed(handler, 'r'), '/modalities/chat/fork', { conversation_id: 'mine', message_id: 'u1' })).status).toBe(403)
    const limited = (r: Request) => {
      const headers = new Headers(r.headers)
      headers.set('x-user', 'limited')
      return writer(new Request(r, { headers }))
    }
    expect((await post(limited, '/modalities/chat/fork', { conversation_id: 'theirs', message_id: 'u1', new_conversation_id: 'mine-2' })).status).toBe(403)
    expect((await post(limited, '/modalities/chat/fork', { conversation_id: 'mine', message_id: 'u1', new_conversation_id: 'elsewhere' })).status).toBe(403)
    expect((await post(limited, '/modalities/chat/fork', { conversation_id: 'mine', message_id: 'u1' })).status).toBe(403)
    expect((await post(limited, '/modalities/chat/fork', { conversation_id: 'mine', message_id: 'u1', new_conversation_id: 'mine-2' })).status).toBe(201)
    expect(await idsOf(limited, 'mine-2')).toEqual(['u1'])
    expect(store.state().conversations?.n).toBe(3)
  })
})

forkCases('memory', async () => {
  const store = createChatStore({ startTime: START })
  const handler = createChatHandler(store)
  return { handler, reopen: async () => handler, close: async () => undefined }
})

forkCases('a durable store on memory storage, a snapshot every 3 records', async () => {
  const storage = memoryStorage()
  const stores: Array<{ close: () => Promise<void> }> = []
  const open = async () => {
    const s = await openDurableStore(storage)({ startTime: START, snapshotEvery: 3 })
    stores.push(s)
    return createChatHandler(s)
  }
  const handler = await open()
  return {
    handler,
    reopen: async () => {
      await stores.pop()?.close()
      return open()
    },
    close: async () => void (await Promise.all(stores.map((s) => s.close()))),
  }
})
