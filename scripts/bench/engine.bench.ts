/**
 * The engine: how long the main thread is blocked, with the work in a worker holding a resident
 * session against the same work inline, on the 20,000-message history; opening that history (its
 * messages, and a Blob of its JSONL with `openFile`), on one worker and on a counting pool, with
 * the page faults each open takes; worker start and first call; worker memory.
 *
 * The longest main-thread block is measured with a timer-lag probe: a chain of 1 ms timers on the
 * main thread records the largest gap between two consecutive ticks, i.e. the longest time the event
 * loop could run nothing else (a UI could not paint, a server could not answer), plus up to about
 * 1 ms of timer period; garbage-collection pauses of the main thread count too, and so does the
 * operating system running other threads instead (the worker, its GC helpers: on a 2-core machine
 * that is noise, shown as the probe's noise floor). The worker's sends are also timed one by one:
 * "longest send" is the longest synchronous `postMessage` (the structured clone) on the main thread.
 * The probe's gaps also grow while the thread, woken, waits for a core; so each gap's active part
 * (Node's event loop utilization: the loop's time outside waiting for events) is kept too, the
 * "busy stretch": what the thread ran between two ticks, an upper bound of its longest task, which
 * a wait for a core to wake on does not lengthen (a running task preempted still does; a thread's
 * CPU time, as Linux's `/proc` shows it to Node 20, moves only at the scheduler's ticks: too coarse).
 * "Busy in all" sums the active time of a whole window. Totals are wall time.
 */
