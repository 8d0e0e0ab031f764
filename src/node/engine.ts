/**
 * The engine on Node, in a `worker_threads` worker (chatfold/node). Node 20 has no `Worker`
 * global, so the core's `createEngine` runs inline there unless given this host.
 *
 * @module
 */
import { availableParallelism } from 'node:os'
import { Worker, type WorkerOptions } from 'node:worker_threads'
import type { Engine, EngineOptions } from '../engine/api.ts'
import { createEngine } from '../engine/client.ts'
import type { EngineHost } from '../engine/host.ts'
import { portEndpoint } from './endpoint.ts'

/**
 * Where the worker script is. From the built package it is `engine.worker.js`; when running from
 * source (tests, `tsx`), the `.ts` file, which a worker thread cannot load by itself: loader hooks
 * registered on the main thread do not reach worker threads, so a small bootstrap registers tsx
 * inside the worker first.
 */
const WORKER_URL = new URL('./engine.worker.ts', import.meta.url)

const TS_BOOTSTRAP = `
const { workerData } = require('node:worker_threads')
import(workerData.tsx).then(({ tsImport }) => tsImport(workerData.entry, workerData.parent))
`

/**
 * A worker inherits the process's flags, but one meant for `node --eval` code only would stop it
 * loading, so that one is left out; and where the flags given cannot apply to a worker (V8 flags
 * such as `--trace-gc`), it starts without them rather than not at all.
 */
const newWorker = (target: URL | string, options: WorkerOptions): Worker => {
  const forEval = process.execArgv.some((a) => a.startsWith('--input-type'))
  const flags = forEval ? { execArgv: process.execArgv.filter((a) => !a.startsWith('--input-type')) } : {}
  try {
    return new Worker(target, { ...options, ...flags })
  } catch (e) {
    if ((e as { code?: unknown }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw e
    return new Worker(target, { ...options, execArgv: [] })
  }
}

const startWorker = (url: URL): Worker => {
  if (!url.pathname.endsWith('.ts')) return newWorker(url, {})
  const tsx = import.meta.resolve('tsx/esm/api')
  return newWorker(TS_BOOTSTRAP, { eval: true, workerData: { tsx, entry: url.href, parent: import.meta.url } })
}

/**
 * Options of `nodeWorkerHost`.
 *
 * @since 0.1.0
 * @category engine
 */
export type NodeWorkerHostOptions = {
  /** The worker script; default the package's own engine worker. */
  readonly url?: URL
}

/**
 * Starts the engine in a `worker_threads` worker. The worker is referenced only while calls are
 * pending, so an idle engine does not keep the process alive. A worker that fails to load, throws
 * or exits is reported as failed, so every pending and later call rejects.
 *
 * @example
 * import { createEngine } from 'chatfold'
 * import { nodeWorkerHost } from 'chatfold/node'
 * const engine = createEngine({ mode: 'worker', host: nodeWorkerHost })
 *
 * @since 0.1.0
 * @category engine
 */
export const nodeWorkerHost = (options: NodeWorkerHostOptions = {}): EngineHost => {
  const worker = startWorker(options.url ?? WORKER_URL)
  const listeners: Array<(error: Error) => void> = []
  let ending = false
  const fail = (error: Error): void => {
    for (const l of listeners) l(error)
  }
  worker.on('error', (e: unknown) => fail(e instanceof Error ? e : new Error(String(e))))
  worker.on('messageerror', () => fail(new Error('a message from the worker could not be deserialized')))
  worker.on('exit', (code) => {
    if (!ending) fail(new Error(`the worker exited with code ${code}`))
  })
  return {
    endpoint: portEndpoint(worker),
    onFailure: (l) => void listeners.push(l),
    terminate: () => {
      ending = true
      void worker.terminate()
    },
    ref: () => worker.ref(),
    unref: () => worker.unref(),
  }
}

/**
 * Creates an engine in a `worker_threads` worker (or inline with `mode: 'inline'`): `createEngine`
 * with `nodeWorkerHost`, counting large histories on `os.availableParallelism() - 1` workers (at
 * least 1, at most 4) unless `workers` says otherwise.
 *
 * @example
 * import { textMessage } from 'chatfold'
 * import { createNodeEngine } from 'chatfold/node'
 * const engine = createNodeEngine({ encoding: 'o200k_base' })
 * const { total } = await engine.estimate([textMessage('user', 'Hello')])
 * engine.dispose()
 *
 * @since 0.1.0
 * @category engine
 */
export const createNodeEngine = (options: Omit<EngineOptions, 'host'> & NodeWorkerHostOptions = {}): Engine => {
  const { url, ...rest } = options
  return createEngine({
    mode: 'worker',
    workers: Math.max(1, Math.min(4, availableParallelism() - 1)),
    ...rest,
    host: () => nodeWorkerHost(url === undefined ? {} : { url }),
  })
}
