/**
 * `createEngine`: the engine API, the same whether the work runs in a Web Worker, in a host you provide (a `worker_threads` worker from
 * `chatfold/node`, a test channel), or inline. Each method is one call of the service; its messages and the lists it answers cross in
 * chunks when too large for one send, so that no send blocks a frame. Every call is raced against its connection's failure and its signal, so none hangs.
 *
 * @module
 */
import { proxy, transfer } from 'comlink'
import type { Messages } from '../message/message.ts'
import { DEFAULT_ENCODING, type EncodingName } from '../tokenizer/load.ts'
import { pricedSummarizer } from '../compaction/priced.ts'
import type { Summarizer } from '../compaction/compact.ts'
import type { PriceTable } from '../cost/price.ts'
import type { CallCostLine } from '../cost/call-cost.ts'
import type { Engine, EngineOptions, EngineSession } from './api.ts'
import { type Connection, connections } from './_connection.ts'
import {
  type CallerSide,
  type CallHeader,
  type CallOf,
  type Carried,
  type Chunk,
  type HistoryMethods,
  type HistoryOperation,
  type OperationFeatures,
  OPERATIONS,
  type Operations,
  perOperation,
  type ProgressCallback,
  type ResultOf,
  type ServicePort,
  type SessionMethods,
  type SessionOperation,
  type SessionRef,
} from './operations.ts'
import { slicesInFlight } from './_pool.ts'
import { throwIfAborted } from '../internal/abort.ts'
import { type CallOptions, COMPACT_TIMEOUT, EngineError, type EngineProgress, type FileOptions, type ProgressOptions, type RemoteSummarizer } from './types.ts'
import { historyFile, portableFile } from './_file.ts'
import { sendAhead, sliceSizer } from './_send.ts'
import { wholeOption } from '../internal/number.ts'
import { noop } from '../internal/function.ts'

type History = Operations['history']
type Session = Operations['session']

/** Any call's options, as the code common to all operations reads them. */
type Loose = CallerSide & { readonly encoding?: EncodingName }

/** The options that cross to the service: the signal, callbacks and the timeout stay on this side. */
const wire = <O extends CallerSide>(o: O): Omit<O, keyof CallerSide> => {
  const { signal: _signal, onProgress: _onProgress, summarize: _summarize, timeout: _timeout, ...rest } = o
  return rest
}

/** Runs a compaction with the caller's summariser priced by `o.prices` (kept on this side); its result gets the `calls` when a model was called. */
const withSummaryCost = async <O extends { readonly summarize?: Summarizer; readonly prices?: PriceTable }, R extends object>(
  o: O,
  run: (o: Omit<O, 'prices'>) => Promise<R>,
): Promise<R & { readonly calls?: ReadonlyArray<CallCostLine> }> => {
  const { prices, ...rest } = o
  if (o.summarize === undefined) return run(rest)
  const { summarize, calls } = pricedSummarizer(o.summarize, prices)
  const result = await run({ ...rest, summarize })
  return calls.length === 0 ? result : { ...result, calls }
}

/** The longest timer `setTimeout` keeps (longer ones fire at once). */
const MAX_TIMER = 2_147_483_647

/** Runs `f` with the call's signal; for an operation that calls a summariser, one that also aborts with a `TimeoutError` after `timeout`. */
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

/** What a call sends ahead: messages, the encoding they are counted in, and how to report their progress. */
type Sending = { readonly encoding: EncodingName; readonly messages: Messages; readonly onProgress?: (p: EngineProgress) => void } | undefined