import { wrap } from 'comlink'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { performance as nodePerformance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import { type Engine, type EngineSession } from '../../src/engine/api.ts'
import { createEngine } from '../../src/engine/client.ts'
import { type EngineHost } from '../../src/engine/host.ts'
import { toJSONL } from '../../src/history/codec.ts'
import { type Message, type Messages } from '../../src/message/message.ts'
import { nodeWorkerHost } from '../../src/node/engine.ts'
import { loadEstimator } from '../../src/tokenizer/load.ts'
import { countMessages } from '../../src/tokens/count.ts'
import { sampleSession } from '../../sample/session.ts'
import { bundlePages } from '../../web/serve.ts'
import { countAlone, type CountingThread } from './ceiling.ts'
import { threadTimes, type Times } from './cores.ts'
import { benchHistory, ms, pairedRatios, spread, stats, table } from './lib.ts'

// --- probe ---

/** The main thread's active time so far (ms): its event loop's time outside waiting for events. */
const activeTime = (): number => nodePerformance.eventLoopUtilization().active

/** How long this thread (the main one) has waited for a core so far (ms), where Linux tells it; `NaN` elsewhere. */
const waitedForCore = (): number => threadTimes(process.pid, process.pid)?.waited ?? Number.NaN

/**
 * Runs `f` while the probe watches the main thread; answers the longest block, the longest busy
 * stretch, the total time, and how long the thread was busy in all. `longest` is the largest gap
 * between two ticks of the probe. `stretch` is the largest part of one such gap in which the
 * thread was active (the event loop's time outside waiting for events, as Node's event loop
 * utilization tells it): what the thread ran between two ticks, an upper bound of its longest
 * task. A gap grows while the thread, woken, waits for a core; its active part does not (it does
 * while a running task is preempted). `busy` sums the active time of the whole window, the probe's
 * own ticks included; `waited`, the thread's time runnable but waiting for a core (Linux's
 * schedstat, cores.ts; `NaN` elsewhere).
 */
const blocked = async <A>(
  f: () => Promise<A>,
): Promise<
  { readonly value: A; readonly longest: number; readonly stretch: number; readonly total: number; readonly busy: number; readonly waited: number }
> => {
  let longest = 0
  let stretch = 0
  let last = performance.now()
  let lastActive = activeTime()
  let running = true
  const tick = (): void => {
    const t = performance.now()
    const a = activeTime()
    longest = Math.max(longest, t - last)
    stretch = Math.max(stretch, a - lastActive)
    last = t
    lastActive = a
    if (running) setTimeout(tick, 1)
  }
  setTimeout(tick, 1)
  const active0 = activeTime()
  const waited0 = waitedForCore()
  const t0 = performance.now()
  const value = await f()
  const total = performance.now() - t0
  const busy = activeTime() - active0
  const waited = waitedForCore() - waited0
  // let the probe see the gap the last synchronous section left
  await new Promise((r) => setTimeout(r, 2))
  running = false
  return { value, longest, stretch, total, busy, waited }
}

/** A host whose sends are timed: `longest()` answers the longest since the last call. */
const timedSends = (inner: EngineHost) => {
  let longest = 0
  const host: EngineHost = {
    ...inner,
    endpoint: {
      ...inner.endpoint,
      postMessage: (message: unknown, transfer?: Transferable[]) => {
        const t0 = performance.now()
        inner.endpoint.postMessage(message, transfer)
        longest = Math.max(longest, performance.now() - t0)
      },
    },
  }
  return {
    host,
    longest: (): number => {
      const l = longest
      longest = 0
      return l
    },
  }
}

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(0)} MB`

// --- fixtures ---

/** The turns that follow the bench history (the same generator, continued), one user request each. */
const nextTurns = (history: Messages, count: number): Messages[] => {
  const more = sampleSession({ messages: history.length + count * 8, seed: 42 }).slice(history.length)
  const turns: Message[][] = []
  for (const m of more) {
    if (m.role === 'user' && m.kind === 'normal') turns.push([])
    turns.at(-1)?.push(m)
  }
  return turns.filter((t) => t.length > 0).slice(0, count)
}

const TURNS = 20
const PRUNE = { protectTokens: 40_000 } as const
const PLAN = { keepRecentTokens: 20_000 } as const

type Row = ReadonlyArray<string>

/** Per turn: append it, prune, plan. Answers the main-thread block, the longest busy stretch, the thread's busy time, the longest send and the latency of each turn. */
const turnsOn = async (
  session: EngineSession,
  turns: ReadonlyArray<Messages>,
  sends: () => number,
): Promise<{ readonly block: number[]; readonly stretch: number[]; readonly busy: number[]; readonly send: number[]; readonly latency: number[] }> => {
  const block: number[] = []
  const stretch: number[] = []
  const busy: number[] = []
  const send: number[] = []
  const latency: number[] = []
  for (const turn of turns) {
    sends()
    const r = await blocked(async () => {
      await session.append(turn)
      await session.prune(PRUNE)
      await session.plan(PLAN)
    })
    block.push(r.longest)
    stretch.push(r.stretch)
    busy.push(r.busy)
    send.push(sends())
    latency.push(r.total)
  }
  return { block, stretch, busy, send, latency }
}

const startRow = async (label: string, make: () => Engine): Promise<Row> => {
  const t0 = performance.now()
  const engine = make()
  await engine.ready()
  const start = performance.now() - t0
  const t1 = performance.now()
  await engine.estimate([{ id: 'x', role: 'user', kind: 'normal', parts: [{ type: 'text', text: 'Hello, world!' }] }], { encoding: 'o200k_base' })
  const first = performance.now() - t1
  const t2 = performance.now()
  await engine.estimate([{ id: 'y', role: 'user', kind: 'normal', parts: [{ type: 'text', text: 'Hello again' }] }], { encoding: 'o200k_base' })
  const second = performance.now() - t2
  engine.dispose()
  return [label, ms(start), ms(first), ms(second)]
}

export default async function engineBench(): Promise<void> {
  // the built worker is what users run: built now, so that a dist/ left from older sources (which
  // the client refuses: another protocol) is never what the bench measures
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: fileURLToPath(new URL('../..', import.meta.url)), stdio: 'inherit' })
  if (build.status !== 0) throw new Error(`engine bench: npm run build failed (exit ${build.status ?? build.signal})`)
  const history = benchHistory()
  const turns = nextTurns(history, TURNS)
  const turnBytes = turns.reduce((n, t) => n + JSON.stringify(t).length, 0) / turns.length

  // --- worker start and first call ---
  const distWorker = new URL('../../dist/src/node/engine.worker.js', import.meta.url)
  const startRows: Row[] = [
    await startRow('worker_threads, from source (tsx in the worker)', () => createEngine({ mode: 'worker', host: () => nodeWorkerHost() })),
  ]
  startRows.push(await startRow('worker_threads, built dist/', () => createEngine({ mode: 'worker', host: () => nodeWorkerHost({ url: distWorker }) })))
  startRows.push(await startRow('inline', () => createEngine({ mode: 'inline' })))
  table(
    'engine: start and first call (o200k_base ranks load on the first call)',
    ['engine', 'start → ready (ms)', 'first estimate (ms)', 'second (ms)'],
    startRows,
  )

  // --- opening the history ---
  // the built worker: what users run (a worker from source adds tsx's loader thread, which competes for the cores)
  const host = nodeWorkerHost({ url: distWorker })
  const timed = timedSends(host)
  const worker = createEngine({ mode: 'worker', host: () => timed.host, encoding: 'o200k_base' })
  const heap = wrap<{ heapStatistics(): Promise<{ used_heap_size: number }> }>(host.endpoint)
  // a call the engine does not track: keep the (otherwise unreferenced when idle) worker alive for it
  const workerHeap = async (): Promise<number> => {
    host.ref?.()
    try {
      return (await heap.heapStatistics()).used_heap_size
    } finally {
      host.unref?.()
    }
  }
  // the history saved as JSONL, as a file input or a fetch hands it over; made first, its garbage long collected when it is opened
  const file = new Blob([toJSONL(history)])
  await worker.ready()
  const heapBefore = await workerHeap()
  const rssBefore = process.memoryUsage().rss

  const idle = await blocked(() => new Promise((r) => setTimeout(r, 300)))
  timed.longest()
  const whole = await blocked(() => worker.estimate(history, { encoding: 'heuristic' }))
  const wholeSend = timed.longest()
  const opened = await blocked(() => worker.open('bench', history))
  const openSend = timed.longest()
  const session = opened.value
  const openedTokens = (await session.tokens()).tokens
  const heapAfter = await workerHeap()
  const rssAfter = process.memoryUsage().rss

  // --- per turn ---
  // the first prune of a long history rewrites thousands of old results: a one-off, shown apart
  const firstWorker = await blocked(() => session.prune(PRUNE))
  const onWorker = await turnsOn(session, turns, timed.longest)

  // the probe's noise floor: what it reports for a turn in which this thread does nothing
  const floor: Array<{ readonly longest: number; readonly stretch: number; readonly busy: number }> = []
  for (let i = 0; i < TURNS; i++) floor.push(await blocked(() => new Promise((r) => setTimeout(r, 50))))

  // the history opened from that Blob: only its handle crosses
  const fromFile = await blocked(() => worker.openFile('file', file))
  const fileSend = timed.longest()
  const fileTokens = (await fromFile.value.tokens()).tokens
  if (fileTokens !== openedTokens) throw new Error(`openFile counted ${fileTokens} tokens, open ${openedTokens}`)
  await fromFile.value.close()

  const inline = createEngine({ mode: 'inline', encoding: 'o200k_base' })
  const inlineOpen = await blocked(() => inline.open('bench', history))
  const firstInline = await blocked(() => inlineOpen.value.prune(PRUNE))
  const onInline = await turnsOn(inlineOpen.value, turns, () => Number.NaN)
  const inlineFile = await blocked(() => inline.openFile('file', file))

  // last, after every session's turns: their garbage (a copy of the history, a full count) would
  // otherwise be this thread's to collect during the turns. The values are dropped, the times kept.
  const estimate = await loadEstimator('o200k_base')
  const cold = await blocked(() => Promise.resolve(countMessages(estimate)(history)))
  const clone = await blocked(() => Promise.resolve(structuredClone(history).length))
  table(
    `engine: the ${history.length.toLocaleString('en')}-message history (${mb(JSON.stringify(history).length)} of JSON), o200k_base, worker built dist/`,
    [
      'how',
      'longest main-thread block (ms)',
      'longest busy stretch (ms)',
      'longest send (ms)',
      'main thread busy in all (ms)',
      'main thread waited for a core (ms)',
      'total (ms)',
    ],
    [
      [
        "nothing (the probe's own baseline: timer period and scheduling)",
        ms(idle.longest),
        ms(idle.stretch),
        '—',
        ms(idle.busy),
        ms(idle.waited),
        ms(idle.total),
      ],
      [
        'worker session: open (sliced, counted in the worker)',
        ms(opened.longest),
        ms(opened.stretch),
        ms(openSend),
        ms(opened.busy),
        ms(opened.waited),
        ms(opened.total),
      ],
      [
        'worker session: openFile, from a Blob of the JSONL (read, decoded and counted in the worker)',
        ms(fromFile.longest),
        ms(fromFile.stretch),
        ms(fileSend),
        ms(fromFile.busy),
        ms(fromFile.waited),
        ms(fromFile.total),
      ],
      [
        'inline session: openFile (read, decoded and counted on this thread, in slices)',
        ms(inlineFile.longest),
        ms(inlineFile.stretch),
        '—',
        ms(inlineFile.busy),
        ms(inlineFile.waited),
        ms(inlineFile.total),
      ],
      [
        'worker, stateless call with the whole history (one postMessage)',
        ms(whole.longest),
        ms(whole.stretch),
        ms(wholeSend),
        ms(whole.busy),
        ms(whole.waited),
        ms(whole.total),
      ],
      [
        'inline: structuredClone of the history (what one send costs)',
        ms(clone.longest),
        ms(clone.stretch),
        '—',
        ms(clone.busy),
        ms(clone.waited),
        ms(clone.total),
      ],
      ['inline: full estimate, cold cache', ms(cold.longest), ms(cold.stretch), '—', ms(cold.busy), ms(cold.waited), ms(cold.total)],
    ],
  )

  const wb = stats(onWorker.block)
  const wl = stats(onWorker.latency)
  const ws = stats(onWorker.send)
  const wu = stats(onWorker.busy)
  const wt = stats(onWorker.stretch)
  const fb = stats(floor.map((f) => f.longest))
  const fu = stats(floor.map((f) => f.busy))
  const ft = stats(floor.map((f) => f.stretch))
  const ib = stats(onInline.block)
  const iu = stats(onInline.busy)
  const it = stats(onInline.stretch)
  const il = stats(onInline.latency)
  table(
    `engine: one turn (append ≈ ${(turnBytes / 1e3).toFixed(0)} KB, prune, plan) on the resident history, ${TURNS} turns (ms)`,
    [
      'engine',
      'block median',
      'block max',
      'busy stretch: median',
      'busy stretch: max',
      'busy in all: median',
      'longest send',
      'latency median',
      'latency max',
      'first prune: block; busy stretch',
      'first prune: total',
    ],
    [
      ["nothing (the probe's noise floor: idle 50 ms waits)", ms(fb.median), ms(fb.max), ms(ft.median), ms(ft.max), ms(fu.median), '—', '—', '—', '—', '—'],
      [
        'worker session',
        ms(wb.median),
        ms(wb.max),
        ms(wt.median),
        ms(wt.max),
        ms(wu.median),
        ms(ws.max),
        ms(wl.median),
        ms(wl.max),
        `${ms(firstWorker.longest)}; ${ms(firstWorker.stretch)}`,
        ms(firstWorker.total),
      ],
      [
        'inline session (cached counts)',
        ms(ib.median),
        ms(ib.max),
        ms(it.median),
        ms(it.max),
        ms(iu.median),
        '—',
        ms(il.median),
        ms(il.max),
        `${ms(firstInline.longest)}; ${ms(firstInline.stretch)}`,
        ms(firstInline.total),
      ],
      [
        'inline, full re-estimate per turn (no cache)',
        ms(cold.longest),
        ms(cold.longest),
        ms(cold.stretch),
        ms(cold.stretch),
        ms(cold.busy),
        '—',
        ms(cold.total),
        ms(cold.total),
        '—',
        '—',
      ],
    ],
  )

  table('engine: memory', ['what', 'value'], [
    ['worker heap before open', mb(heapBefore)],
    ['worker heap with the session resident (o200k ranks included)', mb(heapAfter)],
    ['process RSS growth while opening', mb(rssAfter - rssBefore)],
    ['inline session open: longest block / total (ms)', `${ms(inlineOpen.longest)} / ${ms(inlineOpen.total)}`],
  ])

  inline.dispose()
  worker.dispose()

  // --- all cores ---
  await poolScaling(history, distWorker)
}

const POOL_ROUNDS = 5

/** Each thread's time running and waiting for a core so far (ms), from Linux's `/proc/self/task/<tid>/schedstat`; `undefined` elsewhere. */
const processThreads = (): ReadonlyMap<string, Times> | undefined => {
  if (!existsSync('/proc/self/task')) return undefined
  const out = new Map<string, Times>()
  for (const tid of readdirSync('/proc/self/task')) {
    // undefined: the thread ended between the listing and the read
    const t = threadTimes('self', tid)
    if (t !== undefined) out.set(tid, t)
  }
  return out
}

/** Where an open's CPU time went: the `busiest` threads' running and waiting time each (ms), and all the others' running time. */
type ThreadSplit = { readonly counting: ReadonlyArray<readonly [number, number]>; readonly others: number }

/**
 * What touching fresh memory costs here, in µs per 4 KiB page: a new 64 MiB buffer filled twice,
 * the first fill taking each page from the operating system (`fresh`, the page fault included),
 * the second writing pages already there (`resident`). In a virtual machine a page fault can cost
 * far more than writing the page; every copy into new memory (a structured clone's buffer, a heap
 * that grows) pays it.
 */
const firstTouch = (): { readonly fresh: number; readonly resident: number } => {
  const bytes = 64 * 1024 * 1024
  const b = Buffer.allocUnsafeSlow(bytes)
  const t0 = performance.now()
  b.fill(1)
  const t1 = performance.now()
  b.fill(2)
  const t2 = performance.now()
  const pages = bytes / 4096
  return { fresh: ((t1 - t0) * 1000) / pages, resident: ((t2 - t1) * 1000) / pages }
}

const splitThreads = (before: ReadonlyMap<string, Times>, after: ReadonlyMap<string, Times>, busiest: number): ThreadSplit => {
  const deltas = [...after].map(([tid, t]) => {
    const t0 = before.get(tid) ?? { ran: 0, waited: 0 }
    return [t.ran - t0.ran, t.waited - t0.waited] as const
  })
  deltas.sort((a, b) => b[0] - a[0])
  return { counting: deltas.slice(0, busiest), others: deltas.slice(busiest).reduce((n, [run]) => n + run, 0) }
}

// --- the machine's ceiling ---

/**
 * A `worker_threads` worker running ceiling.worker.ts (bundled into `dir` as for a page): a shim
 * gives it the `self` of a Web Worker.
 */
const countingThread = (dir: string) => (): CountingThread => {
  const shim = `
