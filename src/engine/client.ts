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
import type { Summarizer } from '../compaction/compact.ts'
import type { Engine, EngineOptions, EngineSession } from './api.ts'
import { type Connection, connections, resolveMode } from './connection.ts'
import { COMPACT_TIMEOUT, type RemoteSummarizer } from './ops.ts'
import {
  type HistoryMethods,
  type HistoryOperation,
  type Item,
  OPERATIONS,
  type OperationFeatures,
  type SessionMethods,
  type SessionOperation,
  type SessionRef,
  type Slice,
} from './operations.ts'
import type { EngineService, OpenRequest, ProgressCallback } from './protocol.ts'
import { now, sliceSizer, slicesInFlight, slicesOf, TAIL_SLICE, yieldToEventLoop } from './schedule.ts'
import { throwIfAborted } from '../internal/abort.ts'
import { EngineError, type EngineProgress } from './types.ts'
import { historyFile, portableFile } from './file.ts'
import { wholeOption } from '../internal/number.ts'
import { noop } from '../internal/function.ts'

// --- the engine ---

/** Any call's options, as the generic code reads them. */
type Loose = {
  readonly signal?: AbortSignal
  readonly onProgress?: (p: EngineProgress) => void
  readonly summarize?: Summarizer
  readonly timeout?: number
  readonly encoding?: EncodingName
}

