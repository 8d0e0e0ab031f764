import { describe, expect, it } from 'vitest'
import { connect } from 'node:net'
import { createChatHandler } from '../../src/store/http.ts'
import { createChatStore } from '../../src/store/store.ts'
import { serve } from '../../src/node/http.ts'

/** Opens a socket (from `from`), sends headers and the first byte of a 100-byte body, then trickles nothing; resolves with what the server answered. */
const trickle = (port: number, from = '127.0.0.1'): Promise<string> =>
  new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from })
    let got = ''
    socket.on('data', (d) => (got += d.toString()))
    socket.on('close', () => resolve(got))
    socket.on('error', () => resolve(got))
    socket.write('POST /modalities/chat/submit HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{')
  })

describe('slow clients', () => {
  it('a body trickled past the request timeout is answered 408; past the cap, requests are answered 503', async () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    const running = await serve(createChatHandler(store), { requestTimeoutMs: 3_000, headersTimeoutMs: 500, maxConcurrentRequests: 3, maxBodiesPerClient: 3 })
    try {
      const port = Number(new URL(running.url).port)
      const slow = Array.from({ length: 3 }, () => trickle(port))
      // past a second, the three count as slow bodies of their client
      await new Promise((r) => setTimeout(r, 1_300))
      // the cap on slow bodies a client sends at once: its fourth body is refused at once
      const busy = await trickle(port)
      expect(Number(busy.slice(9, 12))).toBe(503)
      const answers = await Promise.all(slow)
      for (const a of answers) expect(a.startsWith('HTTP/1.1 408')).toBe(true)
      const after = await fetch(`${running.url}/environment/modalities/chat`)
      expect(after.status).toBe(200)
      await after.text()
    } finally {
      await running.close()
    }
  }, 30_000)

  it('256 clients trickling bodies from one address hold only their own budget: honest requests keep being served', async () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    // the defaults: 256 requests handled at once, 16 bodies per client
    const running = await serve(createChatHandler(store), { requestTimeoutMs: 5_000, headersTimeoutMs: 2_000 })
    const slow: Promise<string>[] = []
    let refused = 0
    try {
      const port = Number(new URL(running.url).port)
      // the trickling clients come from 127.0.0.2 (loopback too), the honest ones from 127.0.0.1
      const counted = (a: string): string => {
        if (a.startsWith('HTTP/1.1 503')) refused++
        return a
      }
      for (let i = 0; i < 256; i++) slow.push(trickle(port, '127.0.0.2').then(counted))
      await new Promise((r) => setTimeout(r, 300))
      // honest requests while the bodies trickle, and past the second when they count as slow: for
      // 2 s, and at least three rounds however few of them a busy machine fits in those 2 s
      const statuses: number[] = []
      const until = Date.now() + 2_000
      for (let i = 0; i < 3 || Date.now() < until; i++) {
        const post = await fetch(`${running.url}/modalities/chat/submit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ role: 'user', content: `honest ${i}` }) })
        const read = await fetch(`${running.url}/environment/modalities/chat`)
        statuses.push(post.status, read.status)
        await Promise.all([post.text(), read.text()])
      }
      expect(statuses.length).toBeGreaterThan(4)
      expect(statuses.filter((s) => s !== 201 && s !== 200)).toEqual([])
      expect(store.state().updateCount).toBe(statuses.length / 2)
      // the clients past their budget are refused once their bodies are slow: on a busy machine the
      // last to connect get there after the honest requests are done, so wait for them, not a clock
      while (refused < 256 - 16) await new Promise((r) => setTimeout(r, 10))
    } finally {
      await running.close()
      await Promise.all(slow)
    }
    // every trickling client was answered: past its budget a 503 once its body was slow, the rest a 408 or closed at shutdown
    const answers = await Promise.all(slow)
    expect(answers.filter((a) => a.startsWith('HTTP/1.1 503')).length).toBe(256 - 16)
  }, 30_000)
})
