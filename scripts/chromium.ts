/**
 * Debian's Chromium as the browser tests and benches drive it, with playwright-core (never a
 * downloaded browser): its path (`CHROMIUM_PATH` to change), the flags of a quiet headless run,
 * and a round of fresh pages.
 */
import type { Browser, BrowserContextOptions, Page } from 'playwright-core'

export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'

/** Headless, no sandbox (containers), no GPU, and none of the browser's own network traffic. */
export const CHROMIUM_ARGS: ReadonlyArray<string> = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
]

/** Launches Debian's Chromium with those flags. */
export const launchChromium = async (): Promise<Browser> => {
  const { chromium } = await import('playwright-core')
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] })
}

/** Runs `f` in a fresh page for each mode, `runs` rounds of `modes`, closing each page after it. */
export const inFreshPages = async <M extends string>(
  browser: Browser,
  runs: number,
  modes: ReadonlyArray<M>,
  f: (page: Page, mode: M) => Promise<void>,
  options: BrowserContextOptions = {},
): Promise<void> => {
  for (let i = 0; i < runs; i++) {
    for (const mode of modes) {
      const page = await browser.newPage(options)
      try {
        await f(page, mode)
      } finally {
        await page.close()
      }
    }
  }
}
