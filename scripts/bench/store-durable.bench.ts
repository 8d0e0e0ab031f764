/**
 * The durable chat store: what keeping every accepted submit costs on each backend, next to the
 * store in memory, in one run on one machine.
 *
 * 1. Submits per second and latency over HTTP on 127.0.0.1: 50 concurrent clients, 2,000 submits
 *    in all (40 each, one after another), against a Node server with the store in memory, a Node
 *    server with the file backend (each answer after an fdatasync; concurrent submits share one),
 *    `workerd serve` with one Durable Object (SQLite on disk), and `deno serve` with Deno KV.
 *    Each server is a child process; the run is cut at 120 s per backend.
 * 2. Recovery of a log of 100,000 inputs (file backend, in-process): replaying the whole log, and
 *    loading a snapshot (then replaying nothing); the fold alone (no I/O) for reference.
 * 3. Many stores as many Durable Objects in one local workerd: 200 stores × 10 submits against
 *    one store × 2,000, and a query across all 200 stores (200 subrequests) against one query on
 *    the single store.
 *
 * Run alone with `npm run bench store-durable`.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/Either'
import { createChatHandler } from '../../src/store/http.ts'
import { createChatStore } from '../../src/store/store.ts'
import { openDurableStore, replayLog } from '../../src/store/durable.ts'
import { fileStorage } from '../../src/node/file-storage.ts'
import { serve } from '../../src/node/http.ts'
import { serveChatStore } from '../../src/node/serve.ts'
import { call, stopChild } from '../../test/support/served-store.ts'
import { serveDeno } from '../../test/deploy/support/deno.ts'
import { ROOT, serveWorkerd, type Workerd } from '../../test/deploy/support/workerd.ts'
import { ms, table } from './lib.ts'

const SERVE_FLAG = '--serve-durable-bench'
const CLIENTS = 50
const PER_CLIENT = 40
const DEADLINE_MS = 120_000

// --- servers (child processes) ---

if (process.argv.includes(SERVE_FLAG)) {
  const [mode, dir] = process.argv.slice(process.argv.indexOf(SERVE_FLAG) + 1)
  if (mode === 'memory') {
    const running = await serve(createChatHandler(createChatStore()), { port: 0 })
    process.stderr.write(`listening on ${running.url}\n`)
  } else {
    await serveChatStore({ dataDir: dir as string, port: 0 })
  }
}

type Backend = { readonly name: string; readonly url: string; readonly stop: () => Promise<void> }

const nodeServer = (mode: 'memory' | 'file', dir: string): Promise<Backend> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), SERVE_FLAG, mode, dir], { stdio: ['ignore', 'ignore', 'pipe'] })
    let out = ''
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m?.[1] !== undefined)
        resolve({
          name: mode === 'memory' ? 'Node, in memory' : 'Node, file (fdatasync)',
          url: m[1],
          stop: () => stopChild(child, 'SIGKILL'),
        })
    })
    child.once('exit', (code) => reject(new Error(`the ${mode} server exited (${code}): ${out}`)))
  })

const denoServer = async (dir: string): Promise<Backend> => {
  const s = await serveDeno(join('examples', 'deno', 'serve.ts'), dir)
  return { name: 'deno serve, Deno KV', url: s.url(), stop: s.stop }
}

const workerdServer = async (): Promise<Backend & { readonly w: Workerd }> => {
  const w = await serveWorkerd(join(ROOT, 'examples', 'cloudflare', 'worker.ts'), { durable: true, path: '/stores/bench' })
  return { name: 'workerd serve, Durable Object', url: w.url(), w, stop: async () => (await w.stop(), rmSync(w.dir, { recursive: true, force: true })) }
}

// --- load ---

const percentile = (sorted: ReadonlyArray<number>, q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN

type Load = { readonly answered: number; readonly failed: number; readonly wall: number; readonly sorted: ReadonlyArray<number> }

/** `clients` clients, each sending `perClient` submits one after another to `urlOf(client)`. */
const load = async (urlOf: (c: number) => string, clients: number, perClient: number): Promise<Load> => {
  const latencies: number[] = []
  let failed = 0
  const end = Date.now() + DEADLINE_MS
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; i < perClient && Date.now() < end; i++) {
        const s = performance.now()
        try {
          const r = await call(urlOf(c), 'POST', '/modalities/chat/submit', {
            role: i % 2 === 0 ? 'user' : 'assistant',
            content: `client ${c}, message ${i}: ${'the quick brown fox '.repeat(8)}`,
            conversation_id: `client-${c}`,
          })
          if (r.status !== 201) failed++
        } catch {
          failed++
        }
        latencies.push(performance.now() - s)
      }
    }),
  )
  return { answered: latencies.length, failed, wall: performance.now() - t0, sorted: [...latencies].sort((a, b) => a - b) }
}

