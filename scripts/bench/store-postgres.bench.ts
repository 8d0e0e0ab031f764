/**
 * The chat store on PostgreSQL behind 1, 2 and 4 `chatfold serve --postgres` processes, against
 * `chatfold serve` on the file store, in one run on one machine: 24 concurrent writers (as the
 * fleet test), each submitting 40 messages to its own conversation one after another, writer `w`
 * to process `w mod n`. A throwaway cluster of Debian's `postgresql` with its flushes on (each
 * commit waits for its WAL's fsync, as each file-store answer waits for an fdatasync). Every
 * server is the same bundled command line (test/deploy/support/bundled-cli.ts).
 *
 * Beside each run, what bounds it: the machine's cores busy (all processes, this one's writers,
 * PostgreSQL and the other jobs of the machine included), and the servers' main threads' time on a
 * core against their time runnable but waiting for one (Linux's schedstat). Writes to one store
 * are one transaction at a time in the database (each locks the store's row), so more processes
 * add no write throughput beyond that lock; they add processes to parse, route and answer. The
 * lock's bound is shown once: one store's transactions one after another in this process (lock,
 * insert, commit with its flush), whose rate no number of servers can pass; alone, and with its
 * conversations published to the streams log in each transaction (what `serve --postgres` does).
 *
 * Run alone with `npm run bench store-postgres`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { call, type Child, servedEnv, startChild, stopChild } from '../../test/support/served-store.ts'
import { postgresBin, startPostgres } from '../../test/support/postgres-server.ts'
import { bundleCli } from '../../test/deploy/support/bundled-cli.ts'
import pg from 'pg'
import { openPostgresStore } from '../../src/postgres/store.ts'
import { publishConversations } from '../../src/postgres/conversations.ts'
import { threadTimes } from './cores.ts'
import { ms, table } from './lib.ts'

const WRITERS = 24
const PER_WRITER = 40
const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)\n/

const percentile = (sorted: ReadonlyArray<number>, q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN

/** The machine's busy time so far, all cores (ms), from /proc/stat; undefined off Linux. */
const machineBusy = (): number | undefined => {
  try {
    const f = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number)
    return ((f.slice(0, 8).reduce((a, b) => a + b, 0) - (f[3] ?? 0) - (f[4] ?? 0)) * 1000) / 100
  } catch {
    return undefined
  }
}

type Run = {
  readonly answered: number
  readonly failed: number
  readonly wall: number
  readonly sorted: ReadonlyArray<number>
  readonly busy: number | undefined
  readonly ran: number
  readonly waited: number
}

/** The writers against `urls`, with what the servers' main threads and the machine spent meanwhile. */
const load = async (urls: ReadonlyArray<string>, pids: ReadonlyArray<number>, perWriter: number, tag: string): Promise<Run> => {
  const latencies: number[] = []
  let failed = 0
  const times = () => pids.map((p) => threadTimes(p, p) ?? { ran: 0, waited: 0 })
  const before = times()
  const busy0 = machineBusy()
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; i < perWriter; i++) {
        const s = performance.now()
        const r = await call(urls[w % urls.length] as string, 'POST', '/modalities/chat/submit', {
          role: i % 2 === 0 ? 'user' : 'assistant',
          content: `writer ${w}, message ${i}: ${'the quick brown fox '.repeat(8)}`,
          conversation_id: `${tag}-writer-${w}`,
        }).catch(() => undefined)
        if (r?.status !== 201) failed++
        latencies.push(performance.now() - s)
      }
    }),
  )
  const wall = performance.now() - t0
  const busy1 = machineBusy()
  const after = times()
  const sum = (k: 'ran' | 'waited') => after.reduce((a, t, i) => a + t[k] - (before[i]?.[k] ?? 0), 0)
  return {
    answered: latencies.length,
    failed,
    wall,
    sorted: [...latencies].sort((a, b) => a - b),
    busy: busy0 === undefined || busy1 === undefined ? undefined : busy1 - busy0,
    ran: sum('ran'),
    waited: sum('waited'),
  }
}

