/**
 * The engine's connection to its service: one service (inline) or worker (through Comlink) at a
 * time, every call raced against the connection's failure and the call's signal, so that no call
 * ever hangs. Private to the engine.
 *
 * @module
 */
import { type Endpoint, transfer, wrap } from 'comlink'
import type { Message } from '../message/message.ts'
import type { TokenBreakdown } from '../tokens/message-tokens.ts'
import type { EngineOptions } from './api.ts'
import { type EngineHost, webWorkerHost } from './host.ts'
import type { EncodingName } from '../tokenizer/load.ts'
import type { HistoryAnswer, HistoryOperation, HistoryRequest, SessionAnswer, SessionOperation, SessionRequest, Slice } from './operations.ts'
import { ENGINE_PROTOCOL, type EngineService, type ProgressCallback, type ReadRequest } from './protocol.ts'
import { abortReason } from '../internal/abort.ts'
import { createEngineService } from './service.ts'
import { EngineError, type MessageChange, type RemoteSummarizer } from './types.ts'
import { noop } from '../internal/function.ts'

// --- ports ---

/** The item types of the lists answered in slices, by kind. */
export type Items = { readonly message: Message; readonly change: MessageChange; readonly breakdown: TokenBreakdown }

/** The call of an operation on a history: the service's `history`, at that operation. */
type HistoryCall<K extends HistoryOperation> = (request: HistoryRequest<K>, onProgress?: ProgressCallback, summarize?: RemoteSummarizer) => Promise<HistoryAnswer<K>>
/** The call of an operation on a session: the service's `session`, at that operation. */
type SessionCall<K extends SessionOperation> = (request: SessionRequest<K>, onProgress?: ProgressCallback, summarize?: RemoteSummarizer) => Promise<SessionAnswer<K>>
/** The read of the rest of a list of one kind. */
type ReadCall<T extends keyof Items> = (request: ReadRequest) => Promise<Slice<Items[T]>>

/**
 * The service as the client calls it: its methods that answer one type whatever they are asked,
 * and the calls of each operation and each kind of list. Comlink types a remote by the interface
 * `wrap` is given, and an interface's generic method loses its type parameter there; so in a worker
 * each operation (and each kind of list read) is a `wrap` of its own, typed at it, over one
 * endpoint.
 */
export type Port = {
  readonly service: Pick<EngineService, 'ping' | 'cancel' | 'commit' | 'stage' | 'open' | 'release' | 'close' | 'useCounters' | 'dropCounter'>
  readonly history: { readonly [K in HistoryOperation]: HistoryCall<K> }
  readonly session: { readonly [K in SessionOperation]: SessionCall<K> }
  readonly read: { readonly [T in keyof Items]: ReadCall<T> }
}

/** The port of a service in this thread: its generic methods at each operation. Its lists come whole (no send limits a slice), so there is nothing to read. */
const inlinePort = (s: EngineService): Port => {
  const whole = (): Promise<never> => Promise.reject(new EngineError('session', 'An inline engine answers its lists whole'))
  return {
    service: s,
    history: { estimate: s.history, pruneToolResults: s.history, renderTranscript: s.history, planCompaction: s.history, compact: s.history },
    session: {
      append: s.session,
      tokens: s.session,
      prune: s.session,
      plan: s.session,
      contextTokens: s.session,
      shouldCompact: s.session,
      compact: s.session,
      snapshot: s.session,
      counts: s.session,
    },
    read: { message: whole, change: whole, breakdown: whole },
  }
}

/** One endpoint that any number of `wrap`s listen on, through a single listener on `endpoint` (Node warns past ten). */
const shared = (endpoint: Endpoint): Endpoint => {
  const listeners = new Set<EventListenerOrEventListenerObject>()
  endpoint.addEventListener('message', (event) => {
    for (const l of listeners) {
      if (typeof l === 'function') l(event)
      else l.handleEvent(event)
    }
  })
  return {
    postMessage: (message: unknown, transfers?: Transferable[]) => endpoint.postMessage(message, transfers),
    addEventListener: (_type, listener) => void listeners.add(listener),
    removeEventListener: (_type, listener) => void listeners.delete(listener),
    start: () => endpoint.start?.(),
  }
}

/** The port of a service in a worker, through Comlink: a `wrap` typed at each operation. */
const remotePort = (endpoint: Endpoint): Port => {
  const ep = shared(endpoint)
  const history = <K extends HistoryOperation>() => wrap<{ history: HistoryCall<K> }>(ep).history
  const session = <K extends SessionOperation>() => wrap<{ session: SessionCall<K> }>(ep).session
  const read = <T extends keyof Items>() => wrap<{ read: ReadCall<T> }>(ep).read
  return {
    service: wrap<EngineService>(ep),
    history: {
      estimate: history<'estimate'>(),
      pruneToolResults: history<'pruneToolResults'>(),
      renderTranscript: history<'renderTranscript'>(),
      planCompaction: history<'planCompaction'>(),
      compact: history<'compact'>(),
    },
    session: {
      append: session<'append'>(),
      tokens: session<'tokens'>(),
      prune: session<'prune'>(),
      plan: session<'plan'>(),
      contextTokens: session<'contextTokens'>(),
      shouldCompact: session<'shouldCompact'>(),
      compact: session<'compact'>(),
      snapshot: session<'snapshot'>(),
      counts: session<'counts'>(),
    },
    read: { message: read<'message'>(), change: read<'change'>(), breakdown: read<'breakdown'>() },
  }
}

// --- connections ---

/** A connection: its port (none when it failed to start), the worker's host (none inline), the calls pending on it, and how it failed. */
export type Connection = {
  readonly port: Port | undefined
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
      if (c.host === undefined) void c.port?.service.cancel(callId).catch(noop)
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
  const call = <A>(c: Connection, signal: AbortSignal | undefined, f: (port: Port, callId: number) => Promise<A>): Promise<A> => {
    const disposed = o.disposed()
    if (disposed !== undefined) return Promise.reject(disposed)
    const { port } = c
    if (c.failure !== undefined || port === undefined) return Promise.reject(c.failure)
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
        void port.service.cancel(callId).catch(noop)
      }
      c.pending.set(callId, (e) => {
        if (settle()) reject(e)
      })
      if (c.pending.size === 1) c.host?.ref?.()
      signal?.addEventListener('abort', onAbort, { once: true })
      let p: Promise<A>
      try {
        p = f(port, callId)
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
      const c: Connection = { port: inlinePort(createEngineService()), host: undefined, pending: new Map(), failure: undefined, started: Promise.resolve(), counters: [] }
      return c
    }
    let host: EngineHost | EngineError
    try {
      host = spawn()
    } catch (e) {
      host = new EngineError('load', `Cannot start the engine worker: ${e instanceof Error ? e.message : String(e)}`, { cause: e })
    }
    if (host instanceof EngineError) {
      const c: Connection = { port: undefined, host: undefined, pending: new Map(), failure: host, started: Promise.reject(host), counters: [] }
      c.started.catch(noop)
      return c
    }
    const c: Connection = {
      port: remotePort(host.endpoint),
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
      return s.service.ping()
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
        if (c.failure === undefined) void c.port?.service.dropCounter(index).catch(noop)
      })
      void wrap<EngineService>(counter.endpoint).serve(transfer(channel.port1, [channel.port1])).catch(noop)
    }
    if (ports.length > 0) void call(c, undefined, (s) => s.service.useCounters(transfer({ ports, encoding }, ports))).catch(noop)
  }

  return { call, connect, fail, startCounters }
}
