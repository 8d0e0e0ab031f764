/**
 * The history explorer opened for a test: built into a new directory, served on a free port, and
 * a page of headless Chromium (Debian's) that collects every console error and uncaught error.
 */
import type { Server } from 'node:http'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { buildExplorer, root, serveDir } from '../../../web/serve.ts'
import { launchChromium } from '../../../scripts/chromium.ts'

/** Where the tests write their screenshots. */
export const shots = join(root, 'out', 'screenshots')

/** An explorer served and a page ready to open it (not yet gone to `url`). */
export type ExplorerPage = {
  readonly url: string
  readonly page: Page
  /** The console's errors and the page's uncaught errors, as they come. */
  readonly consoleErrors: string[]
  /** Closes the browser and the server, and removes the build. */
  readonly close: () => Promise<void>
}

/** Builds and serves the explorer in a new directory named from `prefix`, and opens a page of `viewport`'s size. */
export const openExplorerPage = async (prefix: string, viewport: { readonly width: number; readonly height: number }): Promise<ExplorerPage> => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  let server: Server | undefined
  let browser: Browser | undefined
  const close = async (): Promise<void> => {
    await browser?.close()
    server?.close()
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    mkdirSync(shots, { recursive: true })
    await buildExplorer(dir)
    const served = await serveDir(dir)
    server = served.server
    browser = await launchChromium()
    const page = await browser.newPage({ viewport })
    const consoleErrors: string[] = []
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text())
    })
    page.on('pageerror', (e) => consoleErrors.push(e.message))
    return { url: served.url, page, consoleErrors, close }
  } catch (e) {
    await close()
    throw e
  }
}
