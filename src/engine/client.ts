/**
 * `createEngine`: the engine API, the same whether the work runs in a Web Worker, in a host you
 * provide (a `worker_threads` worker from `chatfold/node`, a test channel), or inline. The client
 * side owns what must never go wrong on the main thread: failures reject every pending and later
 * call (never a promise that hangs), every call can be aborted, histories cross in slices small
 * enough not to block a frame, and resident sessions are addressed by handle.
 *
 * @module
 */
import { proxy, transfer } from 'comlink'
import type { Messages } from '../message/message.ts'
import { DEFAULT_ENCODING, type EncodingName } from '../tokenizer/load.ts'
import type { Engine, EngineOptions, EngineSession } from './api.ts'
import { type Connection, connections, type Items, type Port, resolveMode } from './connection.ts'
import { windowError } from './ops.ts'
import {
  type CallerSide,
  type CallOf,
  type HistoryAnswer,
  type HistoryMethods,
  type HistoryOperation,
  OPERATIONS,
  type OperationFeatures,
  type Operations,
  type SessionAnswer,
  type SessionMethods,
  type SessionOperation,
  type SessionRef,
  type Slice,
} from './operations.ts'
import type { OpenRequest, ProgressCallback } from './protocol.ts'
import { now, sliceSizer, slicesInFlight, slicesOf, TAIL_SLICE, yieldToEventLoop } from './schedule.ts'
import { throwIfAborted } from '../internal/abort.ts'
import { COMPACT_TIMEOUT, EngineError, type EngineProgress, type RemoteSummarizer } from './types.ts'
import { historyFile, portableFile } from './file.ts'
import { wholeOption } from '../internal/number.ts'
import { noop } from '../internal/function.ts'

// --- the engine ---

type History = Operations['history']
type Session = Operations['session']

/** Any call's options, as the code common to all operations reads them. */
type Loose = CallerSide & { readonly encoding?: EncodingName }

/** The options that cross to the service: the signal, callbacks and the timeout stay on this side. */
const wire = <O extends CallerSide>(o: O): Omit<O, keyof CallerSide> => {
  const { signal: _signal, onProgress: _onProgress, summarize: _summarize, timeout: _timeout, ...rest } = o
  return rest
}

/** Reads the rest of a list answered in slices, of the kind given: answers the whole list. */
type Read = <T extends keyof Items>(kind: T, first: Slice<Items[T]>) => Promise<ReadonlyArray<Items[T]>>

/** An answer taken as it came: what an operation that answers no list in slices gives its caller. */
const same = <A>(answer: A): A => answer

/** The longest timer `setTimeout` keeps (longer ones fire at once). */
const MAX_TIMER = 2_147_483_647

/**
 * Runs `f` with the call's signal; for an operation that calls a summariser, a signal that also
 * aborts with a `TimeoutError` after the call's `timeout` (default `COMPACT_TIMEOUT`).
 */
const timed = <A>(declared: OperationFeatures, o: Loose, f: (signal: AbortSignal | undefined) => Promise<A>): Promise<A> => {
  const ms = o.timeout === undefined || Number.isNaN(o.timeout) ? COMPACT_TIMEOUT : Math.max(0, o.timeout)
  if (declared.summarize !== true || ms > MAX_TIMER) return f(o.signal)
  const outer = o.signal
  const controller = new AbortController()
  const onAbort = (): void => controller.abort(outer?.reason)
  if (outer?.aborted === true) onAbort()
  else outer?.addEventListener('abort', onAbort, { once: true })
  const timer = setTimeout(() => controller.abort(new DOMException(`The compaction did not finish within ${ms} ms`, 'TimeoutError')), ms)
  return f(controller.signal).finally(() => {
    clearTimeout(timer)
    outer?.removeEventListener('abort', onAbort)
  })
}

/**
 * How many workers count by default: one per core as the runtime reports them
 * (`navigator.hardwareConcurrency`) but one, which stays with the page's own thread, at most 4; 1
 * where the runtime does not say. Counting on every core makes the page's own longest task while
 * opening longer for a shorter open (docs/measurements.md has the figures).
 *
 * @example
 * import { createEngine, defaultWorkers } from 'chatfold/engine'
 * const engine = createEngine({ mode: 'auto', workers: Math.min(2, defaultWorkers()) })
 * engine.dispose()
 *
 * @since 0.1.0
 * @category engine
 */
