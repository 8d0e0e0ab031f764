/**
 * The frame budget in the browser: the engine's session on the 20,000-message history in
 * headless Chromium (Debian's, driven with playwright-core), in a Web Worker next to the same work
 * inline: opening the history, then 20 turns (append, prune, plan), and the open again with a
 * counting pool of one worker per core to show its scaling, beside what the machine allows: the
 * same workers counting alone, handed their messages before the clock starts (`runCeiling` in
 * browser-page.ts), and a saved session restored: the history's JSONL fetched as a Blob and opened
 * with `openFile` (only the Blob's handle crosses to the worker) in a page that holds nothing else,
 * on one worker and on the pool. Each figure is the median over `BENCH_BROWSER_RUNS` runs (default 3, each in
 * a fresh page) with the spread (min–max) beside it. How the main thread is watched is told in
 * browser-page.ts; on Linux, where the cores went during each open (which threads ran, and how long
 * each waited for a core) is read from the kernel's accounting (cores.ts). Targets: no task over
 * 16 ms while opening; per turn, under 2 ms median and under 16 ms worst.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bundlePages, serveDir } from '../../web/serve.ts'
import type { BrowserRun, FileRun, Window } from './browser-page.ts'
import { toJSONL } from '../../src/history/codec.ts'
import { sampleSession } from '../../sample/session.ts'
import type { Alone } from './ceiling.ts'
import { type TaskFigures, tasksByWindow, TRACE_CATEGORIES } from './browser-trace.ts'
import { inFreshPages, launchChromium } from '../chromium.ts'
import { between, type CoresWindow, type Snapshot, snapshot } from './cores.ts'
import { ms, pairedRatios, spread, stats, table } from './lib.ts'

const MESSAGES = 20_000
const TURNS = 20

const median = (xs: ReadonlyArray<number>): number => stats(xs).median
const max = (xs: ReadonlyArray<number>): number => stats(xs).max

export default async function browserBench(): Promise<void> {
  const runs = Math.max(1, Number(process.env['BENCH_BROWSER_RUNS'] ?? 3))
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-bench-browser-'))
  const browser = await launchChromium()
  const { server, url } = await (async () => {
    await bundlePages({ bench: 'scripts/bench/browser-page.ts', 'ceiling.worker': 'scripts/bench/ceiling.worker.ts' }, dir)
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>loading</title><script type="module" src="./bench.js"></script>\n',
    )
    // the saved session the file runs fetch, as a page would from its server or a file input hand over
    writeFileSync(join(dir, 'history.jsonl'), toJSONL(sampleSession({ messages: MESSAGES, seed: 42 })))
    return serveDir(dir)
  })()
  const results: Record<'worker' | 'pool' | 'inline', Array<BrowserRun & { readonly traced: ReadonlyMap<string, TaskFigures> }>> = {
    worker: [],
    pool: [],
    inline: [],
  }
  // counting alone, on one thread and on as many as the pool has, in the same rounds
  const alone: Record<'one' | 'all', Alone[]> = { one: [], all: [] }
  // a saved session restored with openFile, on one worker and on the pool
  const files: Record<'file' | 'file-pool', Array<FileRun & { readonly traced: ReadonlyMap<string, TaskFigures> }>> = { file: [], 'file-pool': [] }
  // where the cores went while each open ran, by mode (Linux only)
  const cores: Record<'worker' | 'pool' | 'inline' | 'file' | 'file-pool', CoresWindow[]> = { worker: [], pool: [], inline: [], file: [], 'file-pool': [] }
  let version = ''
  try {
    version = browser.version()
    await inFreshPages(browser, runs, ['worker', 'pool', 'inline', 'file', 'file-pool', 'one', 'all'] as const, async (page, mode) => {
      if (mode !== 'one' && mode !== 'all') {
        let start: Snapshot | undefined
        await page.exposeFunction('benchWindow', (label: string, edge: 'start' | 'end') => {
          if (label !== 'open' && label !== 'open-file') return
          const now = snapshot()
          if (edge === 'start') start = now
          else if (start !== undefined && now !== undefined) cores[mode].push(between(start, now))
        })
      }
      await page.goto(url)
      await page.waitForFunction(() => document.title === 'ready')
      if (mode === 'one' || mode === 'all') {
        alone[mode].push(
          (await page.evaluate(`window.runCeiling(${mode === 'one' ? 1 : 'navigator.hardwareConcurrency'}, { messages: ${MESSAGES} })`)) as Alone,
        )
        return
      }
      if (mode === 'file' || mode === 'file-pool') {
        await browser.startTracing(page, { categories: TRACE_CATEGORIES })
        const r = (await page.evaluate(`window.runFile(${mode === 'file' ? 1 : 'navigator.hardwareConcurrency'}, './history.jsonl')`)) as FileRun
        files[mode].push({ ...r, traced: tasksByWindow(await browser.stopTracing()) })
        return
      }
      await browser.startTracing(page, { categories: TRACE_CATEGORIES })
      const r = (await page.evaluate(
        ([m, n, t]) => (window as unknown as { runBench: (mode: string, o: object) => Promise<unknown> }).runBench(m as string, { messages: n, turns: t }),
        [mode, MESSAGES, mode === 'pool' ? 0 : TURNS] as const,
      )) as BrowserRun
      results[mode].push({ ...r, traced: tasksByWindow(await browser.stopTracing()) })
    })
  } finally {
    await browser.close()
    server.close()
    rmSync(dir, { recursive: true, force: true })
  }

  type Run = (typeof results)['worker'][number]
  const w = results.worker
  const il = results.inline
  const messages = w[0]?.messages ?? MESSAGES
  const none: TaskFigures = { wall: Number.NaN, cpu: Number.NaN, tasks: 0, gc: Number.NaN }
  const traced = (r: Run, label: string): TaskFigures => r.traced.get(label) ?? none
  const turnLabels = Array.from({ length: TURNS }, (_, i) => `turn-${i}`)
  const floorLabels = Array.from({ length: 10 }, (_, i) => `floor-${i}`)
  /** Per run, `f` over the windows `labels`. */
  const over = (rs: ReadonlyArray<Run>, labels: ReadonlyArray<string>, k: 'wall' | 'cpu' | 'gc', f: (xs: number[]) => number): string =>
    spread(rs.map((r) => f(labels.map((l) => traced(r, l)[k]).filter((x) => !Number.isNaN(x)))))

  /** A watched window of the open table: the trace's longest task in it, the page's probes, and the engine's sends where timed. */
  type Watched = { readonly task: TaskFigures; readonly window: Window; readonly send?: number; readonly slice?: number }
  const ofRuns = (rs: ReadonlyArray<Run>, label: 'idle' | 'open', sends: boolean): Watched[] =>
    rs.map((r) => ({
      task: traced(r, label),
      window: r[label],
      ...(sends && label === 'open' ? { send: r.open.send, slice: r.open.bytes / r.open.sends / 1024 } : {}),
    }))
  const ofFiles = (fs: ReadonlyArray<(typeof files)['file'][number]>): Watched[] => fs.map((f) => ({ task: f.traced.get('open-file') ?? none, window: f.open }))
  const openRow = (label: string, ws: ReadonlyArray<Watched>): string[] => [
    label,
    spread(ws.map((x) => x.task.cpu)),
    spread(ws.map((x) => x.task.wall)),
    spread(ws.map((x) => x.task.gc)),
    spread(ws.map((x) => x.window.timer)),
    spread(ws.map((x) => x.window.frame)),
    spread(ws.map((x) => x.window.longTasks)),
    ws.some((x) => x.send !== undefined) ? spread(ws.map((x) => x.send ?? Number.NaN)) : '—',
    ws.some((x) => x.slice !== undefined) ? spread(ws.map((x) => x.slice ?? Number.NaN)) : '—',
    spread(ws.map((x) => x.window.total)),
  ]
  const poolSize = results.pool[0]?.workers ?? '?'
  table(
    `browser (Chromium ${version}): open the ${messages.toLocaleString('en')}-message history, o200k_base; median [min–max] of ${runs} runs (ms)`,
    [
      'how',
      'longest task: CPU (trace)',
      'longest task: wall (trace)',
      'longest GC pause',
      'timer gap',
      'rAF gap',
      'Long Tasks (≥ 50 ms)',
      'longest send',
      'mean slice (KiB of JSON)',
      'total',
    ],
    [
      openRow("nothing (300 ms idle: the probes' baseline)", ofRuns(w, 'idle', false)),
      openRow('worker session: open (sliced, counted in the worker)', ofRuns(w, 'open', true)),
      openRow(`worker session with the pool (${poolSize} workers): open`, ofRuns(results.pool, 'open', true)),
      openRow('inline session: open', ofRuns(il, 'open', false)),
      openRow(
        'a saved session restored: openFile of the fetched JSONL, in a page holding nothing else (read, decoded and counted in the worker)',
        ofFiles(files.file),
      ),
      openRow(`the same with the pool (${files['file-pool'][0]?.workers ?? '?'} workers)`, ofFiles(files['file-pool'])),
    ],
  )
  if (Object.values(cores).some((c) => c.length > 0)) {
    type Mode = keyof typeof cores
    const ran = (m: Mode, f: (c: CoresWindow) => number): string => spread(cores[m].map(f))
    const both = (m: Mode, g: keyof CoresWindow['groups']): string => `${ran(m, (c) => c.groups[g].ran)}; ${ran(m, (c) => c.groups[g].waited)}`
    const coresRow = (label: string, m: Mode): string[] => [
      label,
      ran(m, (c) => c.elapsed),
      spread(cores[m].map((c) => (Object.values(c.groups).reduce((n, g) => n + g.ran, 0) + c.rest) / c.elapsed)),
      both(m, 'page'),
      both(m, 'workers'),
      both(m, 'pool'),
      ran(m, (c) => c.groups.browser.ran),
      ran(m, (c) => c.rest),
    ]
    table(
      `browser (Chromium): where the ${
        cores.worker[0]?.cores ?? '?'
      } cores went while opening, by Linux's accounting of each thread (/proc/…/schedstat): time on a core; time runnable but waiting for one. Median [min–max] of ${runs} runs (ms)`,
      [
        'how',
        'the open',
        'cores busy',
        "the page's main thread",
        "the engine's workers",
        "the renderer's thread pool (V8's garbage collection helpers, …)",
        "the rest of Chromium's threads",
        'the rest of the machine (other processes, the kernel)',
      ],
      [
        coresRow('worker session: open', 'worker'),
        coresRow(`the pool (${poolSize} workers): open`, 'pool'),
        coresRow('inline session: open', 'inline'),
        coresRow('openFile, one worker', 'file'),
        coresRow(`openFile, the pool (${files['file-pool'][0]?.workers ?? '?'} workers)`, 'file-pool'),
      ],
    )
  }
  const openedTokens = new Set([...results.worker, ...results.pool, ...results.inline, ...files.file, ...files['file-pool']].map((r) => r.tokens))
  if (openedTokens.size > 1) throw new Error(`the opens counted different tokens: ${[...openedTokens].join(', ')}`)
  const single = results.worker.map((r) => r.open.total)
  const pooled = results.pool.map((r) => r.open.total)
  const singleAgain = results.worker.map((r) => r.reopen)
  const pooledAgain = results.pool.map((r) => r.reopen)
  const fileOne = files.file.map((f) => f.open.total)
  const filePool = files['file-pool'].map((f) => f.open.total)
  const fileOneAgain = files.file.map((f) => f.reopen)
  const filePoolAgain = files['file-pool'].map((f) => f.reopen)
  table(
    `browser (Chromium): opening the history on more than one core (navigator.hardwareConcurrency ${
      results.pool[0]?.workers ?? '?'
    }): the first open (the counting workers started by the call before it) and a second one (all warm), median [min–max] of ${runs} runs`,
    ['workers', 'first open (ms)', 'time / one worker', 'second open (ms)', 'time / one worker'],
    [
      ['1', spread(single), '1.00', spread(singleAgain), '1.00'],
      [
        String(poolSize),
        spread(pooled),
        (median(pooled) / median(single)).toFixed(2),
        spread(pooledAgain),
        (median(pooledAgain) / median(singleAgain)).toFixed(2),
      ],
      ['openFile: 1', spread(fileOne), '1.00', spread(fileOneAgain), '1.00'],
      [
        `openFile: ${files['file-pool'][0]?.workers ?? '?'}`,
        spread(filePool),
        (median(filePool) / median(fileOne)).toFixed(2),
        spread(filePoolAgain),
        (median(filePoolAgain) / median(fileOneAgain)).toFixed(2),
      ],
    ],
  )

  const tokens = new Set([...alone.one, ...alone.all].map((a) => a.tokens))
  if (tokens.size > 1) throw new Error(`counting alone counted different tokens: ${[...tokens].join(', ')}`)
  const aloneOne = alone.one.map((a) => a.wall)
  const aloneAll = alone.all.map((a) => a.wall)
  table(
    `browser (Chromium): what the machine allows. "Counting alone": workers each count every n-th message, handed to them before the clock starts (nothing sent, decoded or shared while they count), in the same runs; per run, against the run's one thread`,
    ['threads', 'counting alone (ms)', 'time / one', 'per run', 'the pool against one worker, per run: first open; second'],
    [
      ['1', spread(aloneOne), '1.00', pairedRatios(aloneOne, aloneOne), `${pairedRatios(single, single)}; ${pairedRatios(singleAgain, singleAgain)}`],
      [
        String(results.pool[0]?.workers ?? '?'),
        spread(aloneAll),
        (median(aloneAll) / median(aloneOne)).toFixed(2),
        pairedRatios(aloneAll, aloneOne),
        `${pairedRatios(pooled, single)}; ${pairedRatios(pooledAgain, singleAgain)}`,
      ],
    ],
  )

  const turnRow = (label: string, rs: ReadonlyArray<Run>, labels: ReadonlyArray<string>, worker: boolean, idle = false): string[] => [
    label,
    over(rs, labels, 'cpu', median),
    over(rs, labels, 'cpu', max),
    over(rs, labels, 'wall', median),
    over(rs, labels, 'wall', max),
    over(rs, labels, 'gc', max),
    idle ? spread(rs.map((r) => max(r.floor.map((f) => f.timer)))) : spread(rs.map((r) => max(r.turns.map((t) => t.timer)))),
    idle ? '—' : spread(rs.map((r) => r.turns.reduce((n, t) => n + t.longTasks, 0))),
    worker && !idle ? spread(rs.map((r) => max(r.turns.map((t) => t.send)))) : '—',
    idle ? '—' : spread(rs.map((r) => median(r.turns.map((t) => t.total)))),
    idle ? '—' : `${spread(rs.map((r) => traced(r, 'first-prune').wall))}; ${spread(rs.map((r) => traced(r, 'first-prune').cpu))}`,
  ]
  table(
    `browser (Chromium): one turn (append, prune, plan) on the resident history, ${TURNS} turns; longest main-thread task per turn, median [min–max] of ${runs} runs (ms)`,
    [
      'engine',
      'CPU: median',
      'CPU: max',
      'wall: median',
      'wall: max',
      "longest GC pause (the page's own)",
      'timer gap: max',
      'Long Tasks',
      'longest send',
      'latency median',
      'first prune: longest task (wall; CPU)',
    ],
    [
      ['nothing (idle 50 ms waits)', ...turnRow('', w, floorLabels, false, true).slice(1)],
      turnRow('worker session', w, turnLabels, true),
      turnRow('inline session', il, turnLabels, false),
    ],
  )

  // a window the trace has no task for is left out, as in the tables
  const finite = (xs: ReadonlyArray<number>): number[] => xs.filter((x) => !Number.isNaN(x))
  const worst = (f: (r: Run) => number): number => max(finite(w.map(f)))
  const turns = (r: Run, k: 'wall' | 'cpu'): number[] => finite(turnLabels.map((l) => traced(r, l)[k]))
  const openWall = worst((r) => traced(r, 'open').wall)
  const openCpu = worst((r) => traced(r, 'open').cpu)
  const fileWall = max(finite(ofFiles(files.file).map((x) => x.task.wall)))
  const fileCpu = max(finite(ofFiles(files.file).map((x) => x.task.cpu)))
  const turnMedian = worst((r) => median(turns(r, 'wall')))
  const turnMax = worst((r) => max(turns(r, 'wall')))
  const turnMaxCpu = worst((r) => max(turns(r, 'cpu')))
  const verdict = (x: number, limit: number): string => (x <= limit ? 'met' : 'missed')
  console.log(
    `\ntargets, worker session, worst of ${runs} runs, longest main-thread task by the trace (wall; CPU): ` +
      `open ${ms(openWall)}; ${ms(openCpu)} ms (≤ 16: ${verdict(openWall, 16)}; ${verdict(openCpu, 16)}), ` +
      `per turn median ${ms(turnMedian)} ms (< 2: ${verdict(turnMedian, 2)}), worst ${ms(turnMax)}; ${ms(turnMaxCpu)} ms (< 16: ${verdict(turnMax, 16)}; ${
        verdict(turnMaxCpu, 16)
      }); ` +
      `a saved session restored with openFile (one worker) ${ms(fileWall)}; ${ms(fileCpu)} ms (≤ 16: ${verdict(fileWall, 16)}; ${verdict(fileCpu, 16)})`,
  )
}
