/**
 * Durable Streams: `chatfold serve`'s `/streams` (file log, every append answered after an
 * fdatasync, concurrent appends sharing one) against the protocol's reference server
 * (`@durable-streams/server`, in memory: its default), both in this process on 127.0.0.1, in one run.
 *
 * 1. Append throughput: 20 writers, each appending 100 times (100 bytes, one after another) to a
 *    stream of its own.
 * 2. Tail latency: a long-poll reader waits at the tail; one append is sent; the time until the
 *    reader has it, 200 times.
 *
 * Run alone with `npm run bench streams`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DurableStreamTestServer } from '@durable-streams/server'
import { serveChatStore } from '../../src/node/serve.ts'
import { ms, stats, table } from './lib.ts'

const WRITERS = 20
const APPENDS = 100
const TAILS = 200
const BODY = 'x'.repeat(100)

type Target = { readonly name: string; readonly base: string; readonly stop: () => Promise<void> }

const create = async (url: string): Promise<string> => {
  const r = await fetch(url, { method: 'PUT', headers: { 'content-type': 'text/plain' } })
  if (r.status !== 201) throw new Error(`PUT ${url}: ${r.status}`)
  return r.headers.get('stream-next-offset') ?? '-1'
}

const append = async (url: string): Promise<void> => {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: BODY })
  await r.arrayBuffer()
  if (r.status !== 204 && r.status !== 200) throw new Error(`POST ${url}: ${r.status}`)
}

/** Appends per second of `WRITERS` writers, `APPENDS` each. */
const throughput = async (t: Target, tag: string): Promise<number> => {
  const urls = Array.from({ length: WRITERS }, (_, i) => `${t.base}/bench/${tag}-w${i}`)
  for (const u of urls) await create(u)
  const start = performance.now()
  await Promise.all(urls.map(async (u) => {
    for (let i = 0; i < APPENDS; i++) await append(u)
  }))
  return (WRITERS * APPENDS) / ((performance.now() - start) / 1000)
}

/** Milliseconds from sending an append to a long-poll reader at the tail having it, `TAILS` times. */
const tailLatency = async (t: Target, tag: string): Promise<number[]> => {
  const url = `${t.base}/bench/${tag}-tail`
  let offset = await create(url)
  const samples: number[] = []
  for (let i = 0; i < TAILS; i++) {
    let sent = 0
    const reader = (async () => {
      for (;;) {
        const r = await fetch(`${url}?offset=${encodeURIComponent(offset)}&live=long-poll`)
        const body = await r.text()
        const next = r.headers.get('stream-next-offset')
        if (next !== null) offset = next
        if (r.status === 200 && body.length > 0) return performance.now() - sent
      }
    })()
    // the reader's request is on its way before the append is sent
    await new Promise((resolve) => setTimeout(resolve, 5))
    sent = performance.now()
    await append(url)
    samples.push(await reader)
  }
  return samples
}

export default async (): Promise<void> => {
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-streams-bench-'))
  const served = await serveChatStore({ dataDir: dir, port: 0, log: () => undefined, handleSignals: false })
  const reference = new DurableStreamTestServer({ port: 0, host: '127.0.0.1' })
  const refUrl = await reference.start()
  const targets: Target[] = [
    { name: 'chatfold serve (file log, fdatasync)', base: `${served.url}/streams`, stop: () => served.close() },
    { name: 'reference server (in memory)', base: `${refUrl}/v1/stream`, stop: () => reference.stop() },
  ]
  try {
    const rows: Array<{ name: string; perSecond: number; median: number; p95: number }> = []
    for (const t of targets) {
      await throughput(t, 'warm') // warm-up
      const perSecond = await throughput(t, 'run')
      const lat = stats(await tailLatency(t, 'run'))
      rows.push({ name: t.name, perSecond, median: lat.median, p95: lat.p95 })
    }
    const [ours, peer] = rows as [(typeof rows)[0], (typeof rows)[0]]
    table(
      `Durable Streams: ${WRITERS} writers × ${APPENDS} appends of ${BODY.length} B; tail latency over ${TAILS} long-poll wake-ups`,
      ['server', 'appends/s', 'tail median ms', 'tail p95 ms'],
      rows.map((r) => [r.name, r.perSecond.toFixed(0), ms(r.median), ms(r.p95)]),
    )
    console.log(
      `chatfold / reference: throughput ${(ours.perSecond / peer.perSecond).toFixed(2)}×, tail latency median ${
        (ours.median / peer.median).toFixed(2)
      }× (lower is better)`,
    )
  } finally {
    for (const t of targets) await t.stop().catch(() => undefined)
    rmSync(dir, { recursive: true, force: true })
  }
}
