/**
 * Where an engine's worker runs: the `EngineHost` a worker is seen through, and the module Web
 * Worker host used in browsers and Deno (Node's `worker_threads` host is in `chatfold/node`).
 *
 * @module
 */
import type { Endpoint } from 'comlink'

// --- hosts ---

/**
 * A running worker as the engine sees it: a Comlink endpoint, a way to hear that it failed (did
 * not load, threw, exited), and a way to end it. `ref`/`unref` (Node) let an idle engine not keep
 * the process alive: the engine refs the worker only while calls are pending.
 *
 * @since 0.1.0
 * @category engine
 */
export type EngineHost = {
  readonly endpoint: Endpoint
  readonly onFailure: (listener: (error: Error) => void) => void
  readonly terminate: () => void
  readonly ref?: () => void
  readonly unref?: () => void
}

const describeError = (event: Event): string => {
  const e = event as { message?: unknown; error?: unknown }
  if (typeof e.message === 'string' && e.message !== '') return e.message
  if (e.error instanceof Error) return e.error.message
  return 'the worker script could not be loaded or threw'
}

/**
 * A module Web Worker running the engine (browsers, Deno). Without `url`, the worker script is the
 * package's own `workers/engine.worker.ts`, referenced as `new URL(…, import.meta.url)` so that
 * bundlers (Vite, webpack) find and emit it; pass `url` where a bundler put it elsewhere.
 *
 * @example
 * import { createEngine, webWorkerHost } from 'chatfold'
 * const engine = createEngine({ mode: 'worker', host: () => webWorkerHost(new URL('/assets/engine.worker.js', location.href)) })
 *
 * @since 0.1.0
 * @category engine
 */
export const webWorkerHost = (url?: string | URL): EngineHost => {
  const worker =
    url === undefined
      ? new Worker(new URL('../../workers/engine.worker.ts', import.meta.url), { type: 'module' })
      : new Worker(url, { type: 'module' })
  const listeners: Array<(error: Error) => void> = []
  const fail = (error: Error): void => {
    for (const l of listeners) l(error)
  }
  worker.addEventListener('error', (event) => {
    // Deno ends the whole process on an unhandled worker error
    event.preventDefault()
    fail(new Error(describeError(event)))
  })
  worker.addEventListener('messageerror', () => fail(new Error('a message from the worker could not be deserialized')))
  return { endpoint: worker, onFailure: (l) => void listeners.push(l), terminate: () => worker.terminate() }
}
