/**
 * The Cloudflare Worker checks the token before it wakes a store's Durable Object: requests
 * without a valid token (or to a Worker with no token set) reach no object, counted on a fake
 * namespace whose `idFromName` and `get` record each call.
 */
import { describe, expect, it } from 'vitest'
import { chatStoreWorker } from '../../src/cloudflare/mod.ts'

const TOKEN = 'worker-test-token-0123456789'
const READ_TOKEN = 'worker-test-read-token-0123456'

/** A namespace whose objects answer 200 with their name, counting the names looked up and the objects woken. */
const countingNamespace = () => {
  const calls = { idFromName: 0, get: 0 }
  const ns = {
    idFromName: (name: string) => {
      calls.idFromName++
      return name
    },
    get: (id: unknown) => {
      calls.get++
      return { fetch: async () => new Response(String(id)) }
    },
  }
  return { ns, calls }
}

const storeRequest = (i: number, authorization?: string) =>
  new Request(`https://chat.example/stores/store-${i}/modalities/chat/submit`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
    body: JSON.stringify({ role: 'user', content: 'Hi' }),
  })

describe('chatStoreWorker', () => {
  it('300 requests without a valid token wake no object: 401 from the Worker', async () => {
    const { ns, calls } = countingNamespace()
    const worker = chatStoreWorker()
    const env = { CHAT_STORE: ns, CHATFOLD_TOKEN: TOKEN, CHATFOLD_READ_TOKEN: READ_TOKEN }
    const statuses = new Set<number>()
    for (let i = 0; i < 300; i++) {
      const r = await worker.fetch(storeRequest(i, i % 3 === 0 ? undefined : i % 3 === 1 ? 'Bearer not-the-token-at-all' : `Basic ${TOKEN}`), env)
      statuses.add(r.status)
      expect(r.headers.get('www-authenticate')).toContain('Bearer')
    }
    expect([...statuses]).toEqual([401])
    expect(calls).toEqual({ idFromName: 0, get: 0 })
    // the token, or the read-only one, is passed on to the store's object
    expect(await (await worker.fetch(storeRequest(7, `Bearer ${TOKEN}`), env)).text()).toBe('store-7')
    expect((await worker.fetch(storeRequest(8, `Bearer ${READ_TOKEN}`), env)).status).toBe(200)
    expect(calls).toEqual({ idFromName: 2, get: 2 })
  })

  it('with no token set, every request is a 503 that wakes no object, unless requireToken is false', async () => {
    const { ns, calls } = countingNamespace()
    const refused = await chatStoreWorker().fetch(storeRequest(1), { CHAT_STORE: ns })
    expect(refused.status).toBe(503)
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('no_token')
    expect(calls.get).toBe(0)
    expect((await chatStoreWorker({ requireToken: false }).fetch(storeRequest(1), { CHAT_STORE: ns })).status).toBe(200)
    expect(calls.get).toBe(1)
  })

  it('a token given in its options wins over the secret', async () => {
    const { ns, calls } = countingNamespace()
    const worker = chatStoreWorker({ token: TOKEN })
    expect((await worker.fetch(storeRequest(1, 'Bearer the-secret-of-the-env-0000'), { CHAT_STORE: ns, CHATFOLD_TOKEN: 'the-secret-of-the-env-0000' })).status)
      .toBe(401)
    expect((await worker.fetch(storeRequest(1, `Bearer ${TOKEN}`), { CHAT_STORE: ns })).status).toBe(200)
    expect(calls.get).toBe(1)
  })
})
