/**
 * Where an engine's worker runs: the `EngineHost` a worker is seen through, and the module Web Worker host used in browsers and Deno
 * (Node's `worker_threads` host is in `chatfold/node`).
 *
 * @module
 */
import type { Endpoint } from 'comlink'

/**
 * A running worker as the engine sees it: a Comlink endpoint, a way to hear that it failed (did not load, threw, exited), and a way to end
 * it. `ref`/`unref` (Node) let an idle engine not keep the process alive: the engine refs the worker only while calls are pending.
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

/** The one line that fixes a worker the bundler did not emit (the manual's engine chapter, "Bundlers"). */
const WORKER_FIX = "emit chatfold's worker (the chatfold/worker entry) as its own file next to your bundle and pass its URL: " +
  "createEngine({ host: () => webWorkerHost(new URL('./engine.worker.js', import.meta.url)) }); " +
  'Vite and webpack 5 emit it by themselves (see docs/manual/engine.md#bundlers)'

/** `url` made absolute (against the page's), or as it is. */
const absolute = (url: string | URL, base: string | undefined = globalThis.location?.href): string => {
  try {
    return new URL(url, base).href
  } catch {
    return String(url)
  }
}

/**
 * Runs `start` and answers the worker it made with the URL the `Worker` constructor was given: a bundler rewrites the URL inside
 * `new Worker(new URL(…))` (and only there), so it is learnt at the call, through a recording subclass set on the global meanwhile.
 */
const recordingUrl = (start: () => Worker): { readonly worker: Worker; readonly seen: string | URL | undefined } => {
  const g = globalThis as { Worker: typeof Worker }
  const Original = g.Worker
  let seen: string | URL | undefined
  try {
    g.Worker = class extends Original {
      constructor(u: string | URL, o?: WorkerOptions) {
        seen = u
        super(u, o)
      }
    }
  } catch {
    return { worker: start(), seen: undefined }
  }
  try {
    return { worker: start(), seen }
  } finally {
    g.Worker = Original
  }
}

const JS_TYPES = /^(text|application)\/(javascript|ecmascript|x-javascript)\b/i

/** Why a worker script did not start, learnt by fetching it (its `error` event tells nothing): not found, not JavaScript, or it threw. */
const diagnose = async (url: string): Promise<string> => {
  let response: Response
  try {
    response = await fetch(url, { cache: 'no-store' })
  } catch (e) {
    return `the worker script ${url} could not be fetched (${e instanceof Error ? e.message : String(e)}); fix: ${WORKER_FIX}`
  }
  void response.body?.cancel().catch(() => undefined)
  const type = response.headers.get('content-type') ?? ''
  const { status, statusText } = response
  if (!response.ok) return `the worker script ${url} could not be loaded: HTTP ${status}${statusText === '' ? '' : ` ${statusText}`}; fix: ${WORKER_FIX}`
  if (type !== '' && !JS_TYPES.test(type)) {
    return `the worker script ${url} is served as ${type}, not JavaScript (HTTP ${status}: likely a fallback page); fix: ${WORKER_FIX}`
  }
  return `the worker script ${url} loaded (HTTP ${status}) but did not start: an import inside it failed or it threw while loading`
}

/**
 * A module Web Worker running the engine (browsers, Deno). Without `url`, the worker script is the package's own `workers/engine.worker.ts`,
 * referenced as `new URL(…, import.meta.url)` so that bundlers (Vite, webpack 5) find and emit it; where a bundler does not (esbuild,
 * Rollup, `deno bundle`), emit `chatfold/worker` as its own entry and pass its `url`. A script that cannot load fails the engine with the
 * URL tried, the HTTP status and the fix.
 *
 * @example
 * import { createEngine, webWorkerHost } from 'chatfold/engine'
 * const engine = createEngine({ mode: 'worker', host: () => webWorkerHost(new URL('./engine.worker.js', import.meta.url)) })
 *
 * @since 0.1.0
 * @category engine
 */
export const webWorkerHost = (url?: string | URL): EngineHost => {
  const { worker, seen } = recordingUrl(() =>
    url === undefined ? new Worker(new URL('../../workers/engine.worker.ts', import.meta.url), { type: 'module' }) : new Worker(url, { type: 'module' })
  )
  // for messages only: the literal above must stay inside `new Worker(…)` for bundlers to see it
  // (`.ts` when running from source, `.js` when built)
  const base: string = import.meta.url
  const tried = absolute(seen ?? url ?? absolute(`../../workers/engine.worker.${base.endsWith('.ts') ? 'ts' : 'js'}`, base))
  const listeners: Array<(error: Error) => void> = []
  let failed = false
  const fail = (error: Error): void => {
    if (failed) return
    failed = true
    for (const l of listeners) l(error)
  }
  worker.addEventListener('error', (event) => {
    // Deno ends the whole process on an unhandled worker error
    event.preventDefault()
    const e = event as { message?: unknown; error?: unknown }
    const message = typeof e.message === 'string' && e.message !== '' ? e.message : e.error instanceof Error ? e.error.message : undefined
    if (message !== undefined) fail(new Error(`${message} (worker script ${tried})`))
    else void diagnose(tried).then((m) => fail(new Error(m)))
  })
  worker.addEventListener('messageerror', () => fail(new Error('a message from the worker could not be deserialized')))
  return { endpoint: worker, onFailure: (l) => void listeners.push(l), terminate: () => worker.terminate() }
}
