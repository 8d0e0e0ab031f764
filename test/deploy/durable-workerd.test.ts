/**
 * The store on Cloudflare's runtime, served for real: `workerd serve` with the example Worker
 * (examples/cloudflare: one Durable Object per store, SQLite storage on disk), killed with SIGKILL
 * and restarted: the store contract over HTTP. And the README's module-scope pattern under
 * `workerd serve`: it starts, serves the routes and reads the wall clock.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { call } from '../support/served-store.ts'
import { storeContract } from '../support/store-contract.ts'
import { ROOT, serveWorkerd, type Workerd } from './support/workerd.ts'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

let n = 0
/** The example's twin (snapshots every 100 records), or the example itself, served with the example's capnp. */
const open = async (entry = join(ROOT, 'test', 'deploy', 'support', 'workerd-store.ts')): Promise<Workerd> => {
  const w = await serveWorkerd(entry, { durable: true, path: `/stores/contract-${++n}` })
  dirs.push(w.dir)
  return w
}

storeContract('workerd serve, a Durable Object per store', open, { kills: 3 })

describe('workerd serve', { timeout: 60_000 }, () => {
  it('serves the README module-scope pattern (store and handler made at module scope) with the wall clock', async () => {
    const w = await serveWorkerd(join(ROOT, 'test', 'deploy', 'support', 'workerd-module-scope.ts'), { durable: false })
    dirs.push(w.dir)
    try {
      const t0 = Date.now()
      const r = await call(w.url(), 'POST', '/modalities/chat/submit', { role: 'user', content: "What's the weather?" })
      expect(r.status).toBe(201)
      expect(Math.abs(Date.parse(r.body.event.submitted_at) - t0)).toBeLessThan(86_400_000)
      const q = await call(w.url(), 'POST', '/environment/modalities/chat/query', { limit: 10 })
      expect(q.body.messages.map((m: { content: string }) => m.content)).toEqual(["What's the weather?"])
    } finally {
      await w.stop()
    }
  })

  it('serves examples/cloudflare: one object per store id, kept across a SIGKILL; an unknown path a 404', async () => {
    const w = await open(join(ROOT, 'examples', 'cloudflare', 'worker.ts'))
    try {
      const a = `${w.origin()}/stores/a`
      const b = `${w.origin()}/stores/b`
      expect((await call(a, 'POST', '/modalities/chat/submit', { role: 'user', content: 'to a', message_id: 'x' })).status).toBe(201)
      expect((await call(b, 'POST', '/modalities/chat/submit', { role: 'user', content: 'to b', message_id: 'x' })).status).toBe(201)
      expect((await call(a, 'GET', '/environment/modalities/chat')).body.messages.map((m: { content: string }) => m.content)).toEqual(['to a'])
      expect((await call(b, 'GET', '/environment/modalities/chat')).body.messages.map((m: { content: string }) => m.content)).toEqual(['to b'])
      await w.restart('kill')
      expect((await call(b, 'GET', '/environment/modalities/chat')).body.messages.map((m: { content: string }) => m.content)).toEqual(['to b'])
      expect((await call(w.origin(), 'GET', '/nowhere')).status).toBe(404)
    } finally {
      await w.stop()
    }
  })
})

describe('one workerd per store', { timeout: 60_000 }, () => {
  it('a second workerd on the same storage answers 503 naming the owner, reads included, and takes over once the first is gone', async () => {
    // the example (its default lease), whose renewals a loaded machine cannot delay past its end
    const a = await open(join(ROOT, 'examples', 'cloudflare', 'worker.ts'))
    const b = await a.second()
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
      expect((await call(a.url(), 'POST', '/modalities/chat/submit', { role: 'user', content: 'still a' })).status).toBe(201)
      await a.stop()
      let snap = await call(b.url(), 'GET', '/environment/modalities/chat')
      for (let i = 0; i < 100 && snap.status === 503; i++) {
        await new Promise((r) => setTimeout(r, 200))
        snap = await call(b.url(), 'GET', '/environment/modalities/chat')
      }
      expect(snap.status).toBe(200)
      expect(snap.body.messages.map((m: { content: string }) => m.content)).toEqual(['kept by a', 'still a'])
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
  })

  it('asks the token of the CHATFOLD_TOKEN binding, and has the simulator routes off in the example', async () => {
    const w = await open(join(ROOT, 'examples', 'cloudflare', 'worker.ts'))
    try {
      const s = `${w.origin()}/stores/t`
      expect((await call(s, 'GET', '/environment/modalities/chat', undefined, null)).status).toBe(401)
      expect((await call(s, 'GET', '/environment/modalities/chat', undefined, 'not-the-token-0000000000')).status).toBe(401)
      expect((await call(s, 'GET', '/environment/modalities/chat')).status).toBe(200)
      expect((await call(s, 'GET', '/simulator')).status).toBe(404)
    } finally {
      await w.stop()
    }
  })
})
