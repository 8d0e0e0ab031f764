/**
 * The page `npm run bench browser` opens in Chromium: the engine's session on the 20,000-message
 * history, in a Web Worker or inline, with the main thread watched three ways:
 * - a timer chain (`setTimeout(0)`, clamped by the browser to about 4 ms when nested): the largest
 *   gap between two ticks is the longest time the main thread ran something else, plus ≤ 4 ms;
 * - `requestAnimationFrame`: the largest gap between two frames (16.7 ms when nothing blocks);
 * - the Long Tasks API: tasks of 50 ms or more, as the browser reports them.
 * The engine's sends (the structured clone in `postMessage`) are timed one by one too, and each
 * window is marked (`performance.mark`) for the trace the bench records (browser.bench.ts), which
 * also reads every thread's CPU time at each end of a window (cores.ts).
 */
import { type Engine } from '../../src/engine/api.ts'
import { createEngine } from '../../src/engine/client.ts'
import { type EngineHost, webWorkerHost } from '../../src/engine/host.ts'
import { type Message, type Messages } from '../../src/message/message.ts'
import { sampleSession } from '../../sample/session.ts'
import { type Alone, countAlone, type CountingThread } from './ceiling.ts'

export type Window = { readonly timer: number; readonly frame: number; readonly longTask: number; readonly longTasks: number; readonly total: number }
export type BrowserRun = {
  /** `worker`: one worker; `pool`: the default pool (`workers` of them); `inline`: none. */
  readonly mode: 'worker' | 'pool' | 'inline'
  readonly workers: number
  readonly messages: number
  /** The tokens of the opened history. */
  readonly tokens: number
  readonly idle: Window
  readonly open: Window & { readonly send: number; readonly sends: number; readonly bytes: number }
  readonly firstPrune: Window
  readonly turns: ReadonlyArray<Window & { readonly send: number }>
  readonly floor: ReadonlyArray<Window>
  /** A second open of the history, once the first session is closed (every worker warm), total ms; `NaN` inline. */
  readonly reopen: number
}

/** A saved session restored: the history's JSONL fetched as a Blob and opened with `openFile`, in a page that holds nothing else. */
export type FileRun = {
  readonly workers: number
  readonly messages: number
  readonly tokens: number
  /** The first `openFile`, watched (the window `open-file` of the trace). */
  readonly open: Window
  /** A second one, once the first session is closed (every worker warm), total ms. */
  readonly reopen: number
}

const longTasks: Array<{ start: number; end: number }> = []
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) longTasks.push({ start: e.startTime, end: e.startTime + e.duration })
}).observe({ type: 'longtask', buffered: true })

/** Set by the bench (`page.exposeFunction`) to take its own readings at each end of a window. */
const benchWindow = (window as { benchWindow?: (label: string, edge: 'start' | 'end') => Promise<void> }).benchWindow

const nextFrame = (): Promise<void> => new Promise((r) => requestAnimationFrame(() => r()))
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** Runs `f` with the main thread watched; answers its value and the window's figures. */
const watched = async <A>(label: string, f: () => Promise<A>): Promise<{ readonly value: A; readonly window: Window }> => {
  await nextFrame()
  // the bench reads the machine's per-thread CPU at each end of a window (cores.ts), where it can
  await benchWindow?.(label, 'start')
  // marks for the trace the bench takes: its tasks between them are this window's
  performance.mark(`${label}:start`)
  let running = true
  let timer = 0
  let lastTick = performance.now()
  const tick = (): void => {
    const t = performance.now()
    timer = Math.max(timer, t - lastTick)
    lastTick = t
    if (running) setTimeout(tick, 0)
  }
  setTimeout(tick, 0)
  let frame = 0
  let lastFrame = performance.now()
  const onFrame = (t: number): void => {
    frame = Math.max(frame, t - lastFrame)
    lastFrame = t
    if (running) requestAnimationFrame(onFrame)
  }
  requestAnimationFrame(onFrame)
  const t0 = performance.now()
  const value = await f()
  const total = performance.now() - t0
  performance.mark(`${label}:end`)
  await benchWindow?.(label, 'end')
  // let both probes see the gap the last synchronous stretch left
  await nextFrame()
  await sleep(5)
  running = false
  const t1 = performance.now()
  const tasks = longTasks.filter((l) => l.end > t0 && l.start < t1)
  return { value, window: { timer, frame, longTask: Math.max(0, ...tasks.map((l) => l.end - l.start)), longTasks: tasks.length, total } }
}

/** A host whose sends are timed: `take()` answers the longest since the last call. */
const timedSends = (inner: EngineHost) => {
  let longest = 0
  let count = 0
  const endpoint = inner.endpoint
  const host: EngineHost = {
    ...inner,
    endpoint: {
      postMessage: (message: unknown, transfer?: Transferable[]) => {
        const t0 = performance.now()
        endpoint.postMessage(message, transfer)
        longest = Math.max(longest, performance.now() - t0)
        count++
      },
      addEventListener: endpoint.addEventListener.bind(endpoint),
      removeEventListener: endpoint.removeEventListener.bind(endpoint),
    },
  }
  return {
    host,
    take: (): number => {
      const l = longest
      longest = 0
      return l
    },
    /** How many sends since the last call. */
    count: (): number => {
      const n = count
      count = 0
      return n
    },
  }
}

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

