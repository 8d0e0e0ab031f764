/**
 * The history explorer (web/), built and opened in headless Chromium: it loads with no console
 * error; the sample and session files (chatfold JSONL, AI SDK messages) load and chart; prune and
 * compact work in the worker with a moving progress bar, and inline; Markdown shows; a bad file
 * says what was wrong. A screenshot of each state is written to out/screenshots/ for a person to look at.
 */
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toJSONL } from '../../src/history/codec.ts'
import { textMessage } from '../../src/message/message.ts'
import { loadEstimator } from '../../src/tokenizer/load.ts'
import { countMessages } from '../../src/tokens/count.ts'
import { sampleSession } from '../../sample/session.ts'
import { type ExplorerPage, openExplorerPage, shots } from './support/explorer-page.ts'

describe('the history explorer in Chromium', () => {
  let explorer: ExplorerPage | undefined
  let url: string
  let page: Page
  let consoleErrors: string[] = []

  beforeAll(async () => {
    explorer = await openExplorerPage('chatfold-explorer-', { width: 1000, height: 900 })
    ;({ url, page, consoleErrors } = explorer)
  })

  afterAll(() => explorer?.close())

  const settled = (state: string) => page.waitForSelector(`body[data-state="${state}"]:not([data-busy])`, { timeout: 90_000 })
  const shot = (name: string) => page.screenshot({ path: join(shots, `explorer-${name}.png`), fullPage: true })
  const text = async (selector: string): Promise<string> => (await page.textContent(selector)) ?? ''
  /** Records every value the progress bar takes from now on. */
  const watchProgress = () =>
    page.evaluate(() => {
      const w = window as unknown as { progressSeen: Array<[number, number]> }
      w.progressSeen = []
      const bar = document.getElementById('progress') as HTMLProgressElement
      new MutationObserver(() => w.progressSeen.push([bar.value, bar.max])).observe(bar, { attributes: true })
    })
  const progressSeen = () => page.evaluate(() => (window as unknown as { progressSeen: Array<[number, number]> }).progressSeen)
  const inked = (id: string) =>
    page.evaluate((canvasId) => {
      const c = document.getElementById(canvasId) as HTMLCanvasElement
      const data = c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data ?? new Uint8ClampedArray()
      let n = 0
      for (let i = 3; i < data.length; i += 4) if ((data[i] ?? 0) > 0) n++
      return n
    }, id)

  it('loads with no console error and draws the frame graph', async () => {
    await page.goto(url)
    await settled('empty')
    await page.waitForFunction(() => document.getElementById('frame-stats')?.textContent?.includes('longest frame') === true)
    expect(await inked('frame-graph')).toBeGreaterThan(0)
    await shot('1-empty')
    expect(consoleErrors).toEqual([])
  })

  it('loads the sample in the worker: tokens per message and per kind', async () => {
    await watchProgress()
    await page.click('#sample')
    await settled('load')
    expect(await text('#summary-title')).toMatch(/^the sample \(3,000 messages\): 3,0\d\d messages, [\d,]+ tokens$/)
    // the chart's counts come from the engine's session: their sum is the history's count
    const sample = sampleSession({ messages: 3_000, seed: 7 })
    const tokens = countMessages(await loadEstimator('o200k_base'))(sample)
    expect(await text('#summary-title')).toBe(
      `the sample (3,000 messages): ${sample.length.toLocaleString('en')} messages, ${tokens.toLocaleString('en')} tokens`,
    )
    const kinds = await page.$$eval('#per-kind tbody tr td:first-child', (tds) => tds.map((td) => td.textContent))
    expect(kinds).toContain('normal')
    expect(kinds.length).toBeGreaterThan(2)
    expect(await inked('per-message')).toBeGreaterThan(1000)
    // the engine's worker is the bundle's own engine.worker.js; the sample is made in the loader's
    expect(page.workers().map((w) => w.url())).toContain(`${url}engine.worker.js`)
    expect(page.workers().map((w) => w.url())).toContain(`${url}load.worker.js`)
    expect((await progressSeen()).some(([v, max]) => v > 0 && v < max)).toBe(true)
    await shot('2-loaded')
  })

  it('prunes in the worker', async () => {
    const before = await text('#summary-title')
    await page.click('#prune')
    await settled('prune')
    const done = await text('#last-action')
    const m = /^Pruned ([\d,]+) tool results and [\d,]+ arguments: ([\d,]+) → ([\d,]+) tokens$/.exec(done)
    expect(m).not.toBeNull()
    const n = (s: string | undefined) => Number((s ?? '').replaceAll(',', ''))
    expect(n(m?.[1])).toBeGreaterThan(0)
    expect(n(m?.[3])).toBeLessThan(n(m?.[2]))
    expect(await text('#summary-title')).not.toBe(before)
    await shot('3-pruned')
  })

  it('compacts in the worker with a moving progress bar', async () => {
    await watchProgress()
    await page.click('#compact')
    await settled('compact')
    expect(await text('#last-action')).toMatch(/^Compacted: [\d,]+ messages summarised, [\d,]+ kept, [\d,]+ → [\d,]+ tokens$/)
    const seen = await progressSeen()
    expect(seen.some(([v, max]) => v > 0 && v < max)).toBe(true)
    expect(seen.at(-1)?.[0]).toBe(seen.at(-1)?.[1])
    expect(Number(/: ([\d,]+) messages/.exec(await text('#summary-title'))?.[1]?.replaceAll(',', ''))).toBeLessThan(3_000)
    await shot('4-compacted')
  })

  it('reads the history as Markdown', async () => {
    await page.click('#markdown')
    await page.waitForSelector('#markdown-view:not([hidden])')
    const md = await text('#markdown-text')
    expect(md.length).toBeGreaterThan(100)
    expect(md).toMatch(/^#+ /m)
    // all of it when it is short, else its first 200,000 characters (web/markdown.ts renders only those)
    const note = await text('#markdown-note')
    const all = /^\(([\d,]+) characters\)$/.exec(note)
    if (all !== null) expect(md.length).toBe(Number(all[1]?.replaceAll(',', '')))
    else {
      expect(note).toMatch(/^\(the first 200,000 (characters, from the first [\d,]+ of [\d,]+ messages|of [\d,]+ characters)\)$/)
      expect(md.length).toBe(200_000)
    }
    await shot('5-markdown')
  })

  it('runs the same work inline when switched', async () => {
    await page.check('input[name=mode][value=inline]')
    await page.click('#sample')
    await settled('load')
    await page.click('#prune')
    await settled('prune')
    expect(await text('#status')).toMatch(/inline\)$/)
    expect(await text('#last-action')).toMatch(/^Pruned [\d,]+ tool results/)
    await shot('6-inline')
  })

  it('opens chatfold JSONL and AI SDK messages, and says what is wrong with a bad file', async () => {
    await page.check('input[name=mode][value=worker]')
    const jsonl = toJSONL([textMessage('user', 'What is chatfold?'), textMessage('assistant', 'A history toolkit.')])
    await page.setInputFiles('#file', { name: 'chat.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(jsonl) })
    await page.waitForFunction(() =>
      document.getElementById('summary-title')?.textContent?.startsWith('chat.jsonl') === true && document.body.dataset['busy'] === undefined
    )
    expect(await text('#summary-title')).toMatch(/^chat\.jsonl \(chatfold JSONL\): 2 messages, \d+ tokens$/)

    const sdk = {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'clock', input: {} }] },
      ],
    }
    await page.setInputFiles('#file', { name: 'request.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(sdk, null, 2)) })
    await page.waitForFunction(() =>
      document.getElementById('summary-title')?.textContent?.startsWith('request.json') === true && document.body.dataset['busy'] === undefined
    )
    expect(await text('#summary-title')).toMatch(/^request\.json \(AI SDK model messages\): 3 messages, \d+ tokens$/)
    await shot('7-ai-sdk')

    await page.setInputFiles('#file', {
      name: 'bad.jsonl',
      mimeType: 'application/jsonl',
      buffer: Buffer.from(`${toJSONL([textMessage('user', 'fine')])}{"id":"m2","role":"robot","parts":[]}\n`),
    })
    await page.waitForSelector('#status.error')
    expect(await text('#status')).toMatch(
      /^bad\.jsonl: Cannot read it as chatfold JSONL \(chatfold-jsonl\): line 2: role: expected "system" \| "user" \| "assistant" \| "tool", got "robot"$/,
    )
    await shot('8-bad-file')
    expect(consoleErrors).toEqual([])
  })
})
