import { describe, expect, it } from 'vitest'
import { type AuthDecision, type ChatHandlerOptions, createChatHandler } from '../../src/store/http.ts'
import { createChatStore } from '../../src/store/store.ts'
import type { ChatStore } from '../../src/store/store.ts'

const ORIGIN = 'http://chat.test'

const setup = (options: ChatHandlerOptions = {}) => {
  const store = createChatStore({ startTime: '2024-03-15T10:00:00Z', idPrefix: 'in-' })
  const handler = createChatHandler(store, options)
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init: RequestInit = { method, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers } }
    if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body)
    const res = await handler(new Request(`${ORIGIN}${path}`, init))
    const text = await res.text()
    // deno-lint-ignore no-explicit-any -- a JSON answer, read field by field
    return { status: res.status, headers: res.headers, body: text === '' ? undefined : (JSON.parse(text) as Record<string, any>) }
  }
  return { store, handler, call }
}

/** Runs `f` and checks the store's value did not change at all. */
const unchanged = async (store: ChatStore, f: () => Promise<unknown>) => {
  const before = store.simulator()
  await f()
  expect(store.simulator()).toBe(before)
}

describe('chat API: the seed usage patterns', () => {
  it('POST /events schedules a user message; the clock applies it', async () => {
    const { call } = setup()
    const r = await call('POST', '/events', {
      scheduled_time: '2024-03-15T10:30:00Z',
      modality: 'chat',
      data: { role: 'user', content: "What's the weather today?" },
    })
    expect(r.status).toBe(202)
    expect(r.body?.event).toMatchObject({ status: 'pending', scheduled_time: '2024-03-15T10:30:00Z', modality: 'chat' })
    expect((await call('GET', '/environment/modalities/chat')).body?.messages).toEqual([])
    const adv = await call('POST', '/simulator/advance', { seconds: 3600 })
    expect(adv.status).toBe(200)
    expect(adv.body?.current_time).toBe('2024-03-15T11:00:00.000Z')
    expect(adv.body?.applied.map((e: { status: string }) => e.status)).toEqual(['applied'])
    const snap = (await call('GET', '/environment/modalities/chat')).body
    expect(snap?.messages.map((m: { content: string }) => m.content)).toEqual(["What's the weather today?"])
  })

  it('POST /modalities/chat/submit and POST /events/immediate apply an agent reply at once', async () => {
    const { call } = setup()
    const a = await call('POST', '/modalities/chat/submit', { role: 'assistant', content: "Based on the current weather data, it's sunny and 72°F." })
    expect(a.status).toBe(201)
    expect(a.body?.message).toEqual({
      message_id: 'in-000000000001',
      conversation_id: 'default',
      role: 'assistant',
      content: "Based on the current weather data, it's sunny and 72°F.",
      timestamp: '2024-03-15T10:00:00.000Z',
      input_id: 'in-000000000001',
    })
    const b = await call('POST', '/events/immediate', { modality: 'chat', data: { role: 'assistant', content: 'Same again.', conversation_id: 'c2' } })
    expect(b.status).toBe(201)
    expect(b.body?.event.status).toBe('applied')
    expect(b.body?.message.conversation_id).toBe('c2')
  })

  it('POST /environment/modalities/chat/query filters, chronologically', async () => {
    const { call } = setup()
    for (let i = 0; i < 12; i++) await call('POST', '/modalities/chat/submit', { role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i}` })
    const r = await call('POST', '/environment/modalities/chat/query', { conversation_id: 'default', limit: 10 })
    expect(r.status).toBe(200)
    expect(r.body?.count).toBe(10)
    expect(r.body?.messages.map((m: { content: string }) => m.content)).toEqual(Array.from({ length: 10 }, (_, i) => `message ${i + 2}`))
    const s = await call('POST', '/environment/modalities/chat/query', { role: 'assistant', search: 'MESSAGE 1' })
    expect(s.body?.messages.map((m: { content: string }) => m.content)).toEqual(['message 1', 'message 11'])
  })

  it('keeps multimodal content exactly as sent', async () => {
    const { call } = setup()
    const content = [
      { type: 'text', text: "What's in this image?" },
      { type: 'image', source: 'url', url: 'https://example.com/image.jpg' },
    ]
    await call('POST', '/modalities/chat/submit', { role: 'user', content })
    const q = await call('POST', '/environment/modalities/chat/query', {})
    expect(q.body?.messages[0].content).toEqual(content)
  })

  it('GET /events lists the history (the last N with ?limit) and what is pending', async () => {
    const { call } = setup()
    await call('POST', '/modalities/chat/submit', { role: 'user', content: 'a' })
    await call('POST', '/modalities/chat/submit', { role: 'user', content: 'b' })
    await call('POST', '/events', { scheduled_time: '2024-03-16T00:00:00Z', modality: 'chat', data: { role: 'user', content: 'c' } })
    const all = await call('GET', '/events')
    expect(all.body?.events.map((e: { input: { content: string } }) => e.input.content)).toEqual(['a', 'b'])
    expect(all.body?.pending.map((e: { input: { content: string } }) => e.input.content)).toEqual(['c'])
    expect((await call('GET', '/events?limit=1')).body?.events.map((e: { input: { content: string } }) => e.input.content)).toEqual(['b'])
    expect((await call('GET', '/events?limit=x')).status).toBe(400)
    expect((await call('GET', '/simulator')).body).toEqual({ current_time: '2024-03-15T10:00:00.000Z', pending: 1, applied: 2 })
  })

  it('serves under a base path', async () => {
    const { handler } = setup({ basePath: '/api/' })
    expect((await handler(new Request(`${ORIGIN}/api/environment/modalities/chat`))).status).toBe(200)
    expect((await handler(new Request(`${ORIGIN}/environment/modalities/chat`))).status).toBe(404)
    expect((await handler(new Request(`${ORIGIN}/apix/events`))).status).toBe(404)
  })
})

describe('chat API: bad requests change nothing', () => {
  it('400 lists every bad field by path', async () => {
    const { store, call } = setup()
    await unchanged(store, async () => {
      const r = await call('POST', '/events', { scheduled_time: 'tomorrow', modality: 'email', data: { role: 'bot', content: [{ type: 'txt' }] }, extra: 1 })
      expect(r.status).toBe(400)
      expect(r.body?.error.code).toBe('invalid_request')
      expect(r.body?.error.issues.map((i: { path: string }) => i.path)).toEqual(['modality', 'extra', 'scheduled_time', 'data.role', 'data.content[0].type'])
      expect(r.body?.error.issues[3]).toEqual({ path: 'data.role', expected: '"user" | "assistant"', actual: '"bot"' })
      const s = await call('POST', '/modalities/chat/submit', { role: 'user', content: 'x', conversation_id: '' })
      expect(s.body?.error.issues.map((i: { path: string }) => i.path)).toEqual(['conversation_id'])
      const i = await call('POST', '/events/immediate', { modality: 'chat', data: { role: 'user' } })
      expect(i.body?.error.issues.map((x: { path: string }) => x.path)).toEqual(['data.content'])
      const q = await call('POST', '/environment/modalities/chat/query', { limit: -1, conversationId: 'x' })
      expect(q.body?.error.issues.map((x: { path: string }) => x.path)).toEqual(['limit', 'conversationId'])
      const a = await call('POST', '/simulator/advance', { seconds: 'ten' })
      expect(a.body?.error.issues.map((x: { path: string }) => x.path)).toEqual(['seconds'])
      expect((await call('POST', '/simulator/advance', { until: '2000-01-01T00:00:00Z' })).status).toBe(400)
      expect((await call('POST', '/simulator/advance', { seconds: 1, until: '2030-01-01T00:00:00Z' })).status).toBe(400)
      expect((await call('POST', '/simulator/advance', {})).status).toBe(400)
    })
  })

  it('400 for bodies that are not JSON, not UTF-8, or empty; 415 for another media type', async () => {
    const { store, handler, call } = setup()
    await unchanged(store, async () => {
      expect((await call('POST', '/modalities/chat/submit', '{"role": "user",')).body?.error.code).toBe('invalid_json')
      expect((await call('POST', '/modalities/chat/submit', '')).status).toBe(400)
      expect((await call('POST', '/modalities/chat/submit', '[]')).status).toBe(400)
      expect((await call('POST', '/modalities/chat/submit', 'null')).status).toBe(400)
      const bad = await handler(
        new Request(`${ORIGIN}/modalities/chat/submit`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: new Uint8Array([0x7b, 0xff, 0x7d]),
        }),
      )
      expect(bad.status).toBe(400)
      expect((await call('POST', '/modalities/chat/submit', 'role=user', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415)
      expect((await call('POST', '/modalities/chat/submit', '{}', { 'content-type': 'multipart/form-data; boundary=x' })).status).toBe(415)
    })
    expect(
      (await call('POST', '/modalities/chat/submit', { role: 'user', content: 'x' }, { 'content-type': 'application/vnd.api+json; charset=utf-8' })).status,
    ).toBe(201)
    // text/plain (and a body with no type) is what a page elsewhere sends without a preflight: refused
    expect(
      (await call('POST', '/modalities/chat/submit', JSON.stringify({ role: 'user', content: 'y' }), { 'content-type': 'text/plain;charset=UTF-8' })).status,
    ).toBe(415)
  })

  it('409 for a message id already held', async () => {
    const { store, call } = setup()
    await call('POST', '/modalities/chat/submit', { role: 'user', content: 'x', message_id: 'm1' })
    await unchanged(store, async () => {
      const r = await call('POST', '/modalities/chat/submit', { role: 'user', content: 'y', message_id: 'm1' })
      expect(r.status).toBe(409)
      expect(r.body?.error.message_id).toBe('m1')
    })
  })

  it('404 for an unknown route, 405 with Allow for a wrong method', async () => {
    const { store, call } = setup()
    await unchanged(store, async () => {
      expect((await call('GET', '/nope')).status).toBe(404)
      expect((await call('GET', '/__proto__')).status).toBe(404)
      expect((await call('GET', '/constructor')).status).toBe(404)
      const r = await call('GET', '/modalities/chat/submit')
      expect(r.status).toBe(405)
      expect(r.headers.get('allow')).toBe('POST')
      const d = await call('DELETE', '/events')
      expect(d.status).toBe(405)
      expect(d.headers.get('allow')).toBe('POST, GET')
    })
  })

  it('413 from the declared length, before reading anything', async () => {
    const { store, handler } = setup({ maxBodyBytes: 100 })
    await unchanged(store, async () => {
      let pulled = 0
      const body = new ReadableStream<Uint8Array>({ pull: (c) => void (pulled++, c.enqueue(new Uint8Array(64))) })
      const req = new Request(
        `${ORIGIN}/modalities/chat/submit`,
        { method: 'POST', body, headers: { 'content-length': '1000000', 'content-type': 'application/json' }, duplex: 'half' } as RequestInit,
      )
      const res = await handler(req)
      expect(res.status).toBe(413)
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large')
      expect(pulled).toBeLessThanOrEqual(1)
    })
  })

  it('413 as soon as a streamed body crosses the limit, without reading the rest', async () => {
    const { store, handler } = setup({ maxBodyBytes: 1_048_576 })
    await unchanged(store, async () => {
      let pulled = 0
      let cancelled = false
      const chunk = new Uint8Array(65_536).fill(0x20)
      const body = new ReadableStream<Uint8Array>({
        pull: (c) => {
          pulled++
          if (pulled > 160) c.close() // 10 MiB at most
          else c.enqueue(chunk)
        },
        cancel: () => void (cancelled = true),
      })
      const res = await handler(
        new Request(
          `${ORIGIN}/modalities/chat/submit`,
          { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit,
        ),
      )
      expect(res.status).toBe(413)
      expect(cancelled).toBe(true)
      expect(pulled).toBeLessThanOrEqual(1_048_576 / 65_536 + 3)
    })
  })

  it('a body just under the limit is read', async () => {
    const { handler } = setup({ maxBodyBytes: 200 })
    const json = JSON.stringify({ role: 'user', content: 'x'.repeat(150) })
    expect(json.length).toBeLessThanOrEqual(200)
    const res = await handler(new Request(`${ORIGIN}/modalities/chat/submit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json }))
    expect(res.status).toBe(201)
  })
})