const PRUNE = { protectTokens: 40_000 } as const
const PLAN = { keepRecentTokens: 20_000 } as const

const run = async (mode: BrowserRun['mode'], opts: { readonly messages: number; readonly turns: number }): Promise<BrowserRun> => {
  const history = sampleSession({ messages: opts.messages, seed: 42 })
  const turns = nextTurns(history, opts.turns)
  const workerUrl = new URL('./engine.worker.js', import.meta.url)
  const timed = mode === 'inline' ? undefined : timedSends(webWorkerHost(workerUrl))
  const workers = mode === 'pool' ? navigator.hardwareConcurrency : mode === 'worker' ? 1 : 0
  // the engine's own worker is the timed one; counting workers (pool) are plain ones
  let hosts = 0
  const engine: Engine = timed === undefined ? createEngine({ mode: 'inline', encoding: 'o200k_base' }) : createEngine({
    mode: 'worker',
    encoding: 'o200k_base',
    workers: Math.max(1, workers),
    host: () => (hosts++ === 0 ? timed.host : webWorkerHost(workerUrl)),
  })
  // start the engine and load the o200k ranks before anything is watched
  await engine.estimate([history[0] as Message])
  const take = (): number => timed?.take() ?? Number.NaN
  const idle = await watched('idle', () => sleep(300))
  take()
  timed?.count()
  const opened = await watched('open', () => engine.open('bench', history))
  const open = { ...opened.window, send: take(), sends: timed?.count() ?? Number.NaN, bytes: JSON.stringify(history).length }
  const session = opened.value
  const opens = (await session.tokens()).tokens
  // the first prune of a long history rewrites thousands of old results: a one-off, shown apart
  const firstPrune = (await watched('first-prune', () => session.prune(PRUNE))).window
  take()
  const perTurn: Array<Window & { send: number }> = []
  for (const [i, turn] of turns.entries()) {
    const r = await watched(`turn-${i}`, async () => {
      await session.append(turn)
      await session.prune(PRUNE)
      await session.plan(PLAN)
    })
    perTurn.push({ ...r.window, send: take() })
  }
  const floor: Window[] = []
  for (let i = 0; i < 10; i++) floor.push((await watched(`floor-${i}`, () => sleep(50))).window)
  let reopen = Number.NaN
  if (timed !== undefined) {
    await session.close()
    const t0 = performance.now()
    const again = await engine.open('again', history)
    reopen = performance.now() - t0
    await again.close()
  }
  engine.dispose()
  return { mode, workers, messages: history.length, tokens: opens, idle: idle.window, open, firstPrune, turns: perTurn, floor, reopen }
}

/**
 * A saved session restored, as a page does it: the JSONL at `url` fetched as a Blob (its bytes
 * stay out of this page's heap) and opened with `openFile` on `workers` workers, then opened once
 * more with every worker warm. Nothing else lives in the page: no history, no garbage of one.
 */
const runFile = async (workers: number, url: string): Promise<FileRun> => {
  const file = await (await fetch(url)).blob()
  const engine = createEngine({ mode: 'worker', encoding: 'o200k_base', workers, host: () => webWorkerHost(new URL('./engine.worker.js', import.meta.url)) })
  // start the engine and load the o200k ranks before anything is watched
  await engine.estimate([{ id: 'warm', role: 'user', kind: 'normal', parts: [{ type: 'text', text: 'Hello' }] }])
  const opened = await watched('open-file', () => engine.openFile('file', file))
  const { messages, tokens } = await opened.value.tokens()
  await opened.value.close()
  const t0 = performance.now()
  const again = await engine.openFile('again', file)
  const reopen = performance.now() - t0
  const second = await again.tokens()
  if (second.tokens !== tokens) throw new Error(`the second openFile counted ${second.tokens} tokens, the first ${tokens}`)
  engine.dispose()
  return { workers, messages, tokens, open: opened.window, reopen }
}

/** A Web Worker running ceiling.worker.ts, for `countAlone`. */
const countingWorker = (): CountingThread => {
  const w = new Worker(new URL('./ceiling.worker.js', import.meta.url), { type: 'module' })
  return {
    post: (m) => w.postMessage(m),
    next: () =>
      new Promise((resolve, reject) => {
        w.addEventListener('message', (e) => resolve(e.data), { once: true })
        w.addEventListener('error', (e) => reject(new Error(e.message)), { once: true })
      }),
    terminate: () => w.terminate(),
  }
}

/** What the machine allows: `threads` Web Workers counting alone (ceiling.ts) the history of `messages` messages. */
const ceiling = (threads: number, opts: { readonly messages: number }): Promise<Alone> =>
  countAlone(countingWorker, threads, sampleSession({ messages: opts.messages, seed: 42 }), sampleSession({ messages: 400, seed: 7 }))

Object.assign(window, { runBench: run, runFile, runCeiling: ceiling })
document.title = 'ready'
