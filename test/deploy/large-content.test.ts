/**
 * A history of about 10 MB holding a 3 MB screenshot in each of its 40 turns, sent over HTTP to
 * each served backend (workerd with a Durable Object, `deno serve` with Deno KV, and `chatfold
 * serve` with the file store, each taking bodies of up to 8 MiB), SIGKILLed and restarted: what
 * the backend keeps on disk is a few screenshots' worth, not forty, and every turn is served back
 * whole. PostgreSQL runs the same 40 turns in process (test/postgres/large-content.test.ts), as
 * the file store does too (test/node/large-content.test.ts). Each form prints how long its 40
 * turns and (for `chatfold serve`) its restart took.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { type Child, servedEnv, type ServedStore, startChild, stopChild } from '../support/served-store.ts'
import { serveDeno as serveDenoIn } from './support/deno.ts'
import { ROOT, serveWorkerd } from './support/workerd.ts'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** The bytes of every file under a directory. */
const sizeOf = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? sizeOf(join(dir, e.name)) : statSync(join(dir, e.name)).size), 0)

const serveDeno = async (): Promise<ServedStore & { readonly dir: string }> => {
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-large-deno-'))
  dirs.push(dir)
  return serveDenoIn(join('test', 'deploy', 'support', 'deno-serve-large.ts'), dir)
}

const serveDurableObject = async (): Promise<ServedStore & { readonly dir: string }> => {
  const w = await serveWorkerd(join(ROOT, 'test', 'deploy', 'support', 'workerd-store-large.ts'), { durable: true, path: '/stores/large' })
  dirs.push(w.dir)
  return w
}

/** `chatfold serve` on the file store (Node), as the package's bin runs it, taking bodies of up to 8 MiB. */
const serveNode = async (): Promise<ServedStore & { readonly dir: string }> => {
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-large-node-'))
  dirs.push(dir)
  const bin = join(ROOT, 'bin', 'chatfold.mjs')
  const args = [bin, 'serve', '--data', dir, '--port', '0', '--max-body-bytes', String(8 * 1024 * 1024), '--snapshot-every', '16']
  const start = () => startChild(process.execPath, args, /listening on (http:\/\/127\.0\.0\.1:\d+)\n/, { env: servedEnv(), timeoutMs: 120_000 })
  let child: Child & { readonly match: RegExpExecArray } = await start()
  return {
    dir,
    url: () => child.match[1] as string,
    restart: async (how) => {
      await stopChild(child.process, how === 'kill' ? 'SIGKILL' : 'SIGTERM')
      const t = performance.now()
      child = await start()
      console.log(`chatfold serve: restarted in ${((performance.now() - t) / 1000).toFixed(1)} s`)
    },
    stop: () => stopChild(child.process, 'SIGKILL'),
  }
}

/** A screenshot of 3 MB (bytes that do not repeat in a short period), as base64. */
const screenshot = (): string => {
  const bytes = Buffer.alloc(3 * 1024 * 1024)
  let x = 2463534242
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    bytes[i] = x & 0xff
  }
  return bytes.toString('base64')
}

/** A POST with a body of some MB (the shared client's 15 s timeout is for small ones). */
// deno-lint-ignore no-explicit-any -- a JSON answer, read field by field
const post = async (url: string, path: string, body: unknown): Promise<{ readonly status: number; readonly body: any }> => {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    signal: AbortSignal.timeout(120_000),
    headers: { authorization: `Bearer ${servedEnv()['CHATFOLD_TOKEN']}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() }
}

describe('a 10 MB history with a 3 MB screenshot repeated in 40 turns, served', { timeout: 600_000 }, () => {
  const data = screenshot()
  const long = 'x'.repeat(150_000)
  const forms = [['workerd, a Durable Object', serveDurableObject], ['deno serve, Deno KV', serveDeno], ['chatfold serve, the file store', serveNode]] as const
  for (const [name, serve] of forms) {
    it(`is stored once and served whole: ${name}`, async () => {
      const s = await serve()
      try {
        const t = performance.now()
        for (let i = 0; i < 40; i++) {
          const content = [{ type: 'text', text: `turn ${i}: ${i % 8 === 0 ? long : 'what is on the screen?'}` }, {
            type: 'image',
            source: 'base64',
            data,
            media_type: 'image/png',
          }]
          const r = await post(s.url(), '/modalities/chat/submit', { role: 'user', content, conversation_id: 'shots', message_id: `s${i}` })
          expect(r.status).toBe(201)
        }
        console.log(`${name}: 40 turns taken in ${((performance.now() - t) / 1000).toFixed(1)} s`)
        await s.restart('kill')
        // what the backend keeps: the screenshot a few times at most (the log's first record, a snapshot, storage overhead), not forty times
        const kept = sizeOf(s.dir)
        expect(kept).toBeLessThan(10 * data.length)
        for (const i of [0, 13, 27, 39]) {
          const r = await post(s.url(), '/environment/modalities/chat/query', { conversation_id: 'shots', search: `turn ${i}:` })
          expect(r.status).toBe(200)
          expect(r.body.messages.map((m: { message_id: string; content: Array<{ data?: string }> }) => [m.message_id, m.content[1]?.data === data])).toEqual([
            [`s${i}`, true],
          ])
        }
        const last = await post(s.url(), '/environment/modalities/chat/query', { conversation_id: 'shots', limit: 5 })
        expect(last.body.messages.map((m: { content: Array<{ data?: string }> }) => m.content[1]?.data === data)).toEqual([true, true, true, true, true])
        console.log(`${name}: 40 turns of ${(data.length / 1e6).toFixed(1)} MB of base64 kept in ${(kept / 1e6).toFixed(1)} MB on disk`)
      } finally {
        await s.stop()
      }
    })
  }
})
