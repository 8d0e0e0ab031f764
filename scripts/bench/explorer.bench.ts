/**
 * The history explorer (`npm run demo:web`) as a person uses it, in headless Chromium (Debian's,
 * driven with playwright-core): open the bench history as a chatfold JSONL file, prune, read it as
 * Markdown, compact; once with the work in the engine's worker and once inline. For each action:
 * how long until the page is done, the Long Tasks the browser reports (≥ 50 ms) and the longest
 * gap between two animation frames (what a person sees as a stutter). Each figure is the median
 * over `BENCH_EXPLORER_RUNS` runs (default 2, each in a fresh page) with the spread beside it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { exportJSONL } from '../../src/history/export.ts'
import { buildExplorer, serveDir } from '../../web/serve.ts'
import { inFreshPages, launchChromium } from '../chromium.ts'
import { benchHistory, spread, table } from './lib.ts'

const ACTIONS = ['open the file', 'prune', 'read as Markdown', 'compact'] as const
type Action = (typeof ACTIONS)[number]
type Figures = { readonly total: number; readonly longTasks: number; readonly longest: number; readonly frameGap: number }

/**
 * The page's probes, Long Tasks and animation-frame gaps, as `window.probe` (`reset`, `read`): a
 * string, so that the page runs it as written (tsx's helpers are not defined there).
 */
const PROBE = `(() => {
  const p = { longTasks: [], gap: 0, last: performance.now() }
  new PerformanceObserver((l) => { for (const e of l.getEntries()) p.longTasks.push(e.duration) }).observe({ type: 'longtask' })
  const frame = (t) => { p.gap = Math.max(p.gap, t - p.last); p.last = t; requestAnimationFrame(frame) }
  requestAnimationFrame(frame)
  window.probe = {
    reset: () => { p.longTasks = []; p.gap = 0; p.last = performance.now() },
    read: () => ({ longTasks: p.longTasks.length, longest: Math.max(0, ...p.longTasks), frameGap: p.gap }),
  }
})()`

type Probe = { readonly reset: () => void; readonly read: () => Omit<Figures, 'total'> }

/** Runs one action and waits until the page has settled in `state`. */
const timed = async (page: Page, act: () => Promise<unknown>, state: string): Promise<Figures> => {
  await page.evaluate(() => (window as unknown as { probe: Probe }).probe.reset())
  const t0 = performance.now()
  await act()
  await page.waitForSelector(`body[data-state="${state}"]:not([data-busy])`, { timeout: 600_000 })
  const total = performance.now() - t0
  // a frame after the last change, so that the probe sees its gap
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
  return { total, ...(await page.evaluate(() => (window as unknown as { probe: Probe }).probe.read())) }
}

export default async function explorerBench(): Promise<void> {
  const runs = Math.max(1, Number(process.env['BENCH_EXPLORER_RUNS'] ?? 2))
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-bench-explorer-'))
  const file = join(dir, 'history.jsonl')
  writeFileSync(file, exportJSONL(benchHistory()))
  const browser = await launchChromium()
  const { server, url } = await serveDir(await buildExplorer(join(dir, 'web')))
  const results: Record<'worker' | 'inline', Array<Record<Action, Figures>>> = { worker: [], inline: [] }
  let loaded = ''
  const version = browser.version()
  try {
    await inFreshPages(
      browser,
      runs,
      ['worker', 'inline'] as const,
      async (page, mode) => {
        await page.goto(url)
        await page.waitForSelector('body[data-state="empty"]')
        await page.evaluate(PROBE)
        await page.check(`input[name=mode][value=${mode}]`)
        const open = await timed(page, () => page.setInputFiles('#file', file), 'load')
        loaded = (await page.textContent('#summary-title')) ?? ''
        const prune = await timed(page, () => page.click('#prune'), 'prune')
        const markdown = await timed(page, () => page.click('#markdown').then(() => page.waitForSelector('#markdown-view:not([hidden])')), 'prune')
        const compact = await timed(page, () => page.click('#compact'), 'compact')
        results[mode].push({ 'open the file': open, prune, 'read as Markdown': markdown, compact })
      },
      { viewport: { width: 1000, height: 900 } },
    )
  } finally {
    await browser.close()
    server.close()
    rmSync(dir, { recursive: true, force: true })
  }
  const rows = (['worker', 'inline'] as const).flatMap((mode) =>
    ACTIONS.map((a) => {
      const rs = results[mode].map((r) => r[a])
      return [
        `${mode === 'worker' ? 'in the worker' : 'inline'}: ${a}`,
        spread(rs.map((r) => r.total)),
        spread(rs.map((r) => r.longTasks)),
        spread(rs.map((r) => r.longest)),
        spread(rs.map((r) => r.frameGap)),
      ]
    })
  )
  table(
    `explorer (Chromium ${version}): the bench history exported as chatfold JSONL (${loaded}); median [min–max] of ${runs} runs (ms)`,
    ['action', 'until done', 'Long Tasks (≥ 50 ms)', 'longest Long Task', 'longest frame gap'],
    rows,
  )
}
