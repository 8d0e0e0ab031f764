/**
 * A durable store that has failed (its lease lost to another process, its log unwritable) is a 503
 * for every request that reaches its handler, never a 500: the step that found the failure, and
 * every step after it.
 */
import { describe, expect, it } from 'vitest'
import { createChatHandler } from '../../src/store/http.ts'
import { memoryStorage, openDurableStore, type StoreStorage } from '../../src/store/durable.ts'

describe('a handler over a durable store that has failed', () => {
  it('answers 503, saying why, to the request that found the failure and to every write after it', async () => {
    const inner = memoryStorage()
    let lost = false
    // the storage of a process whose lease another took: every append refused
    const storage: StoreStorage = {
      ...inner,
      append: async (entries) => {
        if (lost) throw new Error('the lease of the store changed under this process')
        await inner.append(entries)
      },
    }
    const store = await openDurableStore(storage)({ startTime: '2024-03-15T10:00:00Z' })
    const handler = createChatHandler(store)
    const post = (content: string) =>
      handler(
        new Request('http://127.0.0.1/modalities/chat/submit', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ role: 'user', content }),
        }),
      )
    expect((await post('one')).status).toBe(201)
    lost = true
    const found = await post('two')
    expect(found.status).toBe(503)
    const after = await post('three')
    expect(after.status).toBe(503)
    expect(((await after.json()) as { error: { message: string } }).error.message).toContain('lease')
    expect(store.failed()).toBeDefined()
  })
})
