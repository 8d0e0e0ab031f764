/**
 * `chatfold serve`'s Durable Streams keep what they acknowledge: writers append to a stream while
 * the server is killed with SIGKILL, 50 times; after each restart every append that was answered
 * 2xx is on the stream, once, each writer's in the order it sent them. The program is bundled
 * once (esbuild) so that each start takes a second, not the several a TypeScript start takes.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import { afterAll, describe, expect, it } from 'vitest'
import { type Child, startChild, stopChild } from '../support/served-store.ts'
import { ROOT } from './support/workerd.ts'

const dirs: string[] = []
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

/** The `chatfold` program in one file (`dir/chatfold.mjs`). */
const bundleCli = async (dir: string): Promise<string> => {
  const outfile = join(dir, 'chatfold.mjs')
  await build({
    stdin: {
      contents: `import { run } from './src/cli/main.ts'
process.exitCode = await run(process.argv.slice(2), { out: (s) => void process.stdout.write(s), err: (s) => void process.stderr.write(s) })`,
      resolveDir: ROOT,
      loader: 'ts',
      sourcefile: 'chatfold-entry.ts',
    },
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  })
  return outfile
}

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)\n/

describe('chatfold serve killed during appends', () => {
  it('50 SIGKILLs while 4 writers append: nothing acknowledged is lost, nothing is there twice, each writer in order', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatfold-streams-kill-'))
    dirs.push(dir)
    const bin = await bundleCli(dir)
    const start = async (): Promise<{ readonly child: Child; readonly url: string }> => {
      const child = await startChild(process.execPath, [bin, 'serve', '--data', join(dir, 'data'), '--port', '0', '--host', '127.0.0.1'], LISTENING, {
        timeoutMs: 60_000,
      })
      return { child, url: `${LISTENING.exec(child.output())?.[1]}/streams/log` }
    }
    let server = await start()
    const created = await fetch(server.url, { method: 'PUT', headers: { 'content-type': 'application/json' } })
    expect(created.status).toBe(201)
    const acked = new Set<string>()
    let sent = 0
    try {
      for (let round = 0; round < 50; round++) {
        const target = acked.size + 1 + (round % 7) * 3
        let reached!: () => void
        const enough = new Promise<void>((resolve) => (reached = resolve))
        let alive = true
        const writer = async (w: number) => {
          for (let i = 0; alive; i++) {
            const value = `${round}.${w}.${i}`
            sent++
            try {
              const r = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) })
              await r.body?.cancel()
              if (r.status >= 200 && r.status < 300) acked.add(value)
              else return
            } catch {
              return // the server is gone: this append was not acknowledged
            }
            if (acked.size >= target) reached()
          }
        }
        const writers = [0, 1, 2, 3].map(writer)
        // killed once this round's writers have had some appends acknowledged, while they go on
        await Promise.race([enough, Promise.all(writers)])
        await stopChild(server.child.process, 'SIGKILL')
        alive = false
        await Promise.all(writers)
        server = await start()
        const read = await fetch(`${server.url}?offset=-1`)
        expect(read.status).toBe(200)
        const values = (await read.json()) as string[]
        expect(values.length).toBe(new Set(values).size)
        const on = new Set(values)
        const lost = [...acked].filter((v) => !on.has(v))
        expect(lost).toEqual([])
        // each writer's appends in the order it sent them (one at a time: an answer before the next)
        const last = new Map<string, number>()
        for (const v of values) {
          const [r, w, i] = v.split('.').map(Number) as [number, number, number]
          const key = `${r}.${w}`
          expect(i).toBeGreaterThan(last.get(key) ?? -1)
          last.set(key, i)
        }
      }
    } finally {
      await stopChild(server.child.process, 'SIGKILL')
    }
    expect(acked.size).toBeGreaterThan(50)
    console.log(`streams under SIGKILL: 50 kills, ${acked.size} appends acknowledged and kept, ${sent} sent`)
  }, 600_000)
})
