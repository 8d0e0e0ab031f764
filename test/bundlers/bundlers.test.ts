/**
 * The engine's worker under every bundler: one fixture page, bundled by each the way it documents
 * workers (or with the one documented `host:` line where it has no way), opened in headless
 * Chromium. Each must start the engine in a Web Worker from the bundle's own files and count the
 * same tokens as the engine inline; a bundle that leaves the worker out must fail saying the URL it
 * tried, the HTTP status and the fix. Runs on the built package (`npm run test:bundlers` builds it).
 */
import { createServer, type Server } from 'node:http'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { extname, join, normalize } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine/client.ts'
import { textMessage } from '../../src/message/message.ts'
import * as B from './bundle.ts'
import { launchChromium } from '../../scripts/chromium.ts'

type FixtureResult = {
  readonly mode: string
  readonly before?: { readonly messages: number; readonly tokens: number }
  readonly after?: { readonly messages: number; readonly tokens: number }
  readonly error?: string
}

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.map': 'application/json' }

/** A static server over `dir` on 127.0.0.1: files by path, 404 for anything else. */
const serve = (dir: string): Promise<{ server: Server; base: string }> =>
  new Promise((resolve) => {
    const server = createServer((req, res) => {
      const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '')
      const file = join(dir, path)
      if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
        return
      }
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file))
    })
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      resolve({ server, base: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}` })
    })
  })

const history = [textMessage('user', 'Hello'), textMessage('assistant', 'Hi! How can I help?')]
const turn = [textMessage('user', 'Count these tokens, please.')]

describe('the engine worker under each bundler, in Chromium', () => {
  let dir: string
  let project: string
  let www: string
  let server: Server
  let base: string
  let browser: Browser
  let expected: { before: number; after: number }

  beforeAll(async () => {
    if (!existsSync(join(B.root, 'dist', 'workers', 'engine.worker.js')))
      throw new Error('Cannot bundle the fixture: dist/ is missing (run `npm run build`, or `npm run test:bundlers`)')
    dir = mkdtempSync(join(tmpdir(), 'chatfold-bundlers-'))
    project = B.makeProject(join(dir, 'project'))
    www = join(dir, 'www')
    ;({ server, base } = await serve(www))
    browser = await launchChromium()
    const inline = createEngine({ mode: 'inline' })
    const s = await inline.open('fixture', history)
    expected = { before: (await s.tokens()).tokens, after: (await s.append(turn)).tokens }
    inline.dispose()
  })

  afterAll(async () => {
    await browser?.close()
    server?.close()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  /** Bundles with `b` into `www/slug/`, opens it, and answers what the page reported and which workers it started. */
  const open = async (b: B.Bundler, slug: string): Promise<{ result: FixtureResult; workers: ReadonlyArray<string>; errors: ReadonlyArray<string> }> => {
    await b.bundle(project, join(www, slug))
    const page = await browser.newPage()
    const workers: string[] = []
    const errors: string[] = []
    page.on('worker', (w) => workers.push(w.url()))
    page.on('pageerror', (e) => errors.push(e.message))
    try {
      await page.goto(`${base}/${slug}/index.html`)
      const handle = await page.waitForFunction(() => (window as unknown as { fixtureResult?: unknown }).fixtureResult, undefined, { timeout: 60_000 })
      return { result: (await handle.jsonValue()) as FixtureResult, workers, errors }
    } finally {
      await page.close()
    }
  }

  const working: ReadonlyArray<readonly [string, B.Bundler]> = [
    ['vite', B.vite],
    ['webpack', B.webpack],
    ['esbuild-entry', B.esbuildEntry],
    ['rollup', B.rollup],
    ['deno', B.deno],
  ]

  it.each(working)('%s: the page runs the engine in a worker emitted by the bundler', async (slug, b) => {
    const { result, workers, errors } = await open(b, slug)
    expect(errors).toEqual([])
    expect(result).toEqual({ mode: 'worker', before: { messages: 2, tokens: expected.before }, after: { messages: 3, tokens: expected.after } })
    // the worker was started from a script of this bundle's own output
    expect(workers.filter((u) => u.startsWith(`${base}/${slug}/`))).toHaveLength(1)
  })

  it('a bundle that leaves the worker out fails with the URL tried, the status and the fix', async () => {
    const { result, workers } = await open(B.esbuildBare, 'bare')
    // esbuild leaves `new URL('../../workers/engine.worker.js', import.meta.url)` as it is: relative to the bundle
    expect(workers).toEqual([`${base}/workers/engine.worker.js`])
    expect(result.mode).toBe('worker')
    expect(result.error).toContain('EngineError')
    expect(result.error).toContain(`${base}/workers/engine.worker.js`)
    expect(result.error).toContain('HTTP 404')
    expect(result.error).toContain("webWorkerHost(new URL('./engine.worker.js', import.meta.url))")
  })
})
