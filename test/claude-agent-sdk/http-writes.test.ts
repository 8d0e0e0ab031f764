/**
 * The Claude Agent SDK session store over HTTP when answers are lost, a batch holds an entry the
 * store refuses, and writers run at once: entries without a uuid retried after a lost answer are
 * stored once, a batch is stored whole or not at all, and 160 concurrent appends all land.
 */
import { describe, expect, it } from 'vitest'
import type { SessionKey, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { createChatStore } from '../../src/store/store.ts'
import { createChatHandler } from '../../src/store/http.ts'
import { chatStoreSessionStore, httpChatLog } from '../../src/claude-agent-sdk/mod.ts'

const key: SessionKey = { projectKey: '/home/dev/app', sessionId: 's-1' }
const entry = (text: string, uuid?: string): SessionStoreEntry => ({
  type: 'user',
  ...(uuid === undefined ? {} : { uuid }),
  message: { role: 'user', content: text },
})

const served = (options: { readonly maxBodyBytes?: number } = {}) => {
  const handler = createChatHandler(createChatStore({ maxHistorySize: Infinity }), { token: 'secret', ...options })
  return (lose = 0) => {
    let lost = 0
    return chatStoreSessionStore(
      httpChatLog({
        url: 'http://store.test',
        token: 'secret',
        fetch: async (input, init) => {
          const answer = await handler(new Request(input, init))
          if (String(input).endsWith('/modalities/chat/submit') && lost < lose) {
            lost++
            throw new TypeError('fetch failed')
          }
          return answer
        },
      }),
    )
  }
}

describe('chatStoreSessionStore over HTTP', () => {
  it('entries without a uuid, whose answer was lost, are stored once', async () => {
    const open = served()
    const store = open(1)
    const batch = [entry('title'), entry('summary')]
    await store.append(key, batch).catch(() => store.append(key, batch))
    expect(await open().load(key)).toEqual(batch)
  })

  it('a batch with an entry the store refuses stores none of it', async () => {
    const store = served({ maxBodyBytes: 4_096 })()
    await store.append(key, [entry('before', 'u0')])
    await expect(store.append(key, [entry('ok', 'u1'), entry('x'.repeat(10_000), 'u2'), entry('after', 'u3')])).rejects.toThrow(/413/)
    expect(await store.load(key)).toEqual([entry('before', 'u0')])
  })

  it('160 concurrent appends all land, each once', { timeout: 120_000 }, async () => {
    const open = served()
    const stores = [open(), open(), open(), open()]
    const results = await Promise.allSettled(Array.from({ length: 160 }, (_, i) => (stores[i % 4] ?? stores[0])?.append(key, [entry(`e${i}`, `u${i}`)])))
    expect(results.filter((r) => r.status === 'rejected')).toEqual([])
    const loaded = (await open().load(key)) ?? []
    expect(loaded).toHaveLength(160)
    expect(new Set(loaded.map((e) => e.uuid)).size).toBe(160)
  })
})
