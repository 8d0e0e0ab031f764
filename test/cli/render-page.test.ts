/**
 * The page `chatfold render --format html` writes, opened in headless Chromium (Debian's, through
 * playwright-core; one launch): it loads nothing beyond itself, runs no script from the history,
 * opens a folded tool call on a click, shows a sub-conversation inside its call and the image
 * decoded. Screenshots of it go to out/screenshots/ for a person to look at.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'
import { toJSONL } from '../../src/history/codec.ts'
import { launchChromium } from '../../scripts/chromium.ts'
import { recordedHistory } from '../support/recorded-history.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const shots = join(root, 'out', 'screenshots')
const ORIGIN = 'http://transcript.test/'

describe('the HTML transcript in Chromium', () => {
  let dir = ''
  let html = ''
  let browser: Browser | undefined
  let page: Page
  const requests: string[] = []
  const problems: string[] = []
  const dialogs: string[] = []

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chatfold-page-'))
    mkdirSync(shots, { recursive: true })
    const file = join(dir, 'history.jsonl')
    writeFileSync(file, toJSONL(recordedHistory()))
    const r = await run(['render', file, '--format', 'html', '--title', 'Fixing the cart total', '-o', join(dir, 'page.html')], {
      out: () => {},
      err: () => {},
      errIsTTY: false,
    })
    expect(r).toBe(EXIT.ok)
    html = readFileSync(join(dir, 'page.html'), 'utf8')
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 900, height: 1000 } })
    // the page comes from this route; any other request is counted and refused
    await page.route('**/*', async (route) => {
      const url = route.request().url()
      if (url === ORIGIN) return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html })
      requests.push(url)
      return route.abort()
    })
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text())
    })
    page.on('pageerror', (e) => problems.push(e.message))
    page.on('dialog', async (d) => {
      dialogs.push(d.message())
      await d.dismiss()
    })
    await page.goto(ORIGIN, { waitUntil: 'load' })
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    if (dir !== '') rmSync(dir, { recursive: true, force: true })
  })

  it('loads nothing beyond the document, and runs no script of the history', async () => {
    expect(requests).toEqual([])
    expect(problems).toEqual([])
    expect(dialogs).toEqual([])
    expect(await page.evaluate(() => document.scripts.length)).toBe(0)
    expect(await page.textContent('#m-u1 .text')).toContain('<script>alert("x")</script>')
  })

  it('opens a folded tool call on a click, showing its arguments and result', async () => {
    const read = page.locator('#call-toolu_read')
    expect(await read.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false)
    expect(await page.isVisible('#call-toolu_read .result')).toBe(false)
    await page.click('#call-toolu_read > summary')
    expect(await read.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true)
    expect(await page.isVisible('#call-toolu_read .result')).toBe(true)
    expect(await page.textContent('#call-toolu_read .result pre')).toContain('Math.round(l.price')
  })

  it('nests the sub-conversation under its call, and shows the image decoded', async () => {
    await page.click('#call-toolu_task > summary')
    await page.click('#call-toolu_task > details.subagent > summary')
    expect(await page.isVisible('#call-toolu_task details.subagent #m-s2')).toBe(true)
    expect(await page.locator('main details.subagent').count()).toBe(1)
    expect(await page.evaluate(() => [...document.images].map((i) => [i.complete, i.naturalWidth, i.naturalHeight]))).toEqual([[true, 160, 90]])
    expect(await page.locator('h1').count()).toBe(1)
  })

  it('saves screenshots, light and dark', async () => {
    await page.click('#m-a1 details.thinking > summary')
    await page.screenshot({ path: join(shots, 'transcript.png'), fullPage: true })
    // the first turn down to the sub-conversation, open under its call: the picture a README can show
    const end = await page.evaluate(() => (document.getElementById('m-a2')?.getBoundingClientRect().bottom ?? 1200) + globalThis.scrollY + 8)
    await page.screenshot({ path: join(shots, 'transcript-top.png'), fullPage: true, clip: { x: 0, y: 0, width: 900, height: Math.round(end) } })
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.screenshot({ path: join(shots, 'transcript-dark.png'), fullPage: true })
    expect(readFileSync(join(shots, 'transcript.png')).subarray(1, 4).toString()).toBe('PNG')
    expect(requests).toEqual([])
  })

  it('shows a Claude Code session file as the tool wrote it: its sub-agent nested under the Task call, and a screenshot of it', async () => {
    // the fixture in the shape of a real session, with its sub-agent transcript in SESSION/subagents/
    const session = join(root, 'test', 'fixtures', 'claude-code', '7c2e4b19-5a83-4f0d-b6e1-93d0a8f25c47.jsonl')
    const out = join(dir, 'session.html')
    const r = await run(['render', session, '--format', 'html', '-o', out], { out: () => {}, err: () => {}, errIsTTY: false })
    expect(r).toBe(EXIT.ok)
    await page.emulateMedia({ colorScheme: 'light' })
    await page.setContent(readFileSync(out, 'utf8'), { waitUntil: 'load' })
    expect(await page.locator('details.subagent').count()).toBeGreaterThan(0)
    expect(await page.locator('details.subagent').first().evaluate((el) => el.closest('details:not(.subagent)') !== null)).toBe(true)
    // the page is named after the file, not its folders
    expect(await page.locator('h1').textContent()).toBe('7c2e4b19-5a83-4f0d-b6e1-93d0a8f25c47.jsonl')
    // open the Task call, so that the picture shows the sub-agent's run under it
    await page.locator('details.subagent').first().evaluate((el) => {
      for (let d: Element | null = el; d !== null; d = d.parentElement?.closest('details') ?? null) d.setAttribute('open', '')
    })
    await page.screenshot({ path: join(shots, 'claude-code-session.png'), fullPage: true })
    expect(readFileSync(join(shots, 'claude-code-session.png')).subarray(1, 4).toString()).toBe('PNG')
    expect(requests).toEqual([])
  })
})