export default async (): Promise<void> => {
  if (postgresBin() === undefined) {
    console.log('\n(store-postgres: skipped, PostgreSQL is not installed: apt-get install postgresql)')
    return
  }
  const cores = cpus().length
  const load0 = loadavg()[0] ?? 0
  const [cluster, bin] = await Promise.all([startPostgres({ fsync: true }), bundleCli()])
  const scratch = mkdtempSync(join(tmpdir(), 'chatfold-bench-pg-'))
  const rows: string[][] = []
  const bounds: string[][] = []
  let fileRate = Number.NaN
  let bound: string[][] = []
  try {
    const backends: ReadonlyArray<{ readonly name: string; readonly n: number; readonly args: (i: number) => Promise<string[]> }> = [
      { name: 'chatfold serve, file store', n: 1, args: async () => ['--data', join(scratch, 'file')] },
      ...[1, 2, 4].map((n) => {
        let db: Promise<string> | undefined
        return {
          name: `chatfold serve --postgres × ${n}`,
          n,
          args: async () => ['--postgres', await (db ??= cluster.createDatabase(`bench${n}`))],
        }
      }),
    ]
    for (const b of backends) {
      const children: Array<Child & { readonly match: RegExpExecArray }> = []
      try {
        for (let i = 0; i < b.n; i++) {
          children.push(
            await startChild(process.execPath, [bin, 'serve', '--port', '0', ...(await b.args(i))], LISTENING, { env: servedEnv(), timeoutMs: 120_000 }),
          )
        }
        const urls = children.map((c) => c.match[1] as string)
        const pids = children.map((c) => c.process.pid ?? 0)
        await load(urls, pids, 2, 'warm-up')
        const r = await load(urls, pids, PER_WRITER, 'bench')
        const rate = (r.answered / r.wall) * 1000
        if (Number.isNaN(fileRate)) fileRate = rate
        rows.push([
          b.name,
          `${r.answered.toLocaleString('en')} (${r.failed} not 201)`,
          Math.round(rate).toLocaleString('en'),
          `${(rate / fileRate).toFixed(2)}×`,
          ms(percentile(r.sorted, 0.5)),
          ms(percentile(r.sorted, 0.99)),
        ])
        bounds.push([
          b.name,
          r.busy === undefined ? '—' : `${Math.round((r.busy / (cores * r.wall)) * 100)}%`,
          ms(r.ran / r.answered),
          ms(r.waited / r.answered),
          `${Math.round((r.waited / Math.max(1, r.ran + r.waited)) * 100)}%`,
        ])
      } finally {
        await Promise.all(children.map((c) => stopChild(c.process, 'SIGKILL')))
      }
    }
    // the bound of one store: its write transactions, one at a time; alone, and publishing its conversations as `serve --postgres` does (rounds taken in turn)
    const kinds = [
      { name: 'the store alone', options: {} },
      { name: 'its conversations published (serve --postgres)', options: { beforeCommit: publishConversations('default') } },
    ]
    const pools = await Promise.all(kinds.map(async (_, k) => new pg.Pool({ connectionString: await cluster.createDatabase(`bound${k}`), max: 1 })))
    try {
      const stores = await Promise.all(kinds.map((kind, k) => openPostgresStore(pools[k] as pg.Pool)(kind.options)))
      const times: number[][] = kinds.map(() => [])
      for (let round = 0; round < 5; round++) {
        for (const [k, store] of stores.entries()) {
          for (let i = 0; i < 40; i++) {
            const t0 = performance.now()
            await store.transaction(() =>
              store.submit({ role: 'user', content: `message ${round}.${i}: ${'the quick brown fox '.repeat(8)}`, conversation_id: `bound-${i % 4}` })
            )
            times[k]?.push(performance.now() - t0)
          }
        }
      }
      bound = kinds.map((kind, k) => {
        const t = [...(times[k] ?? [])].sort((a, b) => a - b)
        const mean = t.reduce((a, b) => a + b, 0) / t.length
        return [kind.name, ms(percentile(t, 0.5)), ms(mean), Math.round(1000 / mean).toLocaleString('en')]
      })
    } finally {
      await Promise.all(pools.map((p) => p.end()))
    }
  } finally {
    await cluster.stop()
    rmSync(scratch, { recursive: true, force: true })
  }
  table(
    `the store on PostgreSQL behind 1, 2 and 4 servers vs the file store: ${WRITERS} writers × ${PER_WRITER} submits, 127.0.0.1 (${cores} cores, load ${
      load0.toFixed(1)
    } when it began)`,
    ['backend', 'answered', 'submits/s', 'vs file', 'p50 ms', 'p99 ms'],
    rows,
  )
  table(
    "what bounds it: the machine busy (share of all its cores), and the servers' main threads per submit: on a core, and runnable but waiting for one",
    ['backend', 'machine busy', 'on a core ms', 'waiting ms', 'waiting share'],
    bounds,
  )
  table('the bound of one store: its write transactions one after another (lock, insert, commit and its flush), in one process', [
    'store',
    'transaction p50 ms',
    'mean ms',
    'at most submits/s',
  ], bound)
}
