/**
 * `npm run test:workerd`: runs each module worker in `test/runtime/workerd/*.ts` (a default export
 * with `async test()`) inside workerd, the Cloudflare Workers runtime. Each file is bundled with
 * esbuild into one ES module, a capnp config is generated next to it, and `workerd test` runs it;
 * a throw in `test()` fails the run. Pass file names to run only those.
 *
 * No Node compatibility flag is set: the core must run on Web-standard APIs alone.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dir = join(root, 'test', 'runtime', 'workerd')
const workerd = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'workerd.cmd' : 'workerd')
const COMPATIBILITY_DATE = '2026-01-01'

const wanted = process.argv.slice(2).map((a) => basename(a))
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .filter((f) => wanted.length === 0 || wanted.includes(f))
  .sort()
if (files.length === 0) {
  console.error('workerd: no test module found')
  process.exit(1)
}

const config = (name: string, module: string): string =>
  `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "${name}", worker = .worker) ],
);

const worker :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "${module}") ],
  compatibilityDate = "${COMPATIBILITY_DATE}",
);
`

const out = mkdtempSync(join(tmpdir(), 'chatfold-workerd-'))
const failed: string[] = []
try {
  for (const file of files) {
    const name = file.replace(/\.ts$/, '')
    const bundle = `${name}.js`
    await build({
      entryPoints: [join(dir, file)],
      outfile: join(out, bundle),
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      charset: 'utf8',
      target: 'es2022',
      mainFields: ['module', 'main'],
      conditions: ['workerd', 'worker', 'import', 'default'],
      logLevel: 'error',
    })
    writeFileSync(join(out, `${name}.capnp`), config(name, bundle))
    const t0 = performance.now()
    const run = spawnSync(workerd, ['test', `${name}.capnp`], { cwd: out, encoding: 'utf8' })
    const took = ((performance.now() - t0) / 1000).toFixed(1)
    const output = `${run.stdout ?? ''}${run.stderr ?? ''}`.trim()
    if (run.status === 0) {
      console.log(`workerd ✓ ${file} (${took} s)`)
    } else {
      failed.push(file)
      console.error(`workerd ✗ ${file} (exit ${run.status ?? run.signal})\n${output}`)
    }
  }
} finally {
  rmSync(out, { recursive: true, force: true })
}
if (failed.length > 0) {
  console.error(`workerd: ${failed.length} of ${files.length} module(s) failed: ${failed.join(', ')}`)
  process.exit(1)
}
console.log(`workerd: ${files.length} module(s) passed`)
