/**
 * `createEngine`: the engine API, the same whether the work runs in a Web Worker, in a host you
 * provide (a `worker_threads` worker from `chatfold/node`, a test channel), or inline. Each method
 * is one call of the service, its messages sent ahead in chunks when they are too large for one
 * send and the rest of a list it answers read in chunks, so that no send blocks a frame.
 *
 * @module
 */
import { proxy, transfer } from 'comlink'
import type { Message, Messages } from '../message/message.ts'
import { DEFAULT_ENCODING, type EncodingName } from '../tokenizer/load.ts'
import type { Engine, EngineOptions, EngineSession } from './api.ts'
import { type Connection, connections, resolveMode } from './_connection.ts'
import {
  type CallerSide,
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
import { isObject } from '../internal/object.ts'
import { withSummaryCost } from './_summary-cost.ts'

type History = Operations['history']
type Session = Operations['session']

/** Any call's options, as the code common to all operations reads them. */
type Loose = CallerSide & { readonly encoding?: EncodingName }

/** The options that cross to the service: the signal, callbacks and the timeout stay on this side. */
const wire = <O extends CallerSide>(o: O): Omit<O, keyof CallerSide> => {
  const { signal: _signal, onProgress: _onProgress, summarize: _summarize, timeout: _timeout, ...rest } = o
  return rest
}

/** Reads the rest of a list answered in chunks: answers the whole list. */
type Read = (first: Chunk<unknown>) => Promise<ReadonlyArray<unknown>>

/** An answer taken as it came: what an operation that answers no list in chunks gives its caller. */
const same = <A>(answer: A): A => answer

/** Whether `u` is the first chunk of a list. */
const isChunk = (u: unknown): u is Chunk<unknown> => isObject(u) && Array.isArray(u['items'])

/** A session operation's result from its answer: the list its declaration names `sliced` read to its end. */
const collect = async (sliced: OperationFeatures['sliced'], answer: unknown, read: Read): Promise<unknown> => {
  if (sliced === 'all' && isChunk(answer)) return read(answer)
  if (sliced === undefined || sliced === 'all' || !isObject(answer)) return answer
  const first = answer[sliced]
  return isChunk(first) ? { ...answer, [sliced]: await read(first) } : answer
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
  const inFlightChunks = slicesInFlight(workers)
  let disposed: EngineError | undefined
  let callIds = 0

  const { call, connect, fail, startCounters } = connections({
    remote,
    startTimeout: options.startTimeout ?? 30_000,
    disposed: () => disposed,
    ...(options.host === undefined ? {} : { host: options.host }),
  })

  let current = connect()

  /** Starts the counting workers (once per connection) with the first call that loads a tokenizer's tables (the heuristic needs none). */
  const pool = (c: Connection, counting: EncodingName): void => {
    if (remote && workers > 1 && counting !== 'heuristic') startCounters(c, workers - 1, counting)
  }

  /** How many bytes a chunk may carry: as much as a send (all of it inline). */
  const maxBytes = (): number => (remote ? slices.size() : Infinity)

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
   * Performs a call: sends its messages (`messages`, in chunks when large), its request, then has
   * `receive` make the result of the answer, reading the rest of a list it answers in chunks. A
   * call that changes a session takes the answer the service gave even when aborted meanwhile (the
   * change is made); one that fails before is cancelled, which undoes a change whose chunks were unread.
   */
  const perform = async <A, R>(
    c: Connection,
    declared: OperationFeatures,
    signal: AbortSignal | undefined,
    messages: { readonly encoding: EncodingName; readonly messages: Messages; readonly onProgress?: (p: EngineProgress) => void } | undefined,
    send: (port: ServicePort, callId: number, carried: Carried) => Promise<A>,
    receive: (answer: A, read: Read) => R | Promise<R>,
  ): Promise<R> => {
    const callId = ++callIds
    const onAbort = declared.writes === true ? 'answer' : 'at once'
    const read: Read = async (first) => {
      if (first.items.length === first.length) return first.items
      const out: unknown[] = [...first.items]
      while (out.length < first.length) {
        throwIfAborted(signal)
        const chunk = await call(c, callId, signal, onAbort, (port) => port.chunks.read(callId))
        for (const item of chunk.items) out.push(item)
      }
      return out
    }
    try {
      // in worker mode, messages too large for one send are sent ahead in chunks (see `sendAhead`)
      const put = (chunk: Chunk<Message>) => call(c, callId, signal, 'at once', (port) => port.chunks.put(callId, messages?.encoding ?? encoding, chunk))
      const carried: Carried = messages === undefined
        ? {}
        : !remote || messages.messages.length === 0
        ? { messages: messages.messages }
        : await sendAhead(messages.messages, slices, inFlightChunks, put, messages.onProgress)
      const answer = await call(c, callId, signal, onAbort, (port) => send(port, callId, carried))
      return await receive(answer, read)
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
    if (declared.encoding === true) pool(c, counting)
    return timed(declared, loose, (signal) =>
      perform(
        c,
        declared,
        signal,
        undefined,
        (port, callId) =>
          port.history[op](
            { callId, messages, options: declared.encoding === true ? { ...wire(o), encoding: counting } : wire(o), maxBytes: maxBytes() },
            ...callbacks(declared, loose, signal),
          ),
        same,
      ))
  }

  // compact prices its summariser's calls on this side (the summariser runs here)
  const historyMethods: HistoryMethods = {
    ...perOperation<HistoryMethods>(OPERATIONS.history, (op) => (messages: Messages, o = {}) => history(op, messages, o)),
    compact: (messages, o = {}) => withSummaryCost(o, (p) => history('compact', messages, p)),
  }

  const makeSession = (c: Connection, ref: SessionRef, sessionEncoding: EncodingName): EngineSession => {
    const { id } = ref
    let closed = false
    const check = (): EngineError | undefined => {
      if (closed) return new EngineError('session', `Session ${JSON.stringify(id)} is closed`)
      if (current !== c && disposed === undefined)
        return new EngineError('session', `Session ${JSON.stringify(id)} was lost when the engine restarted; open it again`)
      return undefined
    }
    /** Resolves once the last call made on this session has sent its request: calls reach the engine in the order they were made. */
    let sent: Promise<void> = Promise.resolve()

    /** Performs an operation on the session, after the calls made on it before. */
    const session = <K extends SessionOperation>(op: K, o: CallOf<Session[K]>, messages?: Messages): Promise<ResultOf<Session[K]>> => {
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
          const carrying = messages === undefined ? undefined : { encoding: sessionEncoding, messages }
          const result = await perform(
            c,
            declared,
            signal,
            carrying,
            (port, callId, carried) => {
              const p = port.session[op]({ callId, session: ref, options: wire(o), maxBytes: maxBytes(), ...carried }, ...callbacks(declared, loose, signal))
              markSent()
              return p
            },
            (answer, read) => collect(declared.sliced, answer, read),
          )
          // the operation's result: its answer with the list in `sliced` read whole
          return result as ResultOf<Session[K]>
        } finally {
          markSent()
        }
      })
    }

    // an operation without its options (a window `shouldCompact` needs) rejects as the service rejects the options
    const methods: SessionMethods = {
      ...perOperation<SessionMethods>(
        OPERATIONS.session,
        (op) => OPERATIONS.session[op].messages === true ? (messages: Messages, o = {}) => session(op, o, messages) : (o = {}) => session(op, o),
      ),
      compact: (o = {}) => withSummaryCost(o, (p) => session('compact', p)),
    }
    return {
      id,
      ...methods,
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
    pool(c, sessionEncoding)
    const { onProgress } = o
    // in worker mode, chunks report an open's progress as they are counted; a file's is reported by the service
    const progress = onProgress === undefined || (remote && 'messages' in carrying) ? undefined : callback<ProgressCallback>((p) => onProgress(p))
    const messages = 'messages' in carrying
      ? { encoding: sessionEncoding, messages: carrying.messages, ...(onProgress === undefined ? {} : { onProgress }) }
      : undefined
    let chunked = false
    const handle = await perform(
      c,
      { writes: true },
      o.signal,
      messages,
      (port, callId, carried) => {
        chunked = carried.chunked === true
        return port.open(
          {
            callId,
            id,
            encoding: sessionEncoding,
            maxBytes: maxBytes(),
            ...carried,
            ...('file' in carrying ? { file: carrying.file } : {}),
            ...(o.tornTail === undefined ? {} : { tornTail: o.tornTail }),
          },
          progress,
        )
      },
      same,
    )
    if (remote && !chunked && 'messages' in carrying) onProgress?.({ phase: 'open', done: carrying.messages.length, total: carrying.messages.length })
    return makeSession(c, { id, handle }, sessionEncoding)
  }

  return {
    mode,
    encoding,
    ready: (o = {}) => {
      const c = current
      if (disposed !== undefined) return Promise.reject(disposed)
      if (o.signal === undefined) return c.started
      return call(c, 0, o.signal, 'at once', () => c.started)
    },
    ...historyMethods,
    open: (id, messages, o = {}) => open(id, o.encoding ?? encoding, o, { messages }),
    openFile: async (id, file, o = {}) => {
      const blob = historyFile(file)
      const sent = remote ? await portableFile(blob) : blob
      throwIfAborted(o.signal)
      return open(id, o.encoding ?? encoding, o, { file: sent instanceof ArrayBuffer ? transfer(sent, [sent]) : sent })
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