const throughputBench = async (): Promise<void> => {
  const scratch = mkdtempSync(join(tmpdir(), 'chatfold-bench-'))
  const rows: string[][] = []
  let memoryRate = Number.NaN
  try {
    for (const start of [() => nodeServer('memory', ''), () => nodeServer('file', join(scratch, 'file')), workerdServer, () => denoServer(scratch)]) {
      const b = await start()
      try {
        await load(() => b.url, 5, 10) // warm-up
        const r = await load(() => b.url, CLIENTS, PER_CLIENT)
        const rate = (r.answered / r.wall) * 1000
        if (Number.isNaN(memoryRate)) memoryRate = rate
        rows.push([
          b.name,
          `${r.answered.toLocaleString('en')} (${r.failed} not 201)`,
          Math.round(rate).toLocaleString('en'),
          `${(memoryRate / rate).toFixed(1)}×`,
          ms(percentile(r.sorted, 0.5)),
          ms(percentile(r.sorted, 0.99)),
        ])
      } finally {
        await b.stop()
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
  table(
    `durable chat store over HTTP: ${(CLIENTS * PER_CLIENT).toLocaleString('en')} submits, ${CLIENTS} concurrent clients, 127.0.0.1`,
    ['backend', 'answered', 'submits/s', 'slower than memory', 'p50 ms', 'p99 ms'],
    rows,
  )
}

// --- recovery ---

const recoveryBench = async (): Promise<void> => {
  const N = 100_000
  const rows: string[][] = []
  for (const withSnapshot of [false, true]) {
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-recovery-'))
    try {
      // N inputs in 20 conversations; a snapshot only after the last one (or never)
      const store = await openDurableStore(fileStorage(dir))({ maxHistorySize: Infinity, snapshotEvery: withSnapshot ? N : Number.MAX_SAFE_INTEGER })
      for (let i = 0; i < N; i++) {
        store.submit({ role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i}`, conversation_id: `c${i % 20}` })
        if (i % 1000 === 999 || i === N - 1) await store.flush()
      }
      await store.close()
      const times: number[] = []
      let replayed = 0
      for (let k = 0; k < 3; k++) {
        const t0 = performance.now()
        const back = await openDurableStore(fileStorage(dir))()
        times.push(performance.now() - t0)
        replayed = back.recovery.replayed
        if (back.state().updateCount !== N) throw new Error(`recovered ${back.state().updateCount} of ${N}`)
        await back.close()
      }
      times.sort((a, b) => a - b)
      rows.push([
        withSnapshot ? 'snapshot, then the tail' : 'the whole log',
        replayed.toLocaleString('en'),
        ms(times[1] ?? Number.NaN),
        `${ms(times[0] ?? Number.NaN)}–${ms(times[2] ?? Number.NaN)}`,
      ])
      if (!withSnapshot) {
        // the fold alone, from records already in memory
        const storage = fileStorage(dir)
        const { tail } = await storage.load()
        await storage.close?.()
        const t0 = performance.now()
        const r = replayLog({ snapshot: undefined, tail })
        const fold = performance.now() - t0
        if (E.isLeft(r)) throw new Error(r.left)
        rows.push(['the fold alone (records in memory, no I/O)', tail.length.toLocaleString('en'), ms(fold), '1 run'])
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  table(`recovery of a file-backed store of ${N.toLocaleString('en')} inputs (median of 3 opens)`, ['from', 'records replayed', 'ms', 'range'], rows)
}

// --- many stores as many objects ---

const scaleOutBench = async (): Promise<void> => {
  const STORES = 200
  const w = await serveWorkerd(join(ROOT, 'examples', 'cloudflare', 'worker.ts'), { durable: true, path: '' })
  const rows: string[][] = []
  try {
    const base = w.origin()
    await load(() => `${base}/stores/warm`, 5, 10)
    const one = await load(() => `${base}/stores/single`, CLIENTS, PER_CLIENT)
    const many = await load((c) => `${base}/stores/s-${c % STORES}`, STORES, (CLIENTS * PER_CLIENT) / STORES)
    rows.push([
      '1 store (1 object), 50 clients × 40',
      `${one.answered}`,
      Math.round((one.answered / one.wall) * 1000).toLocaleString('en'),
      ms(percentile(one.sorted, 0.99)),
    ])
    rows.push([
      `${STORES} stores (${STORES} objects), ${STORES} clients × ${(CLIENTS * PER_CLIENT) / STORES}`,
      `${many.answered}`,
      Math.round((many.answered / many.wall) * 1000).toLocaleString('en'),
      ms(percentile(many.sorted, 0.99)),
    ])
    const q = async (urls: ReadonlyArray<string>) => {
      const t0 = performance.now()
      const rs = await Promise.all(urls.map((u) => call(u, 'POST', '/environment/modalities/chat/query', { search: 'message 7', limit: 1000 })))
      return { ms: performance.now() - t0, found: rs.reduce((n, r) => n + (r.body.count as number), 0) }
    }
    await q([`${base}/stores/single`])
    const single = await q([`${base}/stores/single`])
    const fan = await q(Array.from({ length: STORES }, (_, s) => `${base}/stores/s-${s}`))
    rows.push(['query "message 7" in the 1 store', `${single.found} found`, '—', ms(single.ms)])
    rows.push([`the same across ${STORES} stores (${STORES} requests)`, `${fan.found} found`, '—', ms(fan.ms)])
  } finally {
    await w.stop()
    rmSync(w.dir, { recursive: true, force: true })
  }
  table(`scaling out: stores as Durable Objects in one local workerd (2,000 submits each way)`, ['run', 'answered', 'submits/s', 'p99 or query ms'], rows)
}

export default async function storeDurable(): Promise<void> {
  if (process.argv.includes(SERVE_FLAG)) return
  await throughputBench()
  await recoveryBench()
  await scaleOutBench()
}