/** The options that cross to the service: the signal, callbacks and the timeout stay on this side. */
const plain = (o: Loose): object => {
  const { signal: _signal, onProgress: _onProgress, summarize: _summarize, timeout: _timeout, ...rest } = o
  return rest
}

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
 * @since 0.2.0
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

  /** A callback that can cross to the service: proxied in worker mode, as it is inline. */
  const callback = <F extends (...a: never[]) => unknown>(f: F | undefined): F | undefined =>
    f === undefined ? undefined : remote ? (proxy(((...a: Parameters<F>) => f(...a)) as F) as F) : f

  /** The callbacks an operation declares, as the service calls them; the caller's summariser gets the call's signal. */
  const callbacks = (declared: OperationFeatures, o: Loose, signal: AbortSignal | undefined): [ProgressCallback | undefined, RemoteSummarizer | undefined] => {
    const progress = declared.progress === undefined ? undefined : (callback(o.onProgress) as ProgressCallback | undefined)
    const f = declared.summarize === true ? o.summarize : undefined
    const summarize =
      f === undefined
        ? undefined
        : callback<RemoteSummarizer>((transcript, context) => f(transcript, signal === undefined ? context : { ...context, signal }))
    return [progress, summarize]
  }

  /** The whole of a list the service answered in slices: the first slice, then the rest, read one by one. */
  const collect = async (c: Connection, first: Slice<Item>, signal: AbortSignal | undefined): Promise<ReadonlyArray<Item>> => {
    if (first.next === undefined) return first.items
    const out: Item[] = [...first.items]
    let from: number | undefined = first.next
    try {
      while (from !== undefined) {
        const at: number = from
        const slice = await call(c, signal, (s, callId) => s.read({ callId, list: first.list, from: at, maxBytes: maxBytes() }))
        for (const m of slice.items) out.push(m)
        from = slice.next
      }
    } catch (e) {
      void c.service.release({ list: first.list }).catch(noop)
      throw e
    }
    return out
  }

  /**
   * Performs a declared operation: its request, the rest of the list it answers in slices, then,
   * for one that changes a session, its commit; or, when anything after the answer fails or the
   * signal aborts, its undoing, so that a rejected call has changed nothing.
   */
  const perform = async (c: Connection, declared: OperationFeatures, signal: AbortSignal | undefined, send: (s: EngineService, callId: number) => Promise<unknown>): Promise<unknown> => {
    let id = 0
    const answer = await call(c, signal, (s, callId) => {
      id = callId
      return send(s, callId)
    })
    try {
      const { sliced } = declared
      const result =
        sliced === undefined
          ? answer
          : sliced === 'all'
            ? await collect(c, answer as Slice<Item>, signal)
            : { ...(answer as object), [sliced]: await collect(c, (answer as Record<string, Slice<Item>>)[sliced] as Slice<Item>, signal) }
      throwIfAborted(signal)
      if (declared.writes === true) void c.service.commit(id).catch(noop)
      return result
    } catch (e) {
      if (declared.writes === true) void c.service.cancel(id).catch(noop)
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
        const staged = call(c, signal, (s, callId) => s.stage({ callId, batch, at: from, encoding, messages: slice }))
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
      void c.service.release({ batch }).catch(noop)
      throw e
    }
    return { staged: batch }
  }

  /** The public method of a declared operation: `(messages, options?)` or `(options?)`. */
  const method = (declared: OperationFeatures, f: (messages: Messages | undefined, o: Loose) => Promise<unknown>): ((...a: ReadonlyArray<unknown>) => Promise<unknown>) =>
    declared.messages === true ? (messages, o = {}) => f(messages as Messages, o as Loose) : (o = {}) => f(undefined, o as Loose)

  const historyMethods = Object.fromEntries(
    (Object.keys(OPERATIONS.history) as HistoryOperation[]).map((op) => {
      const declared: OperationFeatures = OPERATIONS.history[op]
      return [
        op,
        method(declared, (messages, o) => {
          const c = current
          if (declared.encoding === true) pool(c, o.encoding ?? encoding)
          return timed(declared, o, (signal) =>
            perform(c, declared, signal, (s, callId) => {
              const options = declared.encoding === true ? { ...plain(o), encoding: o.encoding ?? encoding } : plain(o)
              return s.history({ op, callId, messages: messages as Messages, options: options as never, maxBytes: maxBytes() }, ...callbacks(declared, o, signal))
            }),
          )
        }),
      ]
    }),
  ) as unknown as HistoryMethods

  /** Opens a session on the service with what `carried` holds (messages, staged ones, or a file); answers its handle once committed. */
  const start = async (
    c: Connection,
    id: string,
    sessionEncoding: EncodingName,
    carried: Pick<OpenRequest, 'messages' | 'staged' | 'file' | 'tornTail'>,
    signal: AbortSignal | undefined,
    progress: ProgressCallback | undefined,
  ): Promise<number> => (await perform(c, { writes: true }, signal, (s, callId) => s.open({ callId, id, encoding: sessionEncoding, ...carried }, progress))) as number

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
    const methods = Object.fromEntries(
      (Object.keys(OPERATIONS.session) as SessionOperation[]).map((op) => {
        const declared: OperationFeatures = OPERATIONS.session[op]
        return [
          op,
          method(declared, (messages, o) => {
            const e = check()
            if (e !== undefined) return Promise.reject(e)
            const before = sent
            let markSent = noop
            sent = new Promise((resolve) => (markSent = resolve))
            return timed(declared, o, async (signal) => {
              try {
                await before
                const carried = messages === undefined ? {} : await stage(c, sessionEncoding, messages, signal, undefined)
                return await perform(c, declared, signal, (s, callId) => {
                  const p = s.session({ op, callId, session: ref, options: plain(o) as never, maxBytes: maxBytes(), ...carried }, ...callbacks(declared, o, signal))
                  markSent()
                  return p
                })
              } finally {
                markSent()
              }
            })
          }),
        ]
      }),
    ) as unknown as SessionMethods
    return {
      id,
      ...methods,
      close: async (o = {}) => {
        if (closed) return
        closed = true
        if (current !== c || disposed !== undefined || c.failure !== undefined) return
        await call(c, o.signal, (s) => s.close(ref).then(noop))
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
      const progress = remote ? undefined : (callback(o.onProgress) as ProgressCallback | undefined)
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
      const handle = await start(c, id, sessionEncoding, carried, o.signal, callback(o.onProgress) as ProgressCallback | undefined)
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
