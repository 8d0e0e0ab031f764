/**
 * workerd test of the chat HTTP API: the fetch handler runs in-process on the Cloudflare Workers
 * runtime, driven with `new Request(...)`: submit, schedule and advance, query, snapshot, a 400
 * listing bad fields, a streamed body over the limit (413, the rest left unread), and 404/405.
 */
import { createChatHandler } from '../../../src/store/http.ts'
import { createChatStore } from '../../../src/store/store.ts'
import { deepEqual, equal, ok } from './support/assert.ts'

const ORIGIN = 'https://chat.example'

export default {
  async test(): Promise<void> {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    const handler = createChatHandler(store, { maxBodyBytes: 64 * 1024 })
    const post = async (path: string, body: unknown) => {
      const res = await handler(
        new Request(`${ORIGIN}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      )
      // deno-lint-ignore no-explicit-any -- a JSON answer, read field by field
      return { status: res.status, body: (await res.json()) as Record<string, any> }
    }

    equal((await post('/modalities/chat/submit', { role: 'user', content: "What's the weather today?" })).status, 201, 'submit')
    equal(
      (await post('/events', { scheduled_time: '2024-03-15T10:30:00Z', modality: 'chat', data: { role: 'assistant', content: 'Sunny, 72°F.' } })).status,
      202,
      'schedule',
    )
    equal((await post('/simulator/advance', { seconds: 3600 })).status, 200, 'advance')
    const content = [
      { type: 'text', text: "What's in this image?" },
      { type: 'image', source: 'base64', data: 'iVBORw0KGgo=', media_type: 'image/png' },
    ]
    equal((await post('/events/immediate', { modality: 'chat', data: { role: 'user', content } })).status, 201, 'immediate')

    const q = await post('/environment/modalities/chat/query', { conversation_id: 'default', limit: 10 })
    deepEqual(
      q.body['messages'].map((m: { content: unknown }) => m.content),
      ["What's the weather today?", 'Sunny, 72°F.', content],
      'query returns the three messages in order, content as sent',
    )

    const bad = await post('/modalities/chat/submit', { role: 'bot', content: [{ type: 'txt' }] })
    equal(bad.status, 400, 'bad input')
    deepEqual(bad.body['error'].issues.map((i: { path: string }) => i.path), ['role', 'content[0].type'], 'every bad field by path')

    let pulled = 0
    const stream = new ReadableStream<Uint8Array>({
      pull: (c) => {
        pulled++
        if (pulled > 64) c.close()
        else c.enqueue(new Uint8Array(16 * 1024).fill(0x20))
      },
    })
    const big = await handler(
      new Request(
        `${ORIGIN}/modalities/chat/submit`,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit,
      ),
    )
    equal(big.status, 413, 'streamed body over the limit')
    ok(pulled <= 64 * 1024 / (16 * 1024) + 3, `the rest was left unread (pulled ${pulled} chunks)`)

    equal((await handler(new Request(`${ORIGIN}/nope`))).status, 404, 'unknown route')
    equal((await handler(new Request(`${ORIGIN}/events/immediate`))).status, 405, 'wrong method')

    const snap = (await (await handler(new Request(`${ORIGIN}/environment/modalities/chat`))).json()) as { update_count: number; messages: unknown[] }
    equal(snap.update_count, 3, 'three messages applied')
    equal(snap.messages.length, 3, 'three messages held')
  },
}
