/**
 * The engine's connection to its service: one service (inline) or worker (through Comlink) at a
 * time, every call raced against the connection's failure and the call's signal, so that no call
 * ever hangs. Private to the engine.
 *
 * @module
 */
import { transfer, wrap } from 'comlink'
import type { EngineOptions } from './api.ts'
import { type EngineHost, webWorkerHost } from './host.ts'
import type { EncodingName } from '../tokenizer/load.ts'
import { ENGINE_PROTOCOL, type EngineService } from './protocol.ts'
import { abortReason } from '../internal/abort.ts'
import { createEngineService } from './service.ts'
import { EngineError } from './types.ts'
import { noop } from '../internal/function.ts'

// --- connections ---

/** A connection: its service, the worker's host (none inline), the calls pending on it, and how it failed. */
export type Connection = {
  readonly service: EngineService
  readonly host: EngineHost | undefined
  /** Pending calls: how to reject each. */
  readonly pending: Map<number, (error: unknown) => void>
  failure: EngineError | undefined
  started: Promise<void>
  /** Counting workers, started with the first history sent in slices (`undefined` until then). */
  counters: ReadonlyArray<EngineHost> | undefined
}

/** Whether this runtime can start a Web Worker. */
export const hasWorker = (): boolean => typeof Worker === 'function' && typeof import.meta.url === 'string'

/** The mode an engine runs in: `auto` resolved to a worker where there is one (or a host), inline elsewhere. */
export const resolveMode = (o: EngineOptions): 'worker' | 'inline' => {
  const mode = o.mode ?? 'auto'
  if (mode !== 'auto') return mode
  return o.host !== undefined || hasWorker() ? 'worker' : 'inline'
}

/** An error from the other side: Comlink rebuilds errors as plain `Error`s with their name and message. */
export const fromService = (e: unknown): unknown => {
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
  /** A worker that has not answered its first call after this many ms has failed to load. */
  readonly startTimeout: number
  /** The error every call rejects with once the engine is disposed. */
  readonly disposed: () => EngineError | undefined
}