const { parentPort, workerData } = require('node:worker_threads')
globalThis.self = { postMessage: (m) => parentPort.postMessage(m), set onmessage(f) { parentPort.on('message', (data) => f({ data })) } }
import(workerData)
`
  const w = new Worker(shim, { eval: true, workerData: pathToFileURL(join(dir, 'ceiling.worker.js')).href })
  return {
    post: (m) => w.postMessage(m),
    next: () =>
      new Promise((resolve, reject) => {
        w.once('message', resolve)
        w.once('error', reject)
      }),
    terminate: () => void w.terminate(),
  }
}

/**
 * Opening the history with 1, 2 … workers counting (the default pool is one per core, at most 4),
 * in rounds that alternate the sizes: the engine's first open (its counting workers started by the
 * call before it, at the same time as the engine's worker loads its tables: what a page that opens
 * a history at once sees) and a second open on the same engine (every worker warm). Each size's
 * tokens must be the single worker's. "cores busy" is the process's CPU time over the wall time
 * of the second open (all threads: the main thread, the workers, V8's garbage-collection helpers):
 * how much of the machine the open used, the ceiling being the number of cores. Where Linux gives
 * each thread's scheduler statistics, a second table tells where that time went: the counting
 * threads (the busiest ones: the engine's worker and the counting workers), how long each waited
 * for a core, and every other thread (the main thread, V8's garbage-collection and compiler
 * helpers). A third table sets the pool beside what the machine allows: the same threads counting
 * alone (see `ceiling`), in the same rounds, each round's figure against that round's one thread.
 * After the second open, the same engine opens the history's JSONL from a Blob (`openFile`), which
 * its worker decodes as well as counts.
 */
const poolScaling = async (history: Messages, url: URL): Promise<void> => {
  const sizes = [...new Set([1, 2, Math.min(4, availableParallelism())])].sort((a, b) => a - b)
  const first = new Map<number, number[]>(sizes.map((n) => [n, []]))
  const next = new Map<number, number[]>(sizes.map((n) => [n, []]))
  const busy = new Map<number, number[]>(sizes.map((n) => [n, []]))
  const threads = new Map<number, ThreadSplit[]>(sizes.map((n) => [n, []]))
  const faults = new Map<number, number[]>(sizes.map((n) => [n, []]))
  const system = new Map<number, number[]>(sizes.map((n) => [n, []]))
  const fromFile = new Map<number, number[]>(sizes.map((n) => [n, []]))
  const file = new Blob([toJSONL(history)])
  let expected: number | undefined
  /** Times `open` on `workers` workers into `into`; the next open (all warm) also gives the machine's figures. */
  const opened = async (workers: number, into: Map<number, number[]>, open: () => Promise<EngineSession>): Promise<void> => {
    const c0 = process.cpuUsage()
    const r0 = process.resourceUsage()
    const th0 = processThreads()
    const t0 = performance.now()
    const session = await open()
    const wall = performance.now() - t0
    const cpu = process.cpuUsage(c0)
    const r1 = process.resourceUsage()
    const th1 = processThreads()
    into.get(workers)?.push(wall)
    if (into === next) {
      busy.get(workers)?.push((cpu.user + cpu.system) / 1000 / wall)
      faults.get(workers)?.push(r1.minorPageFault - r0.minorPageFault)
      system.get(workers)?.push((cpu.system / (cpu.user + cpu.system)) * 100)
      if (th0 !== undefined && th1 !== undefined) threads.get(workers)?.push(splitThreads(th0, th1, workers))
    }
    const t = (await session.tokens()).tokens
    if ((expected ??= t) !== t) throw new Error(`${workers} workers counted ${t} tokens, the first pool ${expected}`)
    await session.close()
  }
  const bare = new Map<number, number[]>(sizes.map((n) => [n, []]))
  const warm = sampleSession({ messages: 400, seed: 7 })
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-bench-ceiling-'))
  await bundlePages({ 'ceiling.worker': 'scripts/bench/ceiling.worker.ts' }, dir)
  // the bundle is ES modules; Node reads .js as such only under a package.json that says so
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
  const spawn = countingThread(dir)
  try {
    for (let round = 0; round < POOL_ROUNDS; round++) {
      for (const threads of sizes) {
        const c = await countAlone(spawn, threads, history, warm)
        if ((expected ??= c.tokens) !== c.tokens) throw new Error(`${threads} threads counting alone counted ${c.tokens} tokens, the first ${expected}`)
        bare.get(threads)?.push(c.wall)
      }
      for (const workers of sizes) {
        const engine = createEngine({ mode: 'worker', workers, encoding: 'o200k_base', host: () => nodeWorkerHost({ url }) })
        // the engine's worker up, its tables loaded: what is timed is the open
        await engine.estimate([history[0] as Message])
        await opened(workers, first, () => engine.open('first', history))
        await opened(workers, next, () => engine.open('next', history))
        await opened(workers, fromFile, () => engine.openFile('file', file))
        engine.dispose()
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const cell = (xs: ReadonlyArray<number>, one: ReadonlyArray<number>): string => `${spread(xs)} ${(stats(xs).median / stats(one).median).toFixed(2)}×`
  const rounds = (of: Map<number, number[]>, n: number): string => `${pairedRatios(of.get(n) ?? [], of.get(1) ?? [])}×`
  const touches = [firstTouch(), firstTouch(), firstTouch()]
  const touch = { fresh: stats(touches.map((t) => t.fresh)).median, resident: stats(touches.map((t) => t.resident)).median }
  table(
    `engine: opening the history on ${availableParallelism()} cores (worker_threads, built dist/), median [min–max] of ${POOL_ROUNDS} rounds and the time against one worker; the same tokens every time. Page faults: the process's minor faults (a page of fresh memory taken from the system); writing a fresh 4 KiB page takes ${
      ms(touch.fresh)
    } µs on this machine, and one already there ${ms(touch.resident)} µs`,
    [
      'workers',
      'first open (ms)',
      'next open (ms)',
      'next open: cores busy',
      'next open: page faults',
      'next open: system CPU (% of its CPU)',
      'then openFile of its JSONL (ms)',
      'openFile: per round',
    ],
    sizes.map((n) => [
      String(n),
      cell(first.get(n) ?? [], first.get(1) ?? []),
      cell(next.get(n) ?? [], next.get(1) ?? []),
      `${spread(busy.get(n) ?? [])} of ${availableParallelism()}`,
      spread(faults.get(n) ?? []),
      spread(system.get(n) ?? []),
      cell(fromFile.get(n) ?? [], fromFile.get(1) ?? []),
      rounds(fromFile, n),
    ]),
  )
  table(
    `engine: what the machine allows. "counting alone": n threads each count every n-th message, given to them before the clock starts (nothing sent, decoded or shared), in the same rounds; per round, against the round's one thread`,
    ['threads', 'counting alone (ms)', 'counting alone: per round', 'pool, next open: per round'],
    sizes.map((n) => [String(n), cell(bare.get(n) ?? [], bare.get(1) ?? []), rounds(bare, n), rounds(next, n)]),
  )
  if ([...threads.values()].every((xs) => xs.length === 0)) return
  table(
    `engine: where the next open's CPU time went (Linux scheduler statistics per thread), median [min–max] of ${POOL_ROUNDS} rounds (ms)`,
    ['workers', 'each counting thread: running', 'each counting thread: waiting for a core', 'all other threads: running'],
    sizes.map((n) => {
      const xs = threads.get(n) ?? []
      return [
        String(n),
        spread(xs.flatMap((x) => x.counting.map(([run]) => run))),
        spread(xs.flatMap((x) => x.counting.map(([, wait]) => wait))),
        spread(xs.map((x) => x.others)),
      ]
    }),
  )
}
