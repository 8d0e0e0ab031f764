/**
 * `npm run build`: the package as npm users get it, in `dist/`. Plain `tsc` (tsconfig.build.json)
 * emits JavaScript and declarations, rewriting relative `./x.ts` imports to `./x.js`; then two
 * rewrites tsc does not do:
 * - worker URLs: `new URL('…/engine.worker.ts', import.meta.url)` is a string literal to tsc, so it
 *   becomes `….js` here (the literal keeps its shape, which bundlers recognise);
 * - fp-ts and io-ts subpaths: `fp-ts/Either` resolves through a folder's package.json, which
 *   bundlers and TypeScript follow but Node's ESM loader does not. The built modules import
 *   `#fp-ts/Either`, which package.json's `imports` maps to `fp-ts/lib/Either.js` (CommonJS) for
 *   Node and to `fp-ts/es6/Either.js` (ES modules) everywhere else: a bundler's dev server that
 *   serves the worker's modules as they are (Vite's) gets ES modules it can serve, and a bundle
 *   holds one copy of fp-ts, the one the user's own `fp-ts/Either` resolves to. The declarations
 *   import `fp-ts/lib/Either.js` (the same declarations) instead.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dist = join(root, 'dist')
const tsc = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'tsc.cmd' : 'tsc')

rmSync(dist, { recursive: true, force: true })
const t0 = performance.now()
const run = spawnSync(tsc, ['-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' })
if (run.status !== 0) {
  console.error(`build: tsc failed (exit ${run.status ?? run.signal})`)
  process.exit(1)
}

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? walk(p) : [p]
  })

const WORKER_URL = /new URL\((['"])([^'"]+)\.ts\1,\s*import\.meta\.url\)/g
const SUBPATH = /(\bfrom\s+|\bimport\(\s*|\bimport\s+)(['"])(fp-ts|io-ts)\/([A-Za-z]+)\2/g

let workerUrls = 0
let subpaths = 0
for (const file of walk(dist)) {
  if (!file.endsWith('.js') && !file.endsWith('.d.ts')) continue
  const src = readFileSync(file, 'utf8')
  const out = src
    .replace(WORKER_URL, (_, q: string, path: string) => {
      workerUrls++
      return `new URL(${q}${path}.js${q}, import.meta.url)`
    })
    .replace(SUBPATH, (_, lead: string, q: string, pkg: string, mod: string) => {
      subpaths++
      return file.endsWith('.d.ts') ? `${lead}${q}${pkg}/lib/${mod}.js${q}` : `${lead}${q}#${pkg}/${mod}${q}`
    })
  if (out !== src) writeFileSync(file, out)
}
// the core's Web Worker and the Node worker: both must point at emitted .js files
if (workerUrls < 2) {
  console.error(`build: expected the worker URLs of src/engine/host.ts and src/node/engine.ts, rewrote ${workerUrls}`)
  process.exit(1)
}
// every entry point of package.json must have been emitted
const exportsMap = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, { types: string; default: string }> }).exports
const missing = Object.entries(exportsMap).flatMap(([key, e]) => [e.default, e.types].filter((f) => !existsSync(join(root, f))).map((f) => `${key}: ${f}`))
if (missing.length > 0) {
  console.error(`build: entry points not emitted: ${missing.join(', ')}`)
  process.exit(1)
}
const files = walk(dist).filter((f) => f.endsWith('.js')).length
console.log(
  `build: ${files} modules in ${relative(root, dist)}/ (${workerUrls} worker URLs, ${subpaths} fp-ts/io-ts subpath imports rewritten) in ${
    ((performance.now() - t0) / 1000).toFixed(1)
  } s`,
)
