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

/** Resolves once the server has received the headers of `n` requests (their bodies may still be coming). */
const requestsReceived = (running: { readonly server: import('node:http').Server }, n: number): Promise<void> =>
  new Promise((resolve) => {
    let seen = 0
    running.server.on('request', () => {
      if (++seen === n) resolve()
    })
  })

/** Settles after `ms`: for a rule of the server that is a duration, counted from the event it starts at. */
const pastDuration = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** Polls, a task at a time, until `ready()` holds: for a socket's state, which has no event. The test's own time limit bounds it. */
const until = async (ready: () => boolean): Promise<void> => {
  while (!ready()) await new Promise((r) => setTimeout(r, 1))
}

describe('slow clients', () => {
  it('a body trickled past the request timeout is answered 408; past the cap, requests are answered 503', async () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    const running = await serve(createChatHandler(store), { requestTimeoutMs: 3_000, headersTimeoutMs: 500, maxConcurrentRequests: 3, maxBodiesPerClient: 3 })
    try {
      const port = Number(new URL(running.url).port)
      const received = requestsReceived(running, 3)
      const slow = Array.from({ length: 3 }, () => trickle(port))
      // a body counts as slow a second after the server received its request: wait for the three
      // to arrive (on a busy machine, long after they were sent), then past that second (the
      // server's timers, set on arrival in this process, fire before this later, longer one)
      await received
      await pastDuration(1_300)
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
        const post = await fetch(`${running.url}/modalities/chat/submit`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ role: 'user', content: `honest ${i}` }),
        })
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

  /** A handler answering 16 MiB (more than the kernel takes for a reader that reads nothing), counting its calls. */
  const bigAnswers = () => {
    const big = new Uint8Array(16 * 1_048_576)
    let calls = 0
    const waiters: Array<[number, () => void]> = []
    return {
      handler: async () => {
        calls++
        for (const [n, go] of waiters) if (calls >= n) go()
        return new Response(big.slice(), { headers: { 'content-type': 'application/octet-stream' } })
      },
      /** Resolves once the handler has been called `n` times. */
      called: (n: number) => new Promise<void>((go) => (calls >= n ? go() : waiters.push([n, go]))),
    }
  }
  /** A connection that sends a GET and never reads. */
  const nonReader = (port: number) => {
    const socket = connect({ port, host: '127.0.0.1' })
    socket.pause()
    socket.on('error', () => undefined)
    socket.write('GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n')
    return socket
  }
  /** The server's sockets, each with a promise of its close, in the order they connected. */
  const serverSockets = (running: { readonly server: import('node:http').Server }) => {
    const closed: Promise<void>[] = []
    const sockets: import('node:net').Socket[] = []
    running.server.on('connection', (s) => {
      sockets.push(s)
      closed.push(new Promise((r) => s.once('close', () => r())))
    })
    return Object.assign(closed, { sockets })
  }

  it('answers nobody reads hold neither the request cap nor their connections past the send timeout', async () => {
    const big = bigAnswers()
    const running = await serve(big.handler, { maxConcurrentRequests: 2, sendTimeoutMs: 5_000 })
    const closed = serverSockets(running)
    const readers: import('node:net').Socket[] = []
    try {
      const port = Number(new URL(running.url).port)
      for (let i = 0; i < 4; i++) readers.push(nonReader(port))
      await big.called(4)
      // four answers wait for their readers, twice the cap: an honest request is still answered
      const honest = await fetch(running.url)
      expect(honest.status).toBe(200)
      expect((await honest.arrayBuffer()).byteLength).toBe(16 * 1_048_576)
      // and the four are cut once they have taken nothing for the send timeout
      await Promise.all(closed.slice(0, 4))
    } finally {
      for (const r of readers) r.destroy()
      await running.close()
    }
  }, 30_000)

  it('past the memory budget of unsent answers, the one waiting longest is cut', async () => {
    const big = bigAnswers()
    const running = await serve(big.handler, { sendTimeoutMs: 60_000, maxUnsentBytes: 1_048_576 })
    const closed = serverSockets(running)
    const readers: import('node:net').Socket[] = []
    try {
      const port = Number(new URL(running.url).port)
      readers.push(nonReader(port))
      await big.called(1)
      // a send is cut for memory only once it has waited a second for its reader: wait for the
      // answer to wait (its socket full, the reader taking nothing), then past that second; the
      // second reader comes after that
      await until(() => closed.sockets[0]?.writableNeedDrain === true)
      await pastDuration(1_200)
      readers.push(nonReader(port))
      await big.called(2)
      await closed[0]
      expect(readers[1]?.destroyed).toBe(false)
      const honest = await fetch(running.url)
      expect(honest.status).toBe(200)
      await honest.arrayBuffer()
    } finally {
      for (const r of readers) r.destroy()
      await running.close()
    }
  }, 30_000)

  it('300 GETs pipelined on one connection are all answered, in order', async () => {
    let n = 0
    const running = await serve(async () => {
      const body = String(n++)
      return new Response(body, { headers: { 'content-length': String(body.length) } })
    })
    try {
      const port = Number(new URL(running.url).port)
      const got = await new Promise<string>((resolve, reject) => {
        const socket = connect({ port, host: '127.0.0.1' })
        let text = ''
        socket.on('data', (d) => {
          text += d.toString()
          if ((text.match(/HTTP\/1\.1 /g) ?? []).length === 300 && text.endsWith('299')) socket.end()
        })
        socket.on('close', () => resolve(text))
        socket.on('error', reject)
        socket.write('GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n'.repeat(300))
      })
      const statuses = [...got.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1])
      expect(statuses.length).toBe(300)
      expect(statuses.filter((s) => s !== '200')).toEqual([])
      const bodies = got.split(/HTTP\/1\.1 200[^\r]*\r\n/).slice(1).map((r) => r.slice(r.indexOf('\r\n\r\n') + 4))
      expect(bodies).toEqual(Array.from({ length: 300 }, (_, i) => String(i)))
    } finally {
      await running.close()
    }
  }, 30_000)
})
