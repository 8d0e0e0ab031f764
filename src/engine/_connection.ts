/**
 * The engine's connection to its service: one service (inline) or worker (one Comlink `wrap`) at
 * a time, every call raced against the connection's failure and the call's signal, so that no call
 * ever hangs. Private to the engine.
 *
 * @module
 */
import { transfer, wrap } from 'comlink'
import type { EngineOptions } from './api.ts'
import { type EngineHost, webWorkerHost } from './host.ts'
import type { EncodingName } from '../tokenizer/load.ts'
import { ENGINE_PROTOCOL, type EngineService, type ServicePort } from './operations.ts'
import { abortReason } from '../internal/abort.ts'
import { createEngineService } from './service.ts'
import { EngineError } from './types.ts'
import { noop } from '../internal/function.ts'

/** A connection: its service (none when it failed to start), the worker's host (none inline), the calls pending on it, and how it failed. */
export type Connection = {
  readonly port: ServicePort | undefined
  readonly host: EngineHost | undefined
  /** Pending calls: their ids and how to reject each. */
  readonly pending: Set<{ readonly callId: number; readonly reject: (error: unknown) => void }>
  failure: EngineError | undefined
  started: Promise<void>
  /** Counting workers, started with the first call that counts with a tokenizer (`undefined` until then). */
  counters: ReadonlyArray<EngineHost> | undefined
}

/** The mode an engine runs in: `auto` resolved to a worker where there is one (or a host), inline elsewhere. */
export const resolveMode = (o: EngineOptions): 'worker' | 'inline' => {
  const mode = o.mode ?? 'auto'
  if (mode !== 'auto') return mode
  return o.host !== undefined || (typeof Worker === 'function' && typeof import.meta.url === 'string') ? 'worker' : 'inline'
}

/** An error from the other side: Comlink rebuilds errors as plain `Error`s with their name and message. */
const fromService = (e: unknown): unknown => {
  if (!(e instanceof Error) || e instanceof EngineError) return e
  if (e.name === 'EngineError') return new EngineError('session', e.message)
  if (e.name === 'TypeError' && !(e instanceof TypeError)) return new TypeError(e.message)
  return e
}

/** Options of `connections`. */
export type ConnectionOptions = {
  /** Whether the service runs in a worker. */
  readonly remote: boolean
  readonly host?: () => EngineHost
  /** As `EngineOptions.startTimeout`. */
  readonly startTimeout: number
  /** The error every call rejects with once the engine is disposed. */
  readonly disposed: () => EngineError | undefined
}

/** How a call meets its signal's abort: `at once` rejects then (its work is cancelled); `answer` cancels it and takes what the service answers, a change it has made included. */
export type OnAbort = 'at once' | 'answer'