describe('chat API: authorization', () => {
  const tokens: Record<string, AuthDecision> = {
    admin: { type: 'allow' },
    alice: { type: 'allow', conversations: ['alice'] },
    banned: { type: 'deny', status: 403, message: 'banned' },
  }
  const authorize = (req: Request): AuthDecision =>
    tokens[req.headers.get('authorization') ?? ''] ?? { type: 'deny', status: 401, headers: { 'www-authenticate': 'Bearer' } }
  const as = (who: string) => ({ authorization: who })

  it('401 and 403 from the hook, before the body is read', async () => {
    const { store, call } = setup({ authorize })
    await unchanged(store, async () => {
      const r = await call('POST', '/modalities/chat/submit', { role: 'user', content: 'x' })
      expect(r.status).toBe(401)
      expect(r.headers.get('www-authenticate')).toBe('Bearer')
      const b = await call('POST', '/modalities/chat/submit', { role: 'user', content: 'x' }, as('banned'))
      expect(b.status).toBe(403)
      expect(b.body?.error.message).toBe('banned')
    })
  })

  it('a caller limited to some conversations sees and writes only those', async () => {
    const { store, call } = setup({ authorize })
    await call('POST', '/modalities/chat/submit', { role: 'user', content: 'secret', conversation_id: 'bob' }, as('admin'))
    await call('POST', '/modalities/chat/submit', { role: 'user', content: 'hi', conversation_id: 'alice' }, as('alice'))
    await call('POST', '/events', {
      scheduled_time: '2024-03-16T00:00:00Z',
      modality: 'chat',
      data: { role: 'user', content: 'later', conversation_id: 'bob' },
    }, as('admin'))

    const snap = (await call('GET', '/environment/modalities/chat', undefined, as('alice'))).body
    expect(Object.keys(snap?.conversations)).toEqual(['alice'])
    expect(snap?.messages.map((m: { content: string }) => m.content)).toEqual(['hi'])
    const q = (await call('POST', '/environment/modalities/chat/query', { search: 'secret' }, as('alice'))).body
    expect(q?.messages).toEqual([])
    const ev = (await call('GET', '/events', undefined, as('alice'))).body
    expect(ev?.events.map((e: { input: { content: string } }) => e.input.content)).toEqual(['hi'])
    expect(ev?.pending).toEqual([])

    await unchanged(store, async () => {
      expect((await call('POST', '/environment/modalities/chat/query', { conversation_id: 'bob' }, as('alice'))).status).toBe(403)
      expect((await call('POST', '/modalities/chat/submit', { role: 'user', content: 'x', conversation_id: 'bob' }, as('alice'))).status).toBe(403)
      expect((await call('POST', '/modalities/chat/submit', { role: 'user', content: 'x' }, as('alice'))).status).toBe(403)
      expect((await call('POST', '/events/immediate', { modality: 'chat', data: { role: 'user', content: 'x', conversation_id: 'bob' } }, as('alice'))).status)
        .toBe(403)
      expect(
        (await call('POST', '/events', {
          scheduled_time: '2024-03-17T00:00:00Z',
          modality: 'chat',
          data: { role: 'user', content: 'x', conversation_id: 'bob' },
        }, as('alice'))).status,
      ).toBe(403)
      expect((await call('POST', '/simulator/advance', { seconds: 1 }, as('alice'))).status).toBe(403)
      // bad data is still a 400 for a limited caller
      expect((await call('POST', '/modalities/chat/submit', { role: 'bot', content: 'x', conversation_id: 'alice' }, as('alice'))).status).toBe(400)
    })
    expect((await call('POST', '/environment/modalities/chat/query', { conversation_id: 'alice' }, as('alice'))).body?.count).toBe(1)
  })

  it('a hook that throws is a 500, and nothing changes', async () => {
    const { store, call } = setup({
      authorize: () => {
        throw new Error('auth service down')
      },
    })
    await unchanged(store, async () => {
      const r = await call('POST', '/modalities/chat/submit', { role: 'user', content: 'x' })
      expect(r.status).toBe(500)
      expect(r.body?.error.code).toBe('internal_error')
    })
  })

  it('an async hook works', async () => {
    const { call } = setup({ authorize: async () => ({ type: 'allow' }) })
    expect((await call('POST', '/modalities/chat/submit', { role: 'user', content: 'x' })).status).toBe(201)
  })
})

