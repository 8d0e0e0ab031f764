/**
 * `createEngine`: the engine API, the same whether the work runs in a Web Worker, in a host you
 * provide (a `worker_threads` worker from `chatfold/node`, a test channel), or inline. The client
 * side owns what must never go wrong on the main thread: failures reject every pending and later
 * call (never a promise that hangs), every call can be aborted, histories cross in slices small
 * enough not to block a frame, and resident sessions are addressed by handle.
 *
 * @module
 */
import { proxy, wrap } from 'comlink'
import type { Message, Messages } from '../message.ts'
import { DEFAULT_ENCODING } from '../tokens.ts'
import type { Summarizer } from '../compaction/compact.ts'
import type { Engine, EngineOptions, EngineSession } from './api.ts'
import { type EngineHost, webWorkerHost } from './host.ts'
import type { RemoteSummarizer } from './ops.ts'
import { ENGINE_PROTOCOL, type EngineService, type ProgressCallback, type SnapshotSlice } from './protocol.ts'
import { abortReason, now, sliceSizer, slicesOf, yieldToEventLoop } from './schedule.ts'
import { createEngineService } from './service.ts'
import { type CallOptions, EngineError, type EngineProgress, type ProgressOptions, type SessionTokens } from './types.ts'

// --- the engine ---

type Connection = {
  readonly generation: number
  readonly service: EngineService
  readonly host: EngineHost | undefined
  /** Pending calls: how to reject each. */
  readonly pending: Map<number, (error: unknown) => void>
  failure: EngineError | undefined
  started: Promise<void>
}

const hasWorker = (): boolean => typeof Worker === 'function' && typeof import.meta.url === 'string'

const resolveMode = (o: EngineOptions): 'worker' | 'inline' => {
  const mode = o.mode ?? 'auto'
  if (mode !== 'auto') return mode
  return o.host !== undefined || hasWorker() ? 'worker' : 'inline'
}

/** An error from the other side: Comlink rebuilds errors as plain `Error`s with their name. */
const fromService = (e: unknown): unknown =>
  e instanceof Error && e.name === 'EngineError' && !(e instanceof EngineError) ? new EngineError('session', e.message) : e

const noop = (): void => undefined

/** The options that cross to the service: the signal and callbacks stay on this side. */
const plain = <O extends CallOptions & ProgressOptions & { readonly summarize?: Summarizer }>(o: O): Omit<O, 'signal' | 'onProgress' | 'summarize'> => {
  const { signal: _signal, onProgress: _onProgress, summarize: _summarize, ...rest } = o
  return rest
}

const IN_FLIGHT_SLICES = 2

/**
 * Creates an engine. `auto` (the default) runs it in a Web Worker where the runtime has one
 * (browsers, Deno) and inline anywhere else (workerd); on Node pass a `worker_threads` host, or use
 * `createNodeEngine` from `chatfold/node`. The worker starts at once; `ready()` tells when it answers.
 *
 * @example
 * import { createEngine, textMessage } from 'chatfold'
 * const engine = createEngine({ mode: 'auto', encoding: 'o200k_base' })
 * const session = await engine.open('chat-1', [textMessage('user', 'Hello')])
 * await session.append([textMessage('assistant', 'Hi! How can I help?')])
 * const { tokens } = await session.tokens()
 * engine.dispose()
 *
 * @since 0.1.0
 * @category engine
 */
