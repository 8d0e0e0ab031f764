/**
 * The store on Deno, served for real: `deno serve --unstable-kv` with the example module
 * (examples/deno/serve.ts, the store in Deno KV on disk), killed with SIGKILL and restarted: the
 * store contract over HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawn, type ChildProcess } from 'node:child_process'
import { afterAll, describe, expect, it } from 'vitest'
import { call, freePort, stopChild, waitUntilUp, type ServedStore } from '../support/served-store.ts'
import { storeContract } from '../support/store-contract.ts'
import { ROOT } from './support/workerd.ts'

const deno = join(ROOT, 'node_modules', '.bin', 'deno')
const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** Serves a `deno serve` module (the example's twin, snapshots every 100 records) on a free port with its KV database in a new directory. */
export const serveDeno = async (module = join('test', 'deploy', 'support', 'deno-serve.ts')): Promise<ServedStore & { readonly dir: string }> => {
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-deno-'))
  dirs.push(dir)
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const start = (): ChildProcess =>
    spawn(deno, ['serve', '--unstable-kv', '--allow-read', '--allow-write', '--allow-env=CHATFOLD_KV', '--host', '127.0.0.1', '--port', String(port), module], {
      cwd: ROOT,
      env: { ...process.env, CHATFOLD_KV: join(dir, 'chat.sqlite3'), NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'ignore'],
    })
  let child = start()
  await waitUntilUp(origin, 60_000)
  return {
    dir,
    url: () => origin,
    restart: async (how) => {
      await stopChild(child, how === 'kill' ? 'SIGKILL' : 'SIGTERM')
      child = start()
      await waitUntilUp(origin, 60_000)
    },
    stop: () => stopChild(child, 'SIGKILL'),
  }
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
