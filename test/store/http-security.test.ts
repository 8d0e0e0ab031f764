/**
 * Who may call the chat handler: a page elsewhere cannot write (its simple requests are refused),
 * cannot read through DNS rebinding (a foreign Host), tokens are checked, a read-only token only
 * reads, the simulator routes can be off, and a caller limited to some conversations learns
 * nothing of the others (message ids are scoped to a conversation, counts are its own).
 */
import { describe, expect, it } from 'vitest'
import { type ChatHandlerOptions, createChatHandler } from '../../src/store/http.ts'
import { generateToken, isLoopback, sameSecret } from '../../src/store/http-guard.ts'
import { createChatStore } from '../../src/store/store.ts'

const setup = (options: ChatHandlerOptions = {}) => {
  const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
  const handler = createChatHandler(store, options)
  const send = async (method: string, path: string, init: { body?: string; headers?: Record<string, string>; host?: string } = {}) => {
    const res = await handler(
      new Request(`http://${init.host ?? '127.0.0.1:8787'}${path}`, {
        method,
        headers: init.headers ?? {},
        ...(init.body === undefined ? {} : { body: init.body }),
      }),
    )
    const text = await res.text()
    // deno-lint-ignore no-explicit-any -- a JSON answer, read field by field
    return { status: res.status, headers: res.headers, body: text === '' ? undefined : (JSON.parse(text) as Record<string, any>) }
  }
  const json = { 'content-type': 'application/json' }
  return { store, send, json }
}

const hi = JSON.stringify({ role: 'user', content: 'Hi' })

