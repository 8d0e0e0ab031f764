import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { createChatStore } from '../../src/store/store.ts'
import { memoryStorage, openDurableStore, type StoreStorage } from '../../src/store/durable.ts'
import { StoreError } from '../../src/store/failure.ts'
import { createChatHandler } from '../../src/store/http.ts'
import { decodeCompactRequest } from '../../src/store/overlay.ts'
import { type Handler, post, say } from '../support/fork-cases.ts'

const START = '2024-03-15T10:00:00Z'

// deno-lint-ignore no-explicit-any -- a JSON answer, read field by field
const get = async (h: Handler, path: string): Promise<{ readonly status: number; readonly body: any }> => {
  const r = await h(new Request(`http://127.0.0.1${path}`))
  return { status: r.status, body: await r.json() }
}

const overlays = (h: Handler, id: string) => get(h, `/environment/modalities/chat/overlays?conversation_id=${encodeURIComponent(id)}`)

describe('POST /modalities/chat/compact', () => {
  it('commits on the head it names, refuses a stale head with a 409 naming the head now, and keeps the append', async () => {
    const storage = memoryStorage()
    const store = await openDurableStore(storage)({ startTime: START })
    const h = createChatHandler(store)
    for (const id of ['u1', 'a1']) expect((await say(h, 'c', id)).status).toBe(201)
    expect((await overlays(h, 'c')).body).toEqual({ conversation_id: 'c', head: 'a1', overlays: [] })
    // the summary is computed from head a1 while another writer appends u2
    expect((await say(h, 'c', 'u2')).status).toBe(201)
    const stale = await post(h, '/modalities/chat/compact', { conversation_id: 'c', from: 'u1', head: 'a1', summary: 'greetings' })
    expect(stale.status).toBe(409)
    expect(stale.body.error).toMatchObject({ code: 'stale_head', conversation_id: 'c', head: 'u2' })
    expect((await overlays(h, 'c')).body.overlays).toEqual([])
    const done = await post(h, '/modalities/chat/compact', { conversation_id: 'c', from: 'u1', head: 'u2', summary: 'greetings, then a question' })
    expect(done.status).toBe(201)
    expect(done.body.overlay).toMatchObject({ conversation_id: 'c', from: 'u1', head: 'u2', summary: 'greetings, then a question' })
    // the 201 came after the flush: the overlay is a record of the log, and the store opened again reads it
    expect(storage.records().map((r) => r.command.op)).toContain('compact')
    await store.close()
    const again = createChatHandler(await openDurableStore(storage)())
    expect((await overlays(again, 'c')).body).toEqual({ conversation_id: 'c', head: 'u2', overlays: [done.body.overlay] })
    const all = await post(again, '/environment/modalities/chat/query', { conversation_id: 'c' })
    expect(all.body.messages.map((m: { message_id: string }) => m.message_id)).toEqual(['u1', 'a1', 'u2'])
  })

  it('takes a range that ends before the head (through) and metadata, kept across reopening', async () => {
    const storage = memoryStorage()
    const store = await openDurableStore(storage)({ startTime: START, snapshotEvery: 2 })
    const h = createChatHandler(store)
    for (const id of ['u1', 'a1', 'u2', 'a2']) expect((await say(h, 'c', id)).status).toBe(201)
    const body = { conversation_id: 'c', from: 'u1', head: 'a2', through: 'a1', summary: 'the first turn', metadata: { by: 'test' } }
    expect((await post(h, '/modalities/chat/compact', { ...body, through: 'zz' })).status).toBe(404)
    expect((await post(h, '/modalities/chat/compact', body)).status).toBe(201)
    expect(store.compacted('c').map((m) => m.id)).toEqual(['compaction:a2', 'u2', 'a2'])
    await store.close()
    const again = await openDurableStore(storage)()
    expect((await overlays(createChatHandler(again), 'c')).body.overlays).toMatchObject([{ from: 'u1', head: 'a2', through: 'a1', metadata: { by: 'test' } }])
    expect(again.compacted('c').map((m) => m.id)).toEqual(['compaction:a2', 'u2', 'a2'])
  })

  it('answers 404 for a message the conversation does not hold, 400 by path for bad fields, and changes nothing', async () => {
    const store = createChatStore({ startTime: START })
    const h = createChatHandler(store)
    expect((await say(h, 'c', 'u1')).status).toBe(201)
    const unknown = await post(h, '/modalities/chat/compact', { conversation_id: 'c', from: 'u9', head: 'u1', summary: 's' })
    expect([unknown.status, unknown.body.error.code, unknown.body.error.message_id]).toEqual([404, 'unknown_message', 'u9'])
    const bad = await post(h, '/modalities/chat/compact', { conversation_id: 'c', from: 7, head: 'u1', summary: '', extra: 1 })
    expect(bad.status).toBe(400)
    expect(bad.body.error.issues.map((i: { path: string }) => i.path)).toEqual(['from', 'summary', 'extra'])
    const worse = await post(h, '/modalities/chat/compact', { conversation_id: 'c', from: 'u1', head: 'u1', summary: 's', through: 3, metadata: [] })
    expect(worse.body.error.issues.map((i: { path: string }) => i.path)).toEqual(['through', 'metadata'])
    expect((await get(h, '/environment/modalities/chat/overlays')).status).toBe(400)
    expect(store.simulator().overlays).toBeUndefined()
  })

  it('asks for the token, refuses a read-only one, and keeps a limited caller to its conversations', async () => {
    const store = createChatStore({ startTime: START })
    const handler = createChatHandler(store, {
      token: 'w',
      readToken: 'r',
      authorize: (r) => r.headers.get('x-user') === 'limited' ? { type: 'allow', conversations: ['mine'] } : { type: 'allow' },
    })
    const as = (token: string, user?: string): Handler => (r) => {
      const headers = new Headers(r.headers)
      headers.set('authorization', `Bearer ${token}`)
      if (user !== undefined) headers.set('x-user', user)
      return handler(new Request(r, { headers }))
    }
    for (const c of ['mine', 'theirs']) expect((await say(as('w'), c, 'u1')).status).toBe(201)
    const body = (c: string) => ({ conversation_id: c, from: 'u1', head: 'u1', summary: 's' })
    expect((await post(handler, '/modalities/chat/compact', body('mine'))).status).toBe(401)
    expect((await post(as('r'), '/modalities/chat/compact', body('mine'))).status).toBe(403)
    expect((await overlays(as('r'), 'mine')).status).toBe(200)
    expect((await post(as('w', 'limited'), '/modalities/chat/compact', body('theirs'))).status).toBe(403)
    expect((await overlays(as('w', 'limited'), 'theirs')).status).toBe(403)
    expect((await post(as('w', 'limited'), '/modalities/chat/compact', body('mine'))).status).toBe(201)
    expect((await overlays(as('r'), 'theirs')).body.overlays).toEqual([])
    expect((await overlays(as('r'), 'mine')).body.overlays).toHaveLength(1)
  })

  it('is no 2xx when the log cannot keep the overlay: the store answers 507 and holds none', async () => {
    const inner = memoryStorage()
    let full = false
    const storage: StoreStorage = {
      ...inner,
      append: async (entries) => {
        if (full) throw new StoreError('full', 'No space left')
        await inner.append(entries)
      },
    }
    const store = await openDurableStore(storage)({ startTime: START })
    const h = createChatHandler(store)
    expect((await say(h, 'c', 'u1')).status).toBe(201)
    full = true
    expect((await post(h, '/modalities/chat/compact', { conversation_id: 'c', from: 'u1', head: 'u1', summary: 's' })).status).toBe(507)
    full = false
    expect((await overlays(h, 'c')).body.overlays).toEqual([])
  })
})

describe('decodeCompactRequest', () => {
  it('takes the four fields and nothing else', () => {
    expect(decodeCompactRequest({ conversation_id: 'c', from: 'a', head: 'b', summary: 's' })).toEqual(
      E.right({ conversation_id: 'c', from: 'a', head: 'b', summary: 's' }),
    )
    expect(E.isLeft(decodeCompactRequest([]))).toBe(true)
  })
})
