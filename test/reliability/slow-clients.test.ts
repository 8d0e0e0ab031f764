import { describe, expect, it } from 'vitest'
import { connect } from 'node:net'
import { createChatHandler } from '../../src/http.ts'
import { createChatStore } from '../../src/store/store.ts'
import { serve } from '../../src/node/http.ts'

/** Opens a socket, sends headers and the first byte of a 100-byte body, then trickles nothing; resolves with what the server answered. */
const trickle = (port: number): Promise<string> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let got = ''
    socket.on('data', (d) => (got += d.toString()))
    socket.on('close', () => resolve(got))
    socket.on('error', () => resolve(got))
    socket.write('POST /modalities/chat/submit HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{')
  })

describe('slow clients', () => {
  it('a body trickled past the request timeout is answered 408; past the cap, requests are answered 503', async () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    const running = await serve(createChatHandler(store), { requestTimeoutMs: 1_000, headersTimeoutMs: 500, maxConcurrentRequests: 3 })
    try {
      const port = Number(new URL(running.url).port)
      const slow = Array.from({ length: 3 }, () => trickle(port))
      await new Promise((r) => setTimeout(r, 200))
      const busy = await fetch(`${running.url}/environment/modalities/chat`)
      expect(busy.status).toBe(503)
      await busy.text()
      const answers = await Promise.all(slow)
      for (const a of answers) expect(a.startsWith('HTTP/1.1 408')).toBe(true)
      const after = await fetch(`${running.url}/environment/modalities/chat`)
      expect(after.status).toBe(200)
      await after.text()
    } finally {
      await running.close()
    }
  }, 30_000)
})
