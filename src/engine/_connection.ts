/**
 * The engine's connection to its service: one service (inline) or worker (one Comlink `wrap`) at a time, with its counting workers;
 * every call raced against the connection's failure and the call's signal, so that none ever hangs. Private to the engine.
 *
 * @module
 */
import { transfer, wrap } from 'comlink'
import type { EncodingName } from '../tokenizer/load.ts'
import { type EngineHost, webWorkerHost } from './host.ts'
import { createEngineService } from './service.ts'
import { ENGINE_PROTOCOL, type EngineService, type ServicePort } from './operations.ts'
import { abortReason } from '../internal/abort.ts'
import { EngineError } from './types.ts'
import { noop } from '../internal/function.ts'

/** An error from the other side: Comlink rebuilds errors as plain `Error`s with their name and message. */
const fromService = (e: unknown): unknown => {
  if (!(e instanceof Error) || e instanceof EngineError) return e
  if (e.name === 'EngineError') return new EngineError('session', e.message)
  if (e.name === 'TypeError' && !(e instanceof TypeError)) return new TypeError(e.message)
  return e
}

/** A connection: its service (none when it failed to start), the worker's host (none inline), the calls pending on it, and how it failed. */
export type Connection = {
  readonly port: ServicePort | undefined
  readonly host: EngineHost | undefined
  readonly pending: Set<{ readonly callId: number; readonly reject: (error: unknown) => void }>
  failure: EngineError | undefined
  started: Promise<void>
  /** Counting workers, started with the first call that counts with a tokenizer (`undefined` until then). */
  counters: ReadonlyArray<EngineHost> | undefined
}

/** What the connections of an engine are made with. */
export type ConnectionOptions = {
  /** Whether the service runs in a worker. */
  readonly remote: boolean
  readonly host: (() => EngineHost) | undefined
  readonly startTimeout: number
  /** How many workers count (the engine's own and `workers - 1` counting workers). */
  readonly workers: number
  /** The error every call rejects with once the engine is disposed. */
  readonly disposed: () => EngineError | undefined
}

/** Makes connections (`connect`), runs calls on them (`call`), fails them (`fail`) and starts their counting workers (`startCounters`). */
export const connections = (o: ConnectionOptions) => {
  const { remote, startTimeout, workers } = o

  const fail = (c: Connection, error: EngineError): void => {
    if (c.failure !== undefined) return
    c.failure = error
    // each rejection takes its call out of `pending`
    for (const { callId, reject } of [...c.pending]) {
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
      if (typeof Worker === 'function') return webWorkerHost()
      return new EngineError(
        'unsupported',
        'Cannot start the engine worker: this runtime has no Worker (use mode "inline" or "auto", or pass a host; chatfold/node has one for worker_threads)',
      )
    } catch (e) {
      return new EngineError('load', `Cannot start the engine worker: ${e instanceof Error ? e.message : String(e)}`, { cause: e })
    }
  }

  /**
   * Runs one call (`callId` 0: not cancellable), raced against the connection's failure and the signal. An abort cancels it on the service
   * and rejects at once, or (`answer`) when the service answers: a change made before the cancel arrived is never lost to the caller.
   */
  const call = <A>(
    c: Connection,
    callId: number,
    signal: AbortSignal | undefined,
    onAbort: 'at once' | 'answer',
    f: (port: ServicePort) => Promise<A>,
  ): Promise<A> => {
    const { port } = c
    if (o.disposed() !== undefined || c.failure !== undefined || port === undefined) return Promise.reject(o.disposed() ?? c.failure)
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
      new Promise<A>((run) => run(f(port))).then(
        (v) => settle() && resolve(v),
        (e: unknown) => settle() && reject(aborted ? abortReason(signal as AbortSignal) : fromService(e)),
      )
    })
  }

  /** Starts a service: inline, or in a worker wrapped once, which must answer a first `ping` in time with this version's protocol. */
  const connect = (): Connection => {
    const c: Connection = { port: undefined, host: undefined, pending: new Set(), failure: undefined, started: Promise.resolve(), counters: [] }
    if (!remote) return { ...c, port: createEngineService() }
    const host = spawn()
    if (host instanceof EngineError) {
      c.failure = host
      c.started = Promise.reject(host)
      c.started.catch(noop)
      return c
    }
    const worker: Connection = { ...c, port: wrap<EngineService>(host.endpoint), host, counters: undefined }
    let answered = false
    host.onFailure((error) => {
      const [code, what] = answered ? (['crashed', 'died'] as const) : (['load', 'failed to load'] as const)
      fail(worker, new EngineError(code, `The engine worker ${what}: ${error.message}`, { cause: error }))
    })
    host.unref?.()
    const timer = setTimeout(() => fail(worker, new EngineError('load', `The engine worker did not answer within ${startTimeout} ms`)), startTimeout)
    worker.started = call(worker, 0, undefined, 'at once', (s) => s.ping()).finally(() => clearTimeout(timer)).then((protocol) => {
      answered = true
      if (protocol === ENGINE_PROTOCOL) return
      const e = new EngineError(
        'load',
        `The engine worker speaks protocol ${String(protocol)}, this client ${ENGINE_PROTOCOL}: they come from different versions`,
      )
      fail(worker, e)
      throw e
    })
    worker.started.catch(noop)
    return worker
  }

  /**
   * Starts the counting workers (`workers - 1`, once per connection) with the first call that counts with a tokenizer (the heuristic loads
   * no tables), each connected to the service through a `MessageChannel` of its own, so that chunks go from the service to a counter and
   * back without crossing this thread. A counter that does not start or dies is dropped and the service counts its chunk itself; a factory
   * that answers the engine's own worker again gets no counters.
   */
  const startCounters = (c: Connection, counting: EncodingName): void => {
    if (!remote || workers < 2 || counting === 'heuristic' || c.counters !== undefined || c.failure !== undefined) return
    const hosts: EngineHost[] = []
    const ports: MessagePort[] = []
    c.counters = hosts
    for (let i = 1; i < workers; i++) {
      const counter = spawn()
      if (counter instanceof EngineError || counter === c.host || counter.endpoint === c.host?.endpoint) break
      const index = hosts.length
      const { port1, port2 } = new MessageChannel()
      hosts.push(counter)
      ports.push(port2)
      counter.unref?.()
      counter.onFailure(() => {
        counter.terminate()
        if (c.failure === undefined) void c.port?.counting.drop(index).catch(noop)
      })
      void wrap<EngineService>(counter.endpoint).counting.serve(transfer(port1, [port1])).catch(noop)
    }
    if (ports.length > 0) void call(c, 0, undefined, 'at once', (s) => s.counting.use(transfer(ports, ports), counting)).catch(noop)
  }

  return { call, connect, fail, startCounters }
}