export const defaultWorkers = (): number => {
  const cores = (globalThis as { navigator?: { hardwareConcurrency?: unknown } }).navigator?.hardwareConcurrency
  return typeof cores === 'number' && Number.isFinite(cores) && cores >= 1 ? Math.max(1, Math.min(4, Math.floor(cores) - 1)) : 1
}

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
  const slices = sliceSizer(wholeOption(options.sliceBytes, { fallback: undefined, min: 1 }))
  const remote = mode === 'worker'
  const workers = Math.max(1, Math.floor(options.workers ?? defaultWorkers()))
  const inFlightSlices = slicesInFlight(workers)
  let disposed: EngineError | undefined
  let batchIds = 0

  const { call, connect, fail, startCounters } = connections({
    remote,
    startTimeout: options.startTimeout ?? 30_000,
    disposed: () => disposed,
    ...(options.host === undefined ? {} : { host: options.host }),
  })

  let current = connect()

  /**
   * Starts the counting workers (once per connection) with the first call that loads a tokenizer's
   * tables: the engine's worker loads them then too, so the counters load theirs on the other cores
   * at the same time, and are ready for the first large history. The heuristic needs no tables and
   * is cheaper than a copy to another worker, so an engine that only uses it starts none.
   */
  const pool = (c: Connection, counting: EncodingName): void => {
    if (remote && workers > 1 && counting !== 'heuristic') startCounters(c, workers - 1, counting)
  }

  /** How many bytes a list sent back may carry per slice: as much as a send (all of it inline). */
  const maxBytes = (): number => (remote ? slices.size() : Infinity)

  /** A callback that can cross to the service: proxied in worker mode, as it is inline. `proxy` marks the function it is given: give it one made for the call. */
  const callback = <F extends object>(f: F): F => (remote ? proxy(f) : f)

  /** The callbacks an operation declares, as the service calls them; the caller's summariser gets the call's signal. */
  const callbacks = (declared: OperationFeatures, o: Loose, signal: AbortSignal | undefined): [ProgressCallback | undefined, RemoteSummarizer | undefined] => {
    const { onProgress } = o
    const f = declared.summarize === true ? o.summarize : undefined
    return [
      declared.progress === undefined || onProgress === undefined ? undefined : callback<ProgressCallback>((p) => onProgress(p)),
      f === undefined ? undefined : callback<RemoteSummarizer>((transcript, context) => f(transcript, signal === undefined ? context : { ...context, signal })),
    ]
  }

  /** The whole of a list the service answered in slices: the first slice, then the rest, read one by one. */
  const collect = async <T extends keyof Items>(c: Connection, kind: T, first: Slice<Items[T]>, signal: AbortSignal | undefined): Promise<ReadonlyArray<Items[T]>> => {
    if (first.next === undefined) return first.items
    const out: Array<Items[T]> = [...first.items]
    let from: number | undefined = first.next
    try {
      while (from !== undefined) {
        const at: number = from
        const slice = await call(c, signal, (port, callId) => port.read[kind]({ callId, list: first.list, from: at, maxBytes: maxBytes() }))
        for (const m of slice.items) out.push(m)
        from = slice.next
      }
    } catch (e) {
      void c.port?.service.release({ list: first.list }).catch(noop)
      throw e
    }
    return out
  }

  /**
   * Performs a call: its request, then what `receive` makes of the answer (the rest of a list it
   * answers in slices), then, for one that changes a session (`writes`), its commit; or, when
   * anything after the answer fails or the signal aborts, its undoing, so that a rejected call has
   * changed nothing.
   */
  const perform = async <A, R>(
    c: Connection,
    writes: boolean,
    signal: AbortSignal | undefined,
    send: (port: Port, callId: number) => Promise<A>,
    receive: (answer: A, read: Read) => R | Promise<R>,
  ): Promise<R> => {
    let id = 0
    const answer = await call(c, signal, (port, callId) => {
      id = callId
      return send(port, callId)
    })
    try {
      const result = await receive(answer, (kind, first) => collect(c, kind, first, signal))
      throwIfAborted(signal)
      if (writes) void c.port?.service.commit(id).catch(noop)
      return result
    } catch (e) {
      if (writes) void c.port?.service.cancel(id).catch(noop)
      throw e
    }
  }

  /**
   * Sends messages ahead of the call that takes them, in slices (worker mode), a few in flight,
   * yielding between sends. Answers what the call itself carries: all the messages when they fit in
   * one send (or inline), else the batch they were staged under.
   */
  const stage = async (
    c: Connection,
    encoding: EncodingName,
    ms: Messages,
    signal: AbortSignal | undefined,
    onProgress: ((p: EngineProgress) => void) | undefined,
  ): Promise<{ readonly messages: Messages } | { readonly staged: number }> => {
    if (!remote || ms.length === 0) return { messages: ms }
    const batch = ++batchIds
    // slices in flight, whichever lane counts them: a new one is sent as soon as any is done
    const inFlight = new Set<Promise<void>>()
    let at = 0
    let done = 0
    let sent = 0
    // Near the end, slices shrink to a share of what is left (judged by the bytes per message so
    // far), so that the lanes finish together rather than one counting a full slice while the others wait.
    const size = (): number => (at === 0 ? slices.size() : Math.min(slices.size(), Math.max(TAIL_SLICE, ((sent / at) * (ms.length - at)) / inFlightSlices)))
    try {
      for (const { messages: slice, bytes } of slicesOf(ms, size)) {
        if (at === 0 && slice.length === ms.length) return { messages: ms }
        const from = at
        at += slice.length
        sent += bytes
        const t0 = now()
        const staged = call(c, signal, (port, callId) => port.service.stage({ callId, batch, at: from, encoding, messages: slice }))
        // the structured clone of a send happens now, on this thread
        slices.observe(bytes, now() - t0)
        const p: Promise<void> = staged.then(() => {
          inFlight.delete(p)
          done += slice.length
          onProgress?.({ phase: 'open', done, total: ms.length })
        })
        p.catch(noop)
        inFlight.add(p)
        if (inFlight.size >= inFlightSlices) await Promise.race(inFlight)
        else await yieldToEventLoop()
      }
      await Promise.all(inFlight)
    } catch (e) {
      void c.port?.service.release({ batch }).catch(noop)
      throw e
    }
    return { staged: batch }
  }

  /** Performs an operation on a history. */
  const history = <K extends HistoryOperation>(op: K, messages: Messages, o: CallOf<History[K]>): Promise<HistoryAnswer<K>> => {
    const declared: OperationFeatures = OPERATIONS.history[op]
    const loose: Loose = o
    const c = current
    const counting = loose.encoding ?? encoding
    if (declared.encoding === true) pool(c, counting)
    return timed(declared, loose, (signal) =>
      perform(
        c,
        false,
        signal,
        (port, callId) =>
          port.history[op](
            { op, callId, messages, options: declared.encoding === true ? { ...wire(o), encoding: counting } : wire(o), maxBytes: maxBytes() },
            ...callbacks(declared, loose, signal),
          ),
        same,
      ),
    )
  }

  const historyMethods: HistoryMethods = {
    estimate: (messages, o = {}) => history('estimate', messages, o),
    pruneToolResults: (messages, o = {}) => history('pruneToolResults', messages, o),
    renderTranscript: (messages, o = {}) => history('renderTranscript', messages, o),
    planCompaction: (messages, o = {}) => history('planCompaction', messages, o),
    compact: (messages, o = {}) => history('compact', messages, o),
  }

  /** Opens a session on the service with what `carried` holds (messages, staged ones, or a file); answers its handle once committed. */
  const start = (
    c: Connection,
    id: string,
    sessionEncoding: EncodingName,
    carried: Pick<OpenRequest, 'messages' | 'staged' | 'file' | 'tornTail'>,
    signal: AbortSignal | undefined,
    progress: ProgressCallback | undefined,
  ): Promise<number> => perform(c, true, signal, (port, callId) => port.service.open({ callId, id, encoding: sessionEncoding, ...carried }, progress), same)

  const makeSession = (c: Connection, ref: SessionRef, sessionEncoding: EncodingName): EngineSession => {
    const { id } = ref
    let closed = false
    const check = (): EngineError | undefined => {
      if (closed) return new EngineError('session', `Session ${JSON.stringify(id)} is closed`)
      if (current !== c && disposed === undefined) return new EngineError('session', `Session ${JSON.stringify(id)} was lost when the engine restarted; open it again`)
      return undefined
    }
    /** Resolves once the last call made on this session has sent its request: calls reach the engine in the order they were made. */
    let sent: Promise<void> = Promise.resolve()

    /** Performs an operation on the session, after the calls made on it before; `receive` makes the answer the result. */
    const session = <K extends SessionOperation, R>(op: K, o: CallOf<Session[K]>, receive: (answer: SessionAnswer<K>, read: Read) => R | Promise<R>, messages?: Messages): Promise<R> => {
      const e = check()
      if (e !== undefined) return Promise.reject(e)
      const declared: OperationFeatures = OPERATIONS.session[op]
      const loose: Loose = o
      const before = sent
      let markSent = noop
      sent = new Promise((resolve) => (markSent = resolve))
      return timed(declared, loose, async (signal) => {
        try {
          await before
          const carried = messages === undefined ? {} : await stage(c, sessionEncoding, messages, signal, undefined)
          const send = (port: Port, callId: number): Promise<SessionAnswer<K>> => {
            const p = port.session[op]({ op, callId, session: ref, options: wire(o), maxBytes: maxBytes(), ...carried }, ...callbacks(declared, loose, signal))
            markSent()
            return p
          }
          return await perform(c, declared.writes === true, signal, send, receive)
        } finally {
          markSent()
        }
      })
    }

    const methods: SessionMethods = {
      append: (messages, o = {}) => session('append', o, same, messages),
      tokens: (o = {}) => session('tokens', o, same),
      prune: (o = {}) => session('prune', o, async (a, read) => ({ ...a, changes: await read('change', a.changes) })),
      plan: (o = {}) => session('plan', o, same),
      contextTokens: (o = {}) => session('contextTokens', o, same),
      // its options are required (a window): without them it rejects as the service does a window that is no number
      shouldCompact: (o) => (o === undefined ? Promise.reject(check() ?? windowError(undefined)) : session('shouldCompact', o, same)),
      compact: (o = {}) => session('compact', o, async (a, read) => ({ ...a, messages: await read('message', a.messages) })),
      snapshot: (o = {}) => session('snapshot', o, (a, read) => read('message', a)),
      counts: (o = {}) => session('counts', o, (a, read) => read('breakdown', a)),
    }
    return {
      id,
      ...methods,
      close: async (o = {}) => {
        if (closed) return
        closed = true
        if (current !== c || disposed !== undefined || c.failure !== undefined) return
        await call(c, o.signal, (port) => port.service.close(ref).then(noop))
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
    ...historyMethods,
    open: async (id, messages, o = {}) => {
      const c = current
      const sessionEncoding = o.encoding ?? encoding
      pool(c, sessionEncoding)
      const carried = await stage(c, sessionEncoding, messages, o.signal, o.onProgress)
      const progress = remote || o.onProgress === undefined ? undefined : o.onProgress
      const handle = await start(c, id, sessionEncoding, carried, o.signal, progress)
      if (remote && 'messages' in carried) o.onProgress?.({ phase: 'open', done: messages.length, total: messages.length })
      return makeSession(c, { id, handle }, sessionEncoding)
    },
    openFile: async (id, file, o = {}) => {
      const c = current
      const blob = historyFile(file)
      const sessionEncoding = o.encoding ?? encoding
      pool(c, sessionEncoding)
      const sent = remote ? await portableFile(blob) : blob
      throwIfAborted(o.signal)
      const carried = { file: sent instanceof ArrayBuffer ? transfer(sent, [sent]) : sent, ...(o.tornTail === undefined ? {} : { tornTail: o.tornTail }) }
      const { onProgress } = o
      const handle = await start(c, id, sessionEncoding, carried, o.signal, onProgress === undefined ? undefined : callback<ProgressCallback>((p) => onProgress(p)))
      return makeSession(c, { id, handle }, sessionEncoding)
    },
    restart: () => {
      if (disposed !== undefined) return Promise.reject(disposed)
      const old = current
      fail(old, new EngineError('restarted', 'The engine was restarted while this call was pending'))
      current = connect()
      return current.started
    },
    dispose: () => {
      if (disposed !== undefined) return
      disposed = new EngineError('disposed', 'The engine was disposed')
      fail(current, disposed)
    },
  }
}
