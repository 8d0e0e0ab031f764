/**
 * Serving a Worker under `workerd serve` for the tests and the bench: bundle it with esbuild (the
 * `chatfold` imports resolved to the sources), write it beside a capnp config, and start workerd
 * on a port of 127.0.0.1 with its Durable Objects on a directory, restartable on the same data.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { type ChildProcess, spawn } from 'node:child_process'
import { freePort, servedEnv, type ServedStore, stopChild, waitUntilUp } from '../../support/served-store.ts'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
const workerd = join(ROOT, 'node_modules', '.bin', 'workerd')

/** Bundles a Worker entry into `dir/worker.js`. */
export const bundleWorker = async (entry: string, dir: string): Promise<void> => {
  await build({
    entryPoints: [entry],
    outfile: join(dir, 'worker.js'),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    charset: 'utf8',
    target: 'es2022',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'import', 'default'],
    alias: { 'chatfold/cloudflare': join(ROOT, 'src', 'cloudflare', 'mod.ts'), chatfold: join(ROOT, 'src', 'mod.ts') },
    logLevel: 'error',
  })
}

export type Workerd = ServedStore & {
  readonly origin: () => string
  readonly dir: string
  /** A second `workerd serve` of the same config on the same storage, on a port of its own. */
  readonly second: () => Promise<ServedStore>
}

/**
 * Serves `entry` with the capnp config of examples/cloudflare (Durable Objects on disk) or a plain
 * one (`durable: false`), on a free port. `path` is the store's base path (`/stores/<id>`).
 */
export const serveWorkerd = async (entry: string, options: { readonly durable: boolean; readonly path?: string }): Promise<Workerd> => {
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-workerd-'))
  mkdirSync(join(dir, 'data'))
  await bundleWorker(entry, dir)
  const config = options.durable
    ? readFileSync(join(ROOT, 'examples', 'cloudflare', 'chatfold.capnp'), 'utf8')
    : `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:8787", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "worker.js") ],
  compatibilityDate = "2026-01-01",
);
`
  writeFileSync(join(dir, 'chatfold.capnp'), config)
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  let current = await spawnWorkerd(workerd, dir, port, options.durable)
  await waitUntilUp(origin, 30_000)
  return {
    dir,
    origin: () => origin,
    url: () => `${origin}${options.path ?? ''}`,
    restart: async (how) => {
      await stopChild(current, how === 'kill' ? 'SIGKILL' : 'SIGTERM')
      current = await spawnWorkerd(workerd, dir, port, options.durable)
      await waitUntilUp(origin, 30_000)
    },
    stop: () => stopChild(current, 'SIGKILL'),
    second: async () => {
      const other = await freePort()
      const at = `http://127.0.0.1:${other}`
      let child = await spawnWorkerd(workerd, dir, other, options.durable)
      await waitUntilUp(at, 30_000)
      return {
        url: () => `${at}${options.path ?? ''}`,
        restart: async (how) => {
          await stopChild(child, how === 'kill' ? 'SIGKILL' : 'SIGTERM')
          child = await spawnWorkerd(workerd, dir, other, options.durable)
          await waitUntilUp(at, 30_000)
        },
        stop: () => stopChild(child, 'SIGKILL'),
      }
    },
  }
}

/** Starts `workerd serve` on the config in `dir`; its output is drained, not kept. */
const spawnWorkerd = async (bin: string, dir: string, port: number, durable: boolean): Promise<ChildProcess> => {
  const args = ['serve', 'chatfold.capnp', '--socket-addr', `http=127.0.0.1:${port}`, ...(durable ? ['--directory-path', `storage=${join(dir, 'data')}`] : [])]
  return spawn(bin, args, { cwd: dir, env: servedEnv(), stdio: ['ignore', 'ignore', 'inherit'] })
}