/**
 * How many workers count by default: one per core (`navigator.hardwareConcurrency`) but one, which stays with the page's own thread, at
 * most 4; 1 where the runtime does not say. Counting on every core makes the page's longest task while opening longer (docs/measurements.md).
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
 * Creates an engine. `auto` (the default) runs it in a Web Worker where the runtime has one (browsers, Deno) and inline anywhere else
 * (workerd); on Node pass a `worker_threads` host, or use `createNodeEngine` from `chatfold/node`. `ready()` tells when the worker answers.
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
  // `auto`: a worker where there is one (or a host), inline elsewhere
  const auto = options.host !== undefined || (typeof Worker === 'function' && typeof import.meta.url === 'string')
  const remote = options.mode === 'worker' || (options.mode !== 'inline' && auto)
  const encoding = options.encoding ?? DEFAULT_ENCODING
  const slices = sliceSizer(wholeOption(options.sliceBytes, { fallback: undefined, min: 1 }))
  const workers = Math.max(1, Math.floor(options.workers ?? defaultWorkers()))
  const startTimeout = options.startTimeout ?? 30_000
  let disposed: EngineError | undefined
  let callIds = 0

  const { call, connect, fail, startCounters } = connections({ remote, host: options.host, startTimeout, workers, disposed: () => disposed })
  let current = connect()

  // --- calls ---

  /** A callback that can cross to the service: proxied in worker mode (`proxy` marks the function: give it one made for the call). */
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

  /**
   * Performs a call: sends its messages (in chunks when large, in worker mode) and its request, and answers its result with the list named
   * `sliced` read to its end. A call that fails is cancelled, which undoes a change whose chunks were unread.
   */
  const perform = async (
    c: Connection,
    declared: OperationFeatures,
    signal: AbortSignal | undefined,
    sending: Sending,
    send: (port: ServicePort, header: CallHeader & Carried) => Promise<unknown>,
  ): Promise<unknown> => {
    const callId = ++callIds
    const onAbort = declared.writes === true ? 'answer' : 'at once'
    const read = async (first: Chunk<unknown>): Promise<ReadonlyArray<unknown>> => {
      if (first.items.length === first.length) return first.items
      const out: unknown[] = [...first.items]
      while (out.length < first.length) {
        throwIfAborted(signal)
        for (const item of (await call(c, callId, signal, onAbort, (port) => port.chunks.read(callId))).items) out.push(item)
      }
      return out
    }
    try {
      const put = (chunk: Chunk<Messages[number]>) =>
        call(c, callId, signal, 'at once', (port) => port.chunks.put(callId, sending?.encoding ?? encoding, chunk))
      const carried: Carried = sending === undefined
        ? {}
        : !remote || sending.messages.length === 0
        ? { messages: sending.messages }
        : await sendAhead(sending.messages, slices, slicesInFlight(workers), put, sending.onProgress)
      // a chunk of the answer may carry as much as a send (all of it inline)
      const answer = await call(c, callId, signal, onAbort, (port) => send(port, { callId, maxBytes: remote ? slices.size() : Infinity, ...carried }))
      const { sliced } = declared
      if (sliced === undefined) return answer
      if (sliced === 'all') return await read(answer as Chunk<unknown>)
      const parts = answer as Readonly<Record<string, Chunk<unknown>>>
      return { ...parts, [sliced]: await read(parts[sliced] as Chunk<unknown>) }
    } catch (e) {
      if (c.failure === undefined) void c.port?.cancel(callId).catch(noop)
      throw e
    }
  }

  const history = <K extends HistoryOperation>(op: K, messages: Messages, o: CallOf<History[K]>): Promise<ResultOf<History[K]>> => {
    const declared: OperationFeatures = OPERATIONS.history[op]
    const loose: Loose = o
    const c = current
    const counting = loose.encoding ?? encoding
    if (declared.encoding === true) startCounters(c, counting)
    const options = declared.encoding === true ? { ...wire(o), encoding: counting } : wire(o)
    const run = (signal: AbortSignal | undefined) =>
      perform(c, declared, signal, undefined, (port, header) => port.history[op]({ ...header, messages, options }, ...callbacks(declared, loose, signal)))
    return timed(declared, loose, run) as Promise<ResultOf<History[K]>>
  }

  const makeSession = (c: Connection, ref: SessionRef, sessionEncoding: EncodingName): EngineSession => {
    const { id } = ref
    let closed = false
    /** Resolves once the last call made on this session has sent its request: calls reach the engine in the order they were made. */
    let sent: Promise<void> = Promise.resolve()

    /** Performs an operation on the session, after the calls made on it before. */
    const session = <K extends SessionOperation>(op: K, o: CallOf<Session[K]>, messages?: Messages): Promise<ResultOf<Session[K]>> => {
      if (closed) return Promise.reject(new EngineError('session', `Session ${JSON.stringify(id)} is closed`))
      if (current !== c && disposed === undefined) {
        return Promise.reject(new EngineError('session', `Session ${JSON.stringify(id)} was lost when the engine restarted; open it again`))
      }
      const declared: OperationFeatures = OPERATIONS.session[op]
      const loose: Loose = o
      const before = sent
      let markSent = noop
      sent = new Promise((resolve) => (markSent = resolve))
      const sending = messages === undefined ? undefined : { encoding: sessionEncoding, messages }
      return timed(declared, loose, (signal) =>
        before.then(() =>
          perform(c, declared, signal, sending, (port, header) => {
            const p = port.session[op]({ ...header, session: ref, options: wire(o) }, ...callbacks(declared, loose, signal))
            markSent()
            return p
          })
        ).finally(markSent)) as Promise<ResultOf<Session[K]>>
    }

    return {
      id,
      // an operation without its options (a window `shouldCompact` needs) rejects as the service rejects the options
      ...perOperation<SessionMethods>(
        OPERATIONS.session,
        (op) => OPERATIONS.session[op].messages === true ? (messages: Messages, o = {}) => session(op, o, messages) : (o = {}) => session(op, o),
      ),
      compact: (o = {}) => withSummaryCost(o, (p) => session('compact', p)),
      close: async (o = {}) => {
        if (closed) return
        closed = true
        if (current !== c || disposed !== undefined || c.failure !== undefined) return
        await call(c, 0, o.signal, 'at once', (port) => port.close(ref).then(noop))
      },
    }
  }

  /** Opens a session on the service with `messages` or a `file`; answers it once the service has. */
  const open = async (
    id: string,
    sessionEncoding: EncodingName,
    o: CallOptions & ProgressOptions & FileOptions,
    carrying: { readonly messages: Messages } | { readonly file: Blob | ArrayBuffer },
  ): Promise<EngineSession> => {
    const c = current
    startCounters(c, sessionEncoding)
    const { onProgress } = o
    const messages = 'messages' in carrying ? carrying.messages : undefined
    // in worker mode, chunks report an open's progress as they are counted; a file's is reported by the service
    const progress = onProgress === undefined || (remote && messages !== undefined) ? undefined : callback<ProgressCallback>((p) => onProgress(p))
    const sending = messages === undefined ? undefined : { encoding: sessionEncoding, messages, ...(onProgress === undefined ? {} : { onProgress }) }
    let chunked = false
    const handle = await perform(c, { writes: true }, o.signal, sending, (port, header) => {
      chunked = header.chunked === true
      const file = 'file' in carrying ? { file: carrying.file } : {}
      const tornTail = o.tornTail === undefined ? {} : { tornTail: o.tornTail }
      return port.open({ ...header, id, encoding: sessionEncoding, ...file, ...tornTail }, progress)
    })
    if (remote && !chunked && messages !== undefined) onProgress?.({ phase: 'open', done: messages.length, total: messages.length })
    return makeSession(c, { id, handle: handle as number }, sessionEncoding)
  }

  return {
    mode: remote ? 'worker' : 'inline',
    encoding,
    ready: (o = {}) => {
      const c = current
      if (disposed !== undefined) return Promise.reject(disposed)
      return o.signal === undefined ? c.started : call(c, 0, o.signal, 'at once', () => c.started)
    },
    ...perOperation<HistoryMethods>(OPERATIONS.history, (op) => (messages: Messages, o = {}) => history(op, messages, o)),
    // compact prices its summariser's calls on this side (the summariser runs here)
    compact: (messages, o = {}) => withSummaryCost(o, (p) => history('compact', messages, p)),
    open: (id, messages, o = {}) => open(id, o.encoding ?? encoding, o, { messages }),
    openFile: async (id, file, o = {}) => {
      const blob = historyFile(file)
      const sent = remote ? await portableFile(blob) : blob
      throwIfAborted(o.signal)
      return open(id, o.encoding ?? encoding, o, { file: sent instanceof ArrayBuffer ? transfer(sent, [sent]) : sent })
    },
    restart: () => {
      if (disposed !== undefined) return Promise.reject(disposed)
      fail(current, new EngineError('restarted', 'The engine was restarted while this call was pending'))
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