describe('a page in the browser', () => {
  it('cannot store a message with a cross-site text/plain POST (no preflight), nor one with no content type', async () => {
    const { store, send } = setup()
    const r = await send('POST', '/modalities/chat/submit', { body: hi, headers: { 'content-type': 'text/plain;charset=UTF-8' } })
    expect(r.status).toBe(415)
    expect(r.body?.error.code).toBe('unsupported_media_type')
    // a Blob with no type is sent with no content type at all
    const untyped = await createChatHandler(store)(new Request('http://127.0.0.1:8787/modalities/chat/submit', { method: 'POST', body: new Blob([hi]) }))
    expect(untyped.status).toBe(415)
    expect(store.state().updateCount).toBe(0)
  })

  it('cannot send from another origin, even as JSON', async () => {
    const { store, send, json } = setup()
    const r = await send('POST', '/modalities/chat/submit', { body: hi, headers: { ...json, origin: 'https://evil.example' } })
    expect(r.status).toBe(403)
    expect(r.body?.error.code).toBe('origin_not_allowed')
    expect((await send('POST', '/modalities/chat/submit', { body: hi, headers: { ...json, origin: 'null' } })).status).toBe(403)
    expect((await send('GET', '/environment/modalities/chat', { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403)
    expect(store.state().updateCount).toBe(0)
    // its own origin is fine
    expect((await send('POST', '/modalities/chat/submit', { body: hi, headers: { ...json, origin: 'http://127.0.0.1:8787' } })).status).toBe(201)
  })

  it('cannot read the store through DNS rebinding: a Host that is not the server is refused', async () => {
    const { send } = setup({ allowedHosts: ['localhost', '127.0.0.1', '::1'] })
    const r = await send('GET', '/environment/modalities/chat', { host: 'evil.example:8787' })
    expect(r.status).toBe(403)
    expect(r.body?.error.code).toBe('host_not_allowed')
    expect((await send('GET', '/environment/modalities/chat', { host: 'localhost:8787' })).status).toBe(200)
    expect((await send('GET', '/environment/modalities/chat', { host: '[::1]:8787' })).status).toBe(200)
  })
})

describe('tokens', () => {
  const token = generateToken()
  const readToken = generateToken()
  const bearer = (t: string) => ({ authorization: `Bearer ${t}`, 'content-type': 'application/json' })

  it('a request without the token, or with a wrong one, is a 401 that changes nothing', async () => {
    const { store, send, json } = setup({ token })
    const none = await send('POST', '/modalities/chat/submit', { body: hi, headers: json })
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toContain('Bearer')
    expect((await send('GET', '/environment/modalities/chat', { headers: bearer(`${token}x`) })).status).toBe(401)
    expect((await send('GET', '/environment/modalities/chat', { headers: bearer(token.slice(0, -1)) })).status).toBe(401)
    expect(store.state().updateCount).toBe(0)
    expect((await send('POST', '/modalities/chat/submit', { body: hi, headers: bearer(token) })).status).toBe(201)
  })

  it('without the token, an unknown route or a wrong method is a 401 too: the routes cannot be mapped', async () => {
    const { send, json } = setup({ token })
    for (
      const [method, path] of [['GET', '/nope'], ['GET', '/environment/modalities/chat/nope'], ['DELETE', '/events'], ['PUT', '/modalities/chat/submit'], [
        'GET',
        '/simulator/advance',
      ]] as const
    ) {
      const r = await send(method, path, { headers: json })
      expect(`${method} ${path} ${r.status}`).toBe(`${method} ${path} 401`)
      expect(r.headers.get('allow')).toBeNull()
    }
    expect((await send('GET', '/nope', { headers: bearer(token) })).status).toBe(404)
    expect((await send('DELETE', '/events', { headers: bearer(token) })).status).toBe(405)
  })

  it('a read-only token reads and queries, and may not write', async () => {
    const { store, send } = setup({ token, readToken })
    expect((await send('POST', '/modalities/chat/submit', { body: hi, headers: bearer(token) })).status).toBe(201)
    expect((await send('GET', '/environment/modalities/chat', { headers: bearer(readToken) })).body?.messages).toHaveLength(1)
    expect((await send('POST', '/environment/modalities/chat/query', { body: '{}', headers: bearer(readToken) })).body?.count).toBe(1)
    const w = await send('POST', '/modalities/chat/submit', { body: hi, headers: bearer(readToken) })
    expect(w.status).toBe(403)
    expect(w.body?.error.code).toBe('read_only')
    expect((await send('POST', '/simulator/advance', { body: '{"seconds":1}', headers: bearer(readToken) })).status).toBe(403)
    expect(store.state().updateCount).toBe(1)
  })

  it('secrets compare equal only when equal; loopback names are told apart from the rest', async () => {
    expect(await sameSecret('abc', 'abc')).toBe(true)
    expect(await sameSecret('abc', 'abd')).toBe(false)
    expect(await sameSecret('abc', 'abcd')).toBe(false)
    expect(generateToken()).not.toBe(generateToken())
    expect(['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]'].map(isLoopback)).toEqual([true, true, true, true, true])
    expect(['0.0.0.0', '::', '10.0.0.1', 'evil.example', 'localhost.evil.example'].map(isLoopback)).toEqual([false, false, false, false, false])
  })
})

describe('the simulator routes', () => {
  it('are a 404 when off, and change nothing', async () => {
    const { store, send, json } = setup({ simulator: false })
    const r = await send('POST', '/simulator/advance', { body: '{"seconds":3600}', headers: json })
    expect(r.status).toBe(404)
    expect((await send('GET', '/simulator')).status).toBe(404)
    expect(store.simulator().now).toBe('2024-03-15T10:00:00.000Z')
  })
})

describe('a caller limited to one conversation', () => {
  const options: ChatHandlerOptions = {
    authorize: (r) => (r.headers.get('authorization') === 'Bearer admin' ? { type: 'allow' } : { type: 'allow', conversations: ['mine'] }),
  }
  const admin = { authorization: 'Bearer admin', 'content-type': 'application/json' }
  const limited = { 'content-type': 'application/json' }

  it('cannot tell whether a message id exists in another conversation, nor take it from it', async () => {
    const { send } = setup(options)
    const theirs = JSON.stringify({ role: 'user', content: 'secret', message_id: 'x-1', conversation_id: 'theirs' })
    const mine = JSON.stringify({ role: 'user', content: 'mine', message_id: 'x-1', conversation_id: 'mine' })
    expect((await send('POST', '/modalities/chat/submit', { body: theirs, headers: admin })).status).toBe(201)
    // the id held elsewhere answers as a fresh id would: a 201, and the message is stored in "mine"
    const r = await send('POST', '/modalities/chat/submit', { body: mine, headers: limited })
    expect(r.status).toBe(201)
    expect(r.body?.message).toMatchObject({ message_id: 'x-1', conversation_id: 'mine', content: 'mine' })
    // its own retry is told (409), as anyone's is
    expect((await send('POST', '/modalities/chat/submit', { body: mine, headers: limited })).status).toBe(409)
    // taking the id first does not block the other conversation either
    const later = JSON.stringify({ role: 'user', content: 'first', message_id: 'y-1', conversation_id: 'mine' })
    expect((await send('POST', '/modalities/chat/submit', { body: later, headers: limited })).status).toBe(201)
    const after = JSON.stringify({ role: 'user', content: 'second', message_id: 'y-1', conversation_id: 'theirs' })
    expect((await send('POST', '/modalities/chat/submit', { body: after, headers: admin })).status).toBe(201)
    const all = (await send('GET', '/environment/modalities/chat', { headers: admin })).body
    expect(
      all?.messages.map((m: { conversation_id: string; message_id: string; content: string }) => `${m.conversation_id}/${m.message_id}:${m.content}`).sort(),
    ).toEqual([
      'mine/x-1:mine',
      'mine/y-1:first',
      'theirs/x-1:secret',
      'theirs/y-1:second',
    ])
  })

  it('sees only its own counts in GET /simulator and the snapshot', async () => {
    const { send } = setup(options)
    for (let i = 0; i < 3; i++)
      await send('POST', '/modalities/chat/submit', { body: JSON.stringify({ role: 'user', content: `t${i}`, conversation_id: 'theirs' }), headers: admin })
    await send('POST', '/modalities/chat/submit', { body: JSON.stringify({ role: 'user', content: 'm', conversation_id: 'mine' }), headers: limited })
    expect((await send('GET', '/simulator', { headers: admin })).body).toMatchObject({ applied: 4 })
    expect((await send('GET', '/simulator', { headers: limited })).body).toMatchObject({ applied: 1, pending: 0 })
    // nor in the ids of its own events: a generated id would number the store's events
    const own = (await send('GET', '/events', { headers: limited })).body?.events as Array<{ event_id: string }>
    const all = (await send('GET', '/events', { headers: admin })).body?.events as Array<{ event_id: string }>
    expect(own.map((e) => e.event_id)).toHaveLength(1)
    const numbered = /^(.*-)\d{12}$/.exec(all[0]?.event_id ?? '')
    expect(numbered).not.toBeNull()
    expect(own[0]?.event_id.startsWith(numbered?.[1] ?? '')).toBe(false)
    // nor in the snapshot's counters
    expect((await send('GET', '/environment/modalities/chat', { headers: admin })).body).toMatchObject({ update_count: 4 })
    expect((await send('GET', '/environment/modalities/chat', { headers: limited })).body).toMatchObject({ update_count: 1 })
  })
})
