import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type IncomingMessage, request as httpRequest } from 'node:http'
import type { Socket } from 'node:net'
import { createChatHandler } from '../../src/store/http.ts'
import { createChatStore } from '../../src/store/store.ts'
import { type RunningServer, serve, toNodeListener } from '../../src/node/http.ts'

const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
let running: RunningServer
const sockets: Socket[] = []

beforeAll(async () => {
  running = await serve(createChatHandler(store, { maxBodyBytes: 1_048_576 }))
  running.server.on('connection', (s: Socket) => void sockets.push(s))
})
afterAll(async () => {
  await running.close()
})

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${running.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  // deno-lint-ignore no-explicit-any -- a JSON answer, read field by field
  return { status: res.status, body: (await res.json()) as Record<string, any> }
}

describe('the chat handler over real HTTP on 127.0.0.1 (node:http)', () => {
  it('listens on loopback', () => {
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })

  it('submits, queries and snapshots', async () => {
    expect((await post('/modalities/chat/submit', { role: 'user', content: "What's the weather?", conversation_id: 'n1' })).status).toBe(201)
    expect((await post('/events/immediate', { modality: 'chat', data: { role: 'assistant', content: 'Sunny.', conversation_id: 'n1' } })).status).toBe(201)
    const q = await post('/environment/modalities/chat/query', { conversation_id: 'n1' })
    expect(q.body['messages'].map((m: { content: string }) => m.content)).toEqual(["What's the weather?", 'Sunny.'])
    const snap = await fetch(`${running.url}/environment/modalities/chat`)
    expect(snap.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(((await snap.json()) as { conversations: Record<string, unknown> }).conversations['n1']).toMatchObject({ message_count: 2 })
  })

  it('answers 400, 404 and 405 as JSON', async () => {
    expect((await post('/modalities/chat/submit', { role: 'bot', content: 'x' })).body['error'].issues[0].path).toBe('role')
    expect((await fetch(`${running.url}/nope`)).status).toBe(404)
    const r = await fetch(`${running.url}/events/immediate`)
    expect(r.status).toBe(405)
    expect(r.headers.get('allow')).toBe('POST')
  })

  it('stores every message of concurrent clients once, each client in its order', async () => {
    const clients = 6
    const each = 15
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        for (let i = 0; i < each; i++) {
          const r = await post('/modalities/chat/submit', { role: 'user', content: `c${c} #${i}`, conversation_id: `load-${c}`, metadata: { seq: i } })
          expect(r.status).toBe(201)
        }
      }),
    )
    for (let c = 0; c < clients; c++) {
      const q = await post('/environment/modalities/chat/query', { conversation_id: `load-${c}` })
      expect(q.body['messages'].map((m: { metadata: { seq: number } }) => m.metadata.seq)).toEqual(Array.from({ length: each }, (_, i) => i))
    }
  })

  it('413 for a large streamed body, answered before the client has sent it, which is left unread', async () => {
    const total = 16 * 1024 * 1024
    const chunk = Buffer.alloc(64 * 1024, 0x20)
    let serverReq: IncomingMessage | undefined
    const capture = (req: IncomingMessage) => void (serverReq = req)
    running.server.prependListener('request', capture)
    const { status, sent } = await new Promise<{ status: number; sent: number }>((resolve, reject) => {
      let sent = 0
      let answered = false
      const req = httpRequest(`${running.url}/modalities/chat/submit`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        answered = true
        res.resume()
        res.on('end', () => resolve({ status: res.statusCode ?? 0, sent }))
      })
      req.on('error', (e) => (answered ? undefined : reject(e)))
      const write = () => {
        while (!answered && sent < total) {
          sent += chunk.length
          if (!req.write(chunk)) return void req.once('drain', write)
        }
        if (!answered) req.end()
      }
      write()
    })
    running.server.off('request', capture)
    expect(status).toBe(413)
    expect(sent).toBeLessThan(total)
    // the server read the limit and what was in flight, not the 16 MiB
    expect(serverReq?.socket?.bytesRead ?? 0).toBeLessThan(8 * 1024 * 1024)
  })

  it('413 from the declared length', async () => {
    const res = await fetch(`${running.url}/modalities/chat/submit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(1_048_577),
    })
    expect(res.status).toBe(413)
  })
})

describe('toNodeListener', () => {
  it('answers 500 when the handler throws, and passes headers and status through', async () => {
    const { createServer } = await import('node:http')
    const server = createServer(
      toNodeListener(async (req) => {
        if (new URL(req.url).pathname === '/boom') throw new Error('boom')
        return new Response('ok', { status: 202, headers: { 'x-echo': req.headers.get('x-in') ?? '', 'set-cookie': 'a=1' } })
      }),
    )
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const { port } = server.address() as { port: number }
    try {
      expect((await fetch(`http://127.0.0.1:${port}/boom`)).status).toBe(500)
      const r = await fetch(`http://127.0.0.1:${port}/x`, { headers: { 'x-in': 'hello' } })
      expect(r.status).toBe(202)
      expect(r.headers.get('x-echo')).toBe('hello')
      expect(r.headers.get('set-cookie')).toBe('a=1')
      expect(await r.text()).toBe('ok')
    } finally {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    }
  })
})
