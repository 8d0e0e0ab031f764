/**
 * `serveChatStore` (what `chatfold serve` runs) over real sockets: on loopback with no token it
 * refuses a rebinding Host, a cross-site text/plain POST and the simulator routes; beyond
 * loopback it asks a token, made and printed when none was given.
 */
import { mkdtemp, rm } from 'node:fs/promises'
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
    const req = request({ host: '127.0.0.1', port, method, path, headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) } }, (res) => {
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
      const csrf = await send(port, 'POST', '/modalities/chat/submit', { ...own, origin: 'https://evil.example', 'content-type': 'text/plain;charset=UTF-8' }, hi)
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
    const served = await serveChatStore({ dataDir: await fresh(), port: 0, host: '0.0.0.0', handler: { token, readToken }, log: (l) => lines.push(l), handleSignals: false })
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
