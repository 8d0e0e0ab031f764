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