/** Makes connections (`connect`), runs calls on them (`call`), and fails them (`fail`). */
export const connections = (o: ConnectionOptions) => {
  const fail = (c: Connection, error: EngineError): void => {
    if (c.failure !== undefined) return
    c.failure = error
    const pending = [...c.pending]
    c.pending.clear()
    for (const { callId, reject } of pending) {
      reject(error)
      if (c.host === undefined && callId > 0) void c.port?.cancel(callId).catch(noop)
    }
    c.host?.terminate()
    for (const h of c.counters ?? []) h.terminate()
  }

  /** Starts a worker: its host, or why it cannot start. */
  const spawn = (): EngineHost | EngineError => {
    try {
      if (o.host !== undefined) return o.host()
      if (typeof Worker !== 'function') {
        return new EngineError(
          'unsupported',
          'Cannot start the engine worker: this runtime has no Worker (use mode "inline" or "auto", or pass a host; chatfold/node has one for worker_threads)',
        )
      }
      return webWorkerHost()
    } catch (e) {
      return new EngineError('load', `Cannot start the engine worker: ${e instanceof Error ? e.message : String(e)}`, { cause: e })
    }
  }

  /**
   * Runs one call (`callId` 0: one that cannot be cancelled) on a connection, raced against the
   * connection's failure and the signal. On abort it cancels the call on the service, and rejects
   * at once, or (`answer`) when the service does: a call the service answered before the cancel
   * reached it resolves, so that a change it made is never lost to the caller.
   */
  const call = <A>(c: Connection, callId: number, signal: AbortSignal | undefined, onAbort: OnAbort, f: (port: ServicePort) => Promise<A>): Promise<A> => {
    const disposed = o.disposed()
    if (disposed !== undefined) return Promise.reject(disposed)
    const { port } = c
    if (c.failure !== undefined || port === undefined) return Promise.reject(c.failure)
    if (signal?.aborted === true) return Promise.reject(abortReason(signal))
    return new Promise<A>((resolve, reject) => {
      let settled = false
      let aborted = false
      const entry = { callId, reject: (e: unknown) => settle() && reject(e) }
      const settle = (): boolean => {
        if (settled) return false
        settled = true
        c.pending.delete(entry)
        signal?.removeEventListener('abort', abort)
        if (c.pending.size === 0) c.host?.unref?.()
        return true
      }
      const abort = (): void => {
        aborted = true
        if (callId > 0) void port.cancel(callId).catch(noop)
        if (onAbort === 'at once' && settle()) reject(abortReason(signal as AbortSignal))
      }
      c.pending.add(entry)
      if (c.pending.size === 1) c.host?.ref?.()
      signal?.addEventListener('abort', abort, { once: true })
      let p: Promise<A>
      try {
        p = f(port)
      } catch (e) {
        p = Promise.reject(e)
      }
      p.then(
        (v) => settle() && resolve(v),
        (e: unknown) => settle() && reject(aborted ? abortReason(signal as AbortSignal) : fromService(e)),
      )
    })
  }

  const connect = (): Connection => {
    if (!o.remote) return { port: createEngineService(), host: undefined, pending: new Set(), failure: undefined, started: Promise.resolve(), counters: [] }
    const host = spawn()
    if (host instanceof EngineError) {
      const c: Connection = { port: undefined, host: undefined, pending: new Set(), failure: host, started: Promise.reject(host), counters: [] }
      c.started.catch(noop)
      return c
    }
    const port: ServicePort = wrap<EngineService>(host.endpoint)
    const c: Connection = { port, host, pending: new Set(), failure: undefined, started: Promise.resolve(), counters: undefined }
    let answered = false
    host.onFailure((error) =>
      fail(
        c,
        answered
          ? new EngineError('crashed', `The engine worker died: ${error.message}`, { cause: error })
          : new EngineError('load', `The engine worker failed to load: ${error.message}`, { cause: error }),
      )
    )
    host.unref?.()
    let timer: ReturnType<typeof setTimeout> | undefined
    c.started = call(c, 0, undefined, 'at once', (s) => {
      timer = setTimeout(() => fail(c, new EngineError('load', `The engine worker did not answer within ${o.startTimeout} ms`)), o.startTimeout)
      return s.ping()
    }).finally(() => clearTimeout(timer)).then((protocol) => {
      answered = true
      if (protocol !== ENGINE_PROTOCOL) {
        const e = new EngineError(
          'load',
          `The engine worker speaks protocol ${String(protocol)}, this client ${ENGINE_PROTOCOL}: they come from different versions`,
        )
        fail(c, e)
        throw e
      }
    })
    c.started.catch(noop)
    return c
  }

  /**
   * Starts `count` counting workers for a worker connection (once), with the same host factory,
   * and connects each to the connection's service through a `MessageChannel` of its own, so that
   * chunks go from the service to a counter and back without crossing this thread. A counter is an
   * accelerator: one that does not start or dies is dropped, and the service counts its chunk
   * itself. A factory that answers the connection's own worker again gets no counters.
   */
  const startCounters = (c: Connection, count: number, encoding: EncodingName): void => {
    if (c.counters !== undefined || c.failure !== undefined) return
    const hosts: EngineHost[] = []
    const ports: MessagePort[] = []
    c.counters = hosts
    for (let i = 0; i < count; i++) {
      const host = spawn()
      if (host instanceof EngineError || host === c.host || host.endpoint === c.host?.endpoint) break
      const index = hosts.length
      const channel = new MessageChannel()
      hosts.push(host)
      ports.push(channel.port2)
      host.unref?.()
      const counter = host
      counter.onFailure(() => {
        counter.terminate()
        if (c.failure === undefined) void c.port?.counting.drop(index).catch(noop)
      })
      void wrap<EngineService>(counter.endpoint).counting.serve(transfer(channel.port1, [channel.port1])).catch(noop)
    }
    if (ports.length > 0) void call(c, 0, undefined, 'at once', (s) => s.counting.use(transfer(ports, ports), encoding)).catch(noop)
  }

  return { call, connect, fail, startCounters }
}