/** Makes connections (`connect`), runs calls on them (`call`), and fails them (`fail`). */
export const connections = (o: ConnectionOptions) => {
  let callIds = 0

  const fail = (c: Connection, error: EngineError): void => {
    if (c.failure !== undefined) return
    c.failure = error
    const pending = [...c.pending]
    c.pending.clear()
    for (const [callId, reject] of pending) {
      reject(error)
      if (c.host === undefined) void c.service.cancel(callId).catch(noop)
    }
    c.host?.terminate()
    for (const h of c.counters ?? []) h.terminate()
  }

  const spawn = (): EngineHost | EngineError => {
    if (o.host !== undefined) return o.host()
    if (typeof Worker !== 'function') {
      return new EngineError('unsupported', 'Cannot start the engine worker: this runtime has no Worker (use mode "inline" or "auto", or pass a host; chatfold/node has one for worker_threads)')
    }
    return webWorkerHost()
  }

  /** Runs one call on a connection: raced against the connection's failure and the signal. */
  const call = <A>(c: Connection, signal: AbortSignal | undefined, f: (s: EngineService, callId: number) => Promise<A>): Promise<A> => {
    const disposed = o.disposed()
    if (disposed !== undefined) return Promise.reject(disposed)
    if (c.failure !== undefined) return Promise.reject(c.failure)
    if (signal?.aborted === true) return Promise.reject(abortReason(signal))
    const callId = ++callIds
    return new Promise<A>((resolve, reject) => {
      let settled = false
      const settle = (): boolean => {
        if (settled) return false
        settled = true
        c.pending.delete(callId)
        signal?.removeEventListener('abort', onAbort)
        if (c.pending.size === 0) c.host?.unref?.()
        return true
      }
      const onAbort = (): void => {
        if (!settle()) return
        reject(abortReason(signal as AbortSignal))
        void c.service.cancel(callId).catch(noop)
      }
      c.pending.set(callId, (e) => {
        if (settle()) reject(e)
      })
      if (c.pending.size === 1) c.host?.ref?.()
      signal?.addEventListener('abort', onAbort, { once: true })
      let p: Promise<A>
      try {
        p = f(c.service, callId)
      } catch (e) {
        p = Promise.reject(e)
      }
      p.then(
        (v) => {
          if (settle()) resolve(v)
        },
        (e: unknown) => {
          if (settle()) reject(fromService(e))
        },
      )
    })
  }

  const connect = (): Connection => {
    if (!o.remote) {
      const c: Connection = { service: createEngineService(), host: undefined, pending: new Map(), failure: undefined, started: Promise.resolve(), counters: [] }
      return c
    }
    let host: EngineHost | EngineError
    try {
      host = spawn()
    } catch (e) {
      host = new EngineError('load', `Cannot start the engine worker: ${e instanceof Error ? e.message : String(e)}`, { cause: e })
    }
    if (host instanceof EngineError) {
      const c: Connection = { service: undefined as never, host: undefined, pending: new Map(), failure: host, started: Promise.reject(host), counters: [] }
      c.started.catch(noop)
      return c
    }
    const c: Connection = {
      service: wrap<EngineService>(host.endpoint) as unknown as EngineService,
      host,
      pending: new Map(),
      failure: undefined,
      started: Promise.resolve(),
      counters: undefined,
    }
    let answered = false
    host.onFailure((error) =>
      fail(
        c,
        answered
          ? new EngineError('crashed', `The engine worker died: ${error.message}`, { cause: error })
          : new EngineError('load', `The engine worker failed to load: ${error.message}`, { cause: error }),
      ),
    )
    host.unref?.()
    let timer: ReturnType<typeof setTimeout> | undefined
    c.started = call(c, undefined, (s) => {
      timer = setTimeout(() => fail(c, new EngineError('load', `The engine worker did not answer within ${o.startTimeout} ms`)), o.startTimeout)
      return s.ping()
    }).then(
      (protocol) => {
        clearTimeout(timer)
        answered = true
        if (protocol !== ENGINE_PROTOCOL) {
          const e = new EngineError('load', `The engine worker speaks protocol ${String(protocol)}, this client ${ENGINE_PROTOCOL}: they come from different versions`)
          fail(c, e)
          throw e
        }
      },
      (e: unknown) => {
        clearTimeout(timer)
        throw e
      },
    )
    c.started.catch(noop)
    return c
  }

  /**
   * Starts `count` counting workers for a worker connection (once), with the same host factory,
   * and connects each to the connection's service through a `MessageChannel` of its own, so that
   * slices go from the service to a counter and back without crossing this thread. A counter is an
   * accelerator: one that does not start or dies is dropped, and the service counts its slice
   * itself. A factory that answers the connection's own worker again (one host for every call)
   * gets no counters.
   */
  const startCounters = (c: Connection, count: number, encoding: EncodingName): void => {
    if (c.counters !== undefined || c.failure !== undefined) return
    const hosts: EngineHost[] = []
    const ports: MessagePort[] = []
    c.counters = hosts
    for (let i = 0; i < count; i++) {
      let host: EngineHost | EngineError
      try {
        host = spawn()
      } catch {
        break
      }
      if (host instanceof EngineError) break
      if (host === c.host || host.endpoint === c.host?.endpoint) break
      const index = hosts.length
      const channel = new MessageChannel()
      hosts.push(host)
      ports.push(channel.port2)
      host.unref?.()
      const counter = host
      counter.onFailure(() => {
        counter.terminate()
        if (c.failure === undefined) void c.service.dropCounter(index).catch(noop)
      })
      void wrap<EngineService>(counter.endpoint).serve(transfer(channel.port1, [channel.port1])).catch(noop)
    }
    if (ports.length > 0) void call(c, undefined, (s) => s.useCounters(transfer({ ports, encoding }, ports))).catch(noop)
  }

  return { call, connect, fail, startCounters }
}
