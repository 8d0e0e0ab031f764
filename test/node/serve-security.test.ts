/**
 * `serveChatStore` (what `chatfold serve` runs) over real sockets: on loopback with no token it
 * refuses a rebinding Host, a cross-site text/plain POST and the simulator routes; beyond
 * loopback it asks a token, made and printed when none was given.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import dns from 'node:dns'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { serveChatStore } from '../../src/node/serve.ts'

const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
})

const fresh = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chatfold-serve-security-'))
  dirs.push(dir)
  return dir
}

/** A request with whatever Host and headers it is given (fetch would not send a foreign Host). */
const send = (port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      method,
      path,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
    }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => (text += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })

const hi = JSON.stringify({ role: 'user', content: 'Hi' })

describe('chatfold serve on loopback, no token', () => {
  it('refuses a rebinding Host, a cross-site text/plain POST and the simulator routes; serves its own', async () => {
    const lines: string[] = []
    const served = await serveChatStore({ dataDir: await fresh(), port: 0, log: (l) => lines.push(l), handleSignals: false })
    try {
      const port = Number(new URL(served.url).port)
      const own = { host: `127.0.0.1:${port}` }
      expect((await send(port, 'GET', '/environment/modalities/chat', { host: `evil.example:${port}` })).status).toBe(403)
      const csrf = await send(
        port,
        'POST',
        '/modalities/chat/submit',
        { ...own, origin: 'https://evil.example', 'content-type': 'text/plain;charset=UTF-8' },
        hi,
      )
      expect([403, 415]).toContain(csrf.status)
      expect((await send(port, 'POST', '/modalities/chat/submit', { ...own, 'content-type': 'text/plain;charset=UTF-8' }, hi)).status).toBe(415)
      expect((await send(port, 'POST', '/simulator/advance', { ...own, 'content-type': 'application/json' }, '{"seconds":60}')).status).toBe(404)
      expect(served.store.state().updateCount).toBe(0)
      expect((await send(port, 'POST', '/modalities/chat/submit', { host: `localhost:${port}`, 'content-type': 'application/json' }, hi)).status).toBe(201)
      expect(lines).toContain('chatfold: asks no token (loopback only); simulator routes off')
    } finally {
      await served.close()
    }
  })
})

describe('chatfold serve beyond loopback', () => {
  it('makes and prints a token when given none, and asks it of every request', async () => {
    const lines: string[] = []
    const served = await serveChatStore({ dataDir: await fresh(), port: 0, host: '0.0.0.0', log: (l) => lines.push(l), handleSignals: false })
    try {
      const port = Number(new URL(served.url).port)
      const made = lines.map((l) => /made one: (\S+)$/.exec(l)?.[1]).find((t) => t !== undefined)
      expect(made).toMatch(/^[\w-]{43}$/)
      const json = { host: `192.0.2.1:${port}`, 'content-type': 'application/json' }
      expect((await send(port, 'POST', '/modalities/chat/submit', json, hi)).status).toBe(401)
      expect((await send(port, 'GET', '/environment/modalities/chat', { host: json.host })).status).toBe(401)
      expect((await send(port, 'POST', '/modalities/chat/submit', { ...json, authorization: `Bearer ${made}` }, hi)).status).toBe(201)
    } finally {
      await served.close()
    }
  })

  it('takes the token and a read-only one it is given', async () => {
    const token = 'a-token-of-the-deployment-0001'
    const readToken = 'a-read-token-of-the-deploy-02'
    const lines: string[] = []
    const served = await serveChatStore({
      dataDir: await fresh(),
      port: 0,
      host: '0.0.0.0',
      handler: { token, readToken },
      log: (l) => lines.push(l),
      handleSignals: false,
    })
    try {
      const port = Number(new URL(served.url).port)
      expect(lines.some((l) => l.includes('made one'))).toBe(false)
      const json = { host: `127.0.0.1:${port}`, 'content-type': 'application/json' }
      expect((await send(port, 'POST', '/modalities/chat/submit', { ...json, authorization: `Bearer ${token}` }, hi)).status).toBe(201)
      expect((await send(port, 'POST', '/modalities/chat/submit', { ...json, authorization: `Bearer ${readToken}` }, hi)).status).toBe(403)
      expect((await send(port, 'GET', '/environment/modalities/chat', { ...json, authorization: `Bearer ${readToken}` })).status).toBe(200)
    } finally {
      await served.close()
    }
  })
})

describe('chatfold serve judges loopback by the address it binds, not by the name', () => {
  /** Runs `body` while the name `name` resolves to `address` (as a DNS record or /etc/hosts line could make it). */
  const resolving = async <A>(name: string, address: string, body: () => Promise<A>): Promise<A> => {
    const original = dns.lookup
    const patched = (host: string, ...rest: unknown[]) => {
      const callback = rest[rest.length - 1] as (e: Error | null, address: string, family: number) => void
      if (host === name) return process.nextTick(() => callback(null, address, 4))
      return Reflect.apply(original, dns, [host, ...rest])
    }
    Object.assign(dns, { lookup: patched })
    try {
      return await body()
    } finally {
      Object.assign(dns, { lookup: original })
    }
  }

  it('a loopback-looking name bound to every interface asks a token', async () => {
    const lines: string[] = []
    await resolving('app.localhost', '0.0.0.0', async () => {
      const served = await serveChatStore({ dataDir: await fresh(), port: 0, host: 'app.localhost', log: (l) => lines.push(l), handleSignals: false })
      try {
        const port = Number(new URL(served.url).port)
        const host = { host: `app.localhost:${port}` }
        expect((await send(port, 'GET', '/environment/modalities/chat', host)).status).toBe(401)
        expect((await send(port, 'POST', '/modalities/chat/submit', { ...host, 'content-type': 'application/json' }, hi)).status).toBe(401)
        expect(lines.some((l) => l.includes('app.localhost is 0.0.0.0') && l.includes('made one'))).toBe(true)
        expect(served.store.state().updateCount).toBe(0)
      } finally {
        await served.close()
      }
    })
  })

  it('--allowed-host keeps the address --host names', async () => {
    const served = await serveChatStore({
      dataDir: await fresh(),
      port: 0,
      host: '127.0.0.2',
      handler: { allowedHosts: ['chat.example'] },
      log: () => undefined,
      handleSignals: false,
    })
    try {
      const port = Number(new URL(served.url).port)
      const get = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const req = request({ host: '127.0.0.2', port, path: '/environment/modalities/chat', headers: { host } }, (res) => {
            res.resume()
            resolve(res.statusCode ?? 0)
          })
          req.on('error', reject)
          req.end()
        })
      expect(await get(`127.0.0.2:${port}`)).toBe(200)
      expect(await get(`chat.example:${port}`)).toBe(200)
      expect(await get(`evil.example:${port}`)).toBe(403)
    } finally {
      await served.close()
    }
  })
})
