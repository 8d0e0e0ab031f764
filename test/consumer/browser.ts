/**
 * Pages of the consumer test in Debian's Chromium (playwright-core, never a downloaded browser),
 * and a static file server for a bundle's output folder.
 */
import { createReadStream, existsSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize } from 'node:path'
import { launchChromium } from '../../scripts/chromium.ts'

/**
 * Opens `url` in a fresh Chromium and answers the page's title once the page has set its outcome
 * (`tokens N` or `failed: …`), with the console's errors when it failed.
 */
export const openInChromium = async (url: string): Promise<string> => {
  const browser = await launchChromium()
  try {
    const page = await browser.newPage()
    const errors: string[] = []
    page.on('console', (m) => (m.type() === 'error' ? errors.push(m.text()) : undefined))
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(url)
    await page.waitForFunction(() => document.title.startsWith('tokens') || document.title.startsWith('failed'), null, { timeout: 120_000 })
    const title = await page.title()
    return title.startsWith('tokens') ? title : `${title}\n${errors.join('\n')}`
  } finally {
    await browser.close()
  }
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.map': 'application/json',
  '.wasm': 'application/wasm',
}

export type Served = { readonly url: string; readonly close: () => Promise<void> }

/** Serves the files of `root` on 127.0.0.1 (an ephemeral port). */
export const serveStatic = async (root: string): Promise<Served> => {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '')
    const file = join(root, path.endsWith('/') ? `${path}index.html` : path)
    if (!file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' })
    createReadStream(file).pipe(res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const close = (): Promise<void> =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections() // keep-alive connections the browser left open
    })
  return { url: `http://127.0.0.1:${port}/`, close }
}
