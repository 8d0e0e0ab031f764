/**
 * `npm run demo:web`: builds the history explorer (web/app.ts and the engine's worker, bundled with
 * esbuild) into out/web/ and serves it on 127.0.0.1 (port from PORT, default 5173). The same
 * helpers build and serve the pages of the browser tests and `npm run bench browser`.
 */
import { createServer, type Server } from 'node:http'
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { dirname, extname, join, normalize, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * Bundles `entries` (name → source file) with the engine's worker as its own entry,
 * `engine.worker.js` beside them: the pages point their engine at it with one `host:` line.
 * Dynamic imports (the tokenizer tables) become chunks loaded on first use.
 */
export const bundlePages = async (entries: Readonly<Record<string, string>>, outdir: string): Promise<void> => {
  const { build } = await import('esbuild')
  rmSync(outdir, { recursive: true, force: true })
  mkdirSync(outdir, { recursive: true })
  await build({
    absWorkingDir: root,
    entryPoints: { ...entries, 'engine.worker': 'workers/engine.worker.ts' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outdir,
    logLevel: 'warning',
  })
}

/** Builds the explorer into `outdir` (default out/web/): index.html, its style, app.js, the engine's worker and the loader's. */
export const buildExplorer = async (outdir: string = join(root, 'out', 'web')): Promise<string> => {
  await bundlePages({ app: 'web/app.ts', 'load.worker': 'web/load.worker.ts' }, outdir)
  for (const f of ['index.html', 'style.css']) copyFileSync(join(root, 'web', f), join(outdir, f))
  return outdir
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.jsonl': 'application/jsonl',
}

/** Serves the files of `dir` on 127.0.0.1:`port` (0: any free port); 404 for anything else. */
export const serveDir = (dir: string, port = 0): Promise<{ readonly server: Server; readonly url: string }> =>
  new Promise((done, fail) => {
    const base = resolve(dir)
    const server = createServer((req, res) => {
      let path = decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname)
      if (path.endsWith('/')) path += 'index.html'
      const file = join(base, normalize(path))
      if (!file.startsWith(base) || !existsSync(file) || !statSync(file).isFile()) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`not found: ${path}`)
        return
      }
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' }).end(readFileSync(file))
    })
    server.once('error', fail)
    server.listen(port, '127.0.0.1', () => {
      const a = server.address()
      done({ server, url: `http://127.0.0.1:${typeof a === 'object' && a !== null ? a.port : port}/` })
    })
  })

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const t0 = performance.now()
  const dir = await buildExplorer()
  const { url } = await serveDir(dir, Number(process.env['PORT'] ?? 5173))
  console.log(`chatfold history explorer: built in ${((performance.now() - t0) / 1000).toFixed(1)} s, serving ${url} (Ctrl-C to stop)`)
}
