/**
 * The Agents SDK session over HTTP when answers are lost, a batch holds an item the store refuses,
 * and writers run at once: a write retried after a lost answer is stored once, a batch is stored
 * whole or not at all, and 200 concurrent `addItems` all land, each once.
 */
import { describe, expect, it } from 'vitest'
import type { AgentInputItem } from '@openai/agents'
import { createChatStore } from '../../src/store/store.ts'
import { createChatHandler } from '../../src/store/http.ts'
import { chatStoreSession, httpChatLog } from '../../src/openai-agents/mod.ts'

const user = (text: string): AgentInputItem => ({ role: 'user', content: text })

/** An in-process served store, and a `fetch` to it that loses the answer of the first `lose` submits (the store has taken them). */
const served = (options: { readonly maxBodyBytes?: number } = {}) => {
  const handler = createChatHandler(createChatStore({ maxHistorySize: Infinity }), { token: 'secret', ...options })
  const losing = (lose: number): typeof fetch => {
    let lost = 0
    return async (input, init) => {
      const answer = await handler(new Request(input, init))
      if (String(input).endsWith('/modalities/chat/submit') && lost < lose) {
        lost++
        throw new TypeError('fetch failed')
      }
      return answer
    }
  }
  return { log: (lose = 0) => httpChatLog({ url: 'http://store.test', token: 'secret', fetch: losing(lose) }) }
}

describe('chatStoreSession over HTTP', () => {
  it('a write whose answer was lost is sent again and recognised: stored once', async () => {
    const store = served()
    const session = chatStoreSession({ log: store.log(1), sessionId: 'lost' })
    const batch = [user('one'), user('two')]
    // the caller retries what rejected, as an agent loop would
    await session.addItems(batch).catch(() => session.addItems(batch))
    await session.addItems([user('three')])
    expect(await chatStoreSession({ log: store.log(), sessionId: 'lost' }).getItems()).toEqual([user('one'), user('two'), user('three')])
  })

  it('a batch with an item the store refuses stores none of it', async () => {
    const store = served({ maxBodyBytes: 4_096 })
    const session = chatStoreSession({ log: store.log(), sessionId: 'batch' })
    await session.addItems([user('before')])
    await expect(session.addItems([user('ok'), user('x'.repeat(10_000)), user('after')])).rejects.toThrow(/413/)
    expect(await session.getItems()).toEqual([user('before')])
  })

  it('200 concurrent addItems all land, each once, each batch in its order', { timeout: 120_000 }, async () => {
    const store = served()
    // one session object, and four more on logs of their own (as other processes would be)
    const one = chatStoreSession({ log: store.log(), sessionId: 'busy' })
    const others = Array.from({ length: 4 }, () => chatStoreSession({ log: store.log(), sessionId: 'busy' }))
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? one : (others[i % 4] ?? one)).addItems([user(`${i}-a`), user(`${i}-b`)])),
    )
    expect(results.filter((r) => r.status === 'rejected')).toEqual([])
    const texts = (await one.getItems()).map((i) => (i as { content: string }).content)
    expect(texts).toHaveLength(400)
    expect(new Set(texts).size).toBe(400)
    for (let i = 0; i < 200; i++) expect(texts.indexOf(`${i}-a`) + 1).toBe(texts.indexOf(`${i}-b`))
  })
})
