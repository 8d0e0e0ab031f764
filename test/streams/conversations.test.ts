import { describe, expect, it } from 'vitest'
import { createChatStore } from '../../src/store/store.ts'
import { openStreamsHandler } from '../../src/streams/handler.ts'
import { memoryStreamsStorage } from '../../src/streams/log.ts'
import { conversationStreamPath, mirrorConversations } from '../../src/streams/conversations.ts'

const base = 'http://localhost/streams'

describe('a conversation of the chat store as a Durable Stream', () => {
  it('shows each submit on its conversation stream, and a client resumes from the last offset it saw', async () => {
    const store = createChatStore()
    store.submit({ role: 'user', content: 'first', conversation_id: 'c 1', message_id: 'm1' })
    const streams = await openStreamsHandler(memoryStreamsStorage())
    const stop = mirrorConversations(store, streams)
    const url = `${base}${conversationStreamPath('c 1')}`
    const first = await streams.handle(new Request(`${url}?offset=-1`))
    expect(first.headers.get('content-type')).toBe('application/json')
    expect((await first.json() as Array<{ message_id: string }>).map((m) => m.message_id)).toEqual(['m1'])
    const offset = first.headers.get('stream-next-offset') as string
    // a long-poll from that offset is answered by the next submit, and only with it
    const waiting = streams.handle(new Request(`${url}?offset=${offset}&live=long-poll`))
    store.submit({ role: 'assistant', content: 'second', conversation_id: 'c 1', message_id: 'm2' })
    store.submit({ role: 'user', content: 'elsewhere', conversation_id: 'c 2', message_id: 'x1' })
    const next = await waiting
    expect(next.status).toBe(200)
    expect((await next.json() as Array<{ message_id: string; content: unknown }>).map((m) => m.message_id)).toEqual(['m2'])
    // the stream is the store's: it cannot be written over HTTP
    const write = await streams.handle(new Request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))
    expect(write.status).toBe(405)
    stop()
  })
})