describe('chat API: a request is decoded once, at the edge', () => {
  it('hands the store the decoded event: its raw-input steps are never called', async () => {
    const inner = createChatStore({ startTime: '2024-03-15T10:00:00Z', idPrefix: 'in-' })
    const refuse = (): never => {
      throw new Error('raw input reached the store')
    }
    const decoded: unknown[] = []
    const store: ChatStore = {
      ...inner,
      submit: refuse,
      schedule: refuse,
      submitDecoded: (event) => {
        decoded.push(event)
        return inner.submitDecoded(event)
      },
    }
    const handler = createChatHandler(store, { authorize: (r) => (r.headers.has('x-limited') ? { type: 'allow', conversations: ['a'] } : { type: 'allow' }) })
    const post = async (path: string, body: unknown, limited = false) =>
      (await handler(
        new Request(`${ORIGIN}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(limited ? { 'x-limited': '1' } : {}) },
          body: JSON.stringify(body),
        }),
      )).status
    const data = { role: 'user', content: 'Hi', conversation_id: 'a' }
    expect(await post('/modalities/chat/submit', data)).toBe(201)
    expect(await post('/modalities/chat/submit', data, true)).toBe(201)
    expect(await post('/events/immediate', { modality: 'chat', data }, true)).toBe(201)
    expect(await post('/events', { modality: 'chat', scheduled_time: '2024-03-15T11:00:00Z', data }, true)).toBe(202)
    expect(await post('/modalities/chat/submit', { ...data, conversation_id: 'b' }, true)).toBe(403)
    expect(await post('/modalities/chat/submit', { ...data, role: 'bot' }, true)).toBe(400)
    expect(decoded).toHaveLength(4)
    expect(inner.state().updateCount).toBe(3)
  })

  it('a store written by hand without submitDecoded still serves: the handler passes the event to submit and schedule', async () => {
    const inner = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    const { submitDecoded: _unused, ...rest } = inner
    const calls: string[] = []
    const store: ChatStore = {
      ...rest,
      submit: (data) => {
        calls.push('submit')
        return inner.submit(data)
      },
      schedule: (request) => {
        calls.push('schedule')
        return inner.schedule(request)
      },
    }
    const handler = createChatHandler(store)
    const post = async (path: string, body: unknown) =>
      (await handler(new Request(`${ORIGIN}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))).status
    const data = { role: 'user', content: 'Hi' }
    expect(await post('/modalities/chat/submit', data)).toBe(201)
    expect(await post('/events', { modality: 'chat', scheduled_time: '2024-03-15T11:00:00Z', data })).toBe(202)
    expect(await post('/modalities/chat/submit', { ...data, role: 'bot' })).toBe(400)
    expect(calls).toEqual(['submit', 'schedule'])
    expect(inner.state().updateCount).toBe(1)
    expect(inner.simulator().pending?.n).toBe(1)
  })
})