export const createEngine = (options: EngineOptions = {}): Engine => {
  const mode = resolveMode(options)
  const encoding = options.encoding ?? DEFAULT_ENCODING
  const slices = sliceSizer(options.sliceBytes === undefined ? undefined : Math.max(1, Math.floor(options.sliceBytes)))
  const startTimeout = options.startTimeout ?? 30_000
  const remote = mode === 'worker'
  let disposed: EngineError | undefined
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
  }

  const spawn = (): EngineHost | EngineError => {
    if (options.host !== undefined) return options.host()
    if (typeof Worker !== 'function') {
      return new EngineError('unsupported', 'Cannot start the engine worker: this runtime has no Worker (use mode "inline" or "auto", or pass a host; chatfold/node has one for worker_threads)')
    }
    return webWorkerHost()
  }

  /** Runs one call on a connection: raced against the connection's failure and the signal. */
  const call = <A>(c: Connection, signal: AbortSignal | undefined, f: (s: EngineService, callId: number) => Promise<A>): Promise<A> => {
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

  const connect = (generation: number): Connection => {
    if (!remote) {
      const c: Connection = { generation, service: createEngineService(), host: undefined, pending: new Map(), failure: undefined, started: Promise.resolve() }
      return c
    }
    let host: EngineHost | EngineError
    try {
      host = spawn()
    } catch (e) {
      host = new EngineError('load', `Cannot start the engine worker: ${e instanceof Error ? e.message : String(e)}`, { cause: e })
    }
    if (host instanceof EngineError) {
      const c: Connection = { generation, service: undefined as never, host: undefined, pending: new Map(), failure: host, started: Promise.reject(host) }
      c.started.catch(noop)
      return c
    }
    const c: Connection = {
      generation,
      service: wrap<EngineService>(host.endpoint) as unknown as EngineService,
      host,
      pending: new Map(),
      failure: undefined,
      started: Promise.resolve(),
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
      timer = setTimeout(() => fail(c, new EngineError('load', `The engine worker did not answer within ${startTimeout} ms`)), startTimeout)
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

  let current = connect(0)

  /** How many bytes a list sent back may carry per slice: as much as a send (all of it inline). */
  const maxBytes = (): number => (remote ? slices.size() : Infinity)

  /** A callback that can cross to the service: proxied in worker mode, as it is inline. */
  const callback = <F extends (...a: never[]) => unknown>(f: F | undefined): F | undefined =>
    f === undefined ? undefined : remote ? (proxy(((...a: Parameters<F>) => f(...a)) as F) as F) : f

  /** The caller's summariser as the service calls it: with the caller's signal, added on this side. */
  const summarizer = (o: { readonly summarize?: Summarizer; readonly signal?: AbortSignal }): RemoteSummarizer | undefined => {
    const f = o.summarize
    if (f === undefined) return undefined
    return callback((transcript: string, context: { readonly prompt: string }) =>
      f(transcript, o.signal === undefined ? { prompt: context.prompt } : { prompt: context.prompt, signal: o.signal }),
    )
  }

  /** Sends messages to a session: in slices (worker mode), a few in flight, yielding between sends. */
  const send = async (
    c: Connection,
    id: string,
    handle: number,
    ms: Messages,
    signal: AbortSignal | undefined,
    onProgress: ((p: EngineProgress) => void) | undefined,
  ): Promise<SessionTokens> => {
    if (!remote || ms.length === 0) {
      const progress = callback(onProgress === undefined ? undefined : (p: EngineProgress) => onProgress(p))
      return call(c, signal, (s, callId) => s.appendSession(callId, id, handle, ms, progress as ProgressCallback | undefined))
    }
    const inFlight: Array<Promise<SessionTokens>> = []
    let last: SessionTokens | undefined
    let done = 0
    for (const { messages: slice, bytes } of slicesOf(ms, slices.size)) {
      const t0 = now()
      const sent = call(c, signal, (s, callId) => s.appendSession(callId, id, handle, slice))
      // the structured clone of a send happens now, on this thread
      slices.observe(bytes, now() - t0)
      const p = sent.then((r) => {
        done += slice.length
        onProgress?.({ phase: 'open', done, total: ms.length })
        return r
      })
      p.catch(noop)
      inFlight.push(p)
      if (inFlight.length >= IN_FLIGHT_SLICES) last = await (inFlight.shift() as Promise<SessionTokens>)
      else await yieldToEventLoop()
    }
    for (const p of inFlight) last = await p
    return last as SessionTokens
  }

  const makeSession = (c: Connection, id: string, handle: number): EngineSession => {
    let closed = false
    const check = (): EngineError | undefined => {
      if (closed) return new EngineError('session', `Session ${JSON.stringify(id)} is closed`)
      if (current !== c && disposed === undefined) return new EngineError('session', `Session ${JSON.stringify(id)} was lost when the engine restarted; open it again`)
      return undefined
    }
    const on = <A>(signal: AbortSignal | undefined, f: (s: EngineService, callId: number) => Promise<A>): Promise<A> => {
      const e = check()
      return e !== undefined ? Promise.reject(e) : call(c, signal, f)
    }
    /** The whole of a list the service answered in slices: the first slice, then the rest, fetched one by one. */
    const collect = async (first: SnapshotSlice, signal: AbortSignal | undefined): Promise<Messages> => {
      if (first.next === undefined) return first.messages
      const out: Message[] = [...first.messages]
      let from: number | undefined = first.next
      try {
        while (from !== undefined) {
          const at: number = from
          const slice = await on(signal, (s, callId) => s.snapshotSession(callId, id, handle, first.snapshot, at, maxBytes()))
          for (const m of slice.messages) out.push(m)
          from = slice.next
        }
      } catch (e) {
        void c.service.releaseSnapshot(id, handle, first.snapshot).catch(noop)
        throw e
      }
      return out
    }
    return {
      id,
      append: (messages, o = {}) => {
        const e = check()
        return e !== undefined ? Promise.reject(e) : send(c, id, handle, messages, o.signal, undefined)
      },
      tokens: (o = {}) => on(o.signal, (s, callId) => s.sessionTokens(callId, id, handle)),
      prune: async (o = {}) => {
        const { indices, changed, ...rest } = await on(o.signal, (s, callId) => s.pruneSession(callId, id, handle, plain(o), maxBytes()))
        const messages = await collect(changed, o.signal)
        return { ...rest, changes: indices.map((index, i) => ({ index, message: messages[i] as Message })) }
      },
      plan: (o = {}) => on(o.signal, (s, callId) => s.planSession(callId, id, handle, plain(o))),
      compact: (o = {}) => {
        const summarize = summarizer(o)
        const progress = callback(o.onProgress) as ProgressCallback | undefined
        return on(o.signal, (s, callId) => s.compactSession(callId, id, handle, plain(o), maxBytes(), summarize, progress)).then(
          async ({ messages, ...rest }) => ({ ...rest, messages: await collect(messages, o.signal) }),
        )
      },
      snapshot: async (o = {}) => collect(await on(o.signal, (s, callId) => s.snapshotSession(callId, id, handle, undefined, 0, maxBytes())), o.signal),
      close: async (o = {}) => {
        if (closed) return
        closed = true
        if (current !== c || disposed !== undefined || c.failure !== undefined) return
        await call(c, o.signal, (s) => s.closeSession(id, handle).then(noop))
      },
    }
  }

  return {
    mode,
    encoding,
    ready: (o = {}) => {
      const c = current
      if (disposed !== undefined) return Promise.reject(disposed)
      if (o.signal === undefined) return c.started
      return call(c, o.signal, () => c.started)
    },
    estimate: (messages, o = {}) => {
      const progress = callback(o.onProgress)
      return call(current, o.signal, (s, callId) => s.estimate(callId, messages, { encoding: o.encoding ?? encoding }, progress as ProgressCallback | undefined))
    },
    pruneToolResults: (messages, o = {}) =>
      call(current, o.signal, (s, callId) => s.pruneToolResults(callId, messages, { ...plain(o), encoding: o.encoding ?? encoding })),
    buildTranscript: (messages, o = {}) => call(current, o.signal, (s, callId) => s.buildTranscript(callId, messages, plain(o))),
    planCompaction: (messages, o = {}) =>
      call(current, o.signal, (s, callId) => s.planCompaction(callId, messages, { ...plain(o), encoding: o.encoding ?? encoding })),
    compact: (messages, o = {}) => {
      const summarize = summarizer(o)
      const progress = callback(o.onProgress) as ProgressCallback | undefined
      return call(current, o.signal, (s, callId) => s.compact(callId, messages, { ...plain(o), encoding: o.encoding ?? encoding }, summarize, progress))
    },
    open: async (id, messages, o = {}) => {
      const c = current
      const handle = await call(c, o.signal, (s, callId) => s.openSession(callId, id, { encoding: o.encoding ?? encoding }))
      try {
        await send(c, id, handle, messages, o.signal, o.onProgress)
      } catch (e) {
        if (c.failure === undefined) void c.service.closeSession(id, handle).catch(noop)
        throw e
      }
      return makeSession(c, id, handle)
    },
    restart: () => {
      if (disposed !== undefined) return Promise.reject(disposed)
      const old = current
      fail(old, new EngineError('restarted', 'The engine was restarted while this call was pending'))
      current = connect(old.generation + 1)
      return current.started
    },
    dispose: () => {
      if (disposed !== undefined) return
      disposed = new EngineError('disposed', 'The engine was disposed')
      fail(current, disposed)
    },
  }
}
