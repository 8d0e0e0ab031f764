/**
 * The store on Deno, served for real: `deno serve --unstable-kv` with the example module
 * (examples/deno/serve.ts, the store in Deno KV on disk), killed with SIGKILL and restarted: the
 * store contract over HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { call, type ServedStore, TEST_TOKEN } from '../support/served-store.ts'
import { storeContract } from '../support/store-contract.ts'
import { serveDeno as serveDenoIn } from './support/deno.ts'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** Serves a `deno serve` module (the example's twin, snapshots every 100 records) on a free port with its KV database in a new directory (or `dir`). */
export const serveDeno = (module = join('test', 'deploy', 'support', 'deno-serve.ts'), on?: string): Promise<ServedStore & { readonly dir: string }> => {
  const dir = on ?? mkdtempSync(join(tmpdir(), 'chatfold-deno-'))
  dirs.push(dir)
  return serveDenoIn(module, dir)
}

storeContract('deno serve, Deno KV', serveDeno, { kills: 3 })

describe('examples/deno/serve.ts', { timeout: 60_000 }, () => {
  it('serves the routes under deno serve and keeps a message across a SIGKILL', async () => {
    const s = await serveDeno(join('examples', 'deno', 'serve.ts'))
    try {
      expect((await call(s.url(), 'POST', '/modalities/chat/submit', { role: 'user', content: 'Hello from Deno' })).status).toBe(201)
      await s.restart('kill')
      const snap = (await call(s.url(), 'GET', '/environment/modalities/chat')).body
      expect(snap.messages.map((m: { content: string }) => m.content)).toEqual(['Hello from Deno'])
    } finally {
      await s.stop()
    }
  })
})

describe('one deno serve per store', { timeout: 60_000 }, () => {
  it('a second process on the same Deno KV answers 503 naming the owner, reads included, and takes over once the first is gone', async () => {
    // the example (its default lease), whose renewals a loaded machine cannot delay past its end
    const a = await serveDeno(join('examples', 'deno', 'serve.ts'))
    const b = await serveDeno(join('examples', 'deno', 'serve.ts'), a.dir)
    try {
      expect((await call(a.url(), 'POST', '/modalities/chat/submit', { role: 'user', content: 'kept by a' })).status).toBe(201)
      for (
        const r of [
          await call(b.url(), 'GET', '/environment/modalities/chat'),
          await call(b.url(), 'POST', '/modalities/chat/submit', { role: 'user', content: 'from b' }),
        ]
      ) {
        expect(r.status).toBe(503)
        expect(r.body.error.message).toMatch(/owned by another process/)
      }
      // the first goes on, unharmed by the second
      expect((await call(a.url(), 'POST', '/modalities/chat/submit', { role: 'user', content: 'still a' })).status).toBe(201)
      await a.stop()
      // no restart of the second: once the first's lease ends, it opens the store and serves it whole
      let snap = await call(b.url(), 'GET', '/environment/modalities/chat')
      for (let i = 0; i < 100 && snap.status === 503; i++) {
        await new Promise((r) => setTimeout(r, 200))
        snap = await call(b.url(), 'GET', '/environment/modalities/chat')
      }
      expect(snap.status).toBe(200)
      expect(snap.body.messages.map((m: { content: string }) => m.content)).toEqual(['kept by a', 'still a'])
      expect((await call(b.url(), 'POST', '/modalities/chat/submit', { role: 'user', content: 'now b' })).status).toBe(201)
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
  })

  it('the example asks the token (401 without or with a wrong one), takes JSON only, and has the simulator routes off', async () => {
    const s = await serveDeno(join('examples', 'deno', 'serve.ts'))
    try {
      expect((await call(s.url(), 'GET', '/environment/modalities/chat', undefined, null)).status).toBe(401)
      expect((await call(s.url(), 'GET', '/environment/modalities/chat', undefined, 'not-the-token-0000000000')).status).toBe(401)
      expect((await call(s.url(), 'POST', '/simulator/advance', { seconds: 60 })).status).toBe(404)
      const text = await fetch(`${s.url()}/modalities/chat/submit`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'text/plain' },
        body: '{"role":"user","content":"x"}',
      })
      expect(text.status).toBe(415)
      await text.text()
    } finally {
      await s.stop()
    }
  })
})
