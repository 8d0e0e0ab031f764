/**
 * The engine service: the one object that does the work, called directly in inline mode and exposed with Comlink in a worker
 * (`workers/engine.worker.ts` is `expose(createEngineService())`). It keeps the resident sessions and runs the handlers of `OPERATIONS` on
 * what it has decoded and counted; a call's id reaches it for `cancel` and for the chunks of its messages and its answer.
 *
 * @module
 */
import { expose, proxy, releaseProxy, transfer } from 'comlink'
import type { Message } from '../message/message.ts'
import { DEFAULT_ENCODING, type EncodingName, loadEstimator } from '../tokenizer/load.ts'
import type { Estimator } from '../tokens/message-tokens.ts'
import { admit } from './_admit.ts'
import { historyFile, readHistoryFile } from './_file.ts'
import { historyHandlers, type Resident, sessionHandlers } from './_ops.ts'
import {
  type AnswerOf,
  type Carried,
  type Chunk,
  ENGINE_PROTOCOL,
  type EngineService,
  type HistoryCall,
  type HistoryOperation,
  type OperationFeatures,
  OPERATIONS,
  type Operations,
  perOperation,
  type ProgressCallback,
  type ServicePort,
  type SessionCall,
  type SessionOperation,
  type SessionRef,
} from './operations.ts'
import { type Counted, type Counter, createCounter, createCountPool, packedBreakdowns } from './_pool.ts'
import { now, slicesOf } from '../internal/schedule.ts'
import { abortable, throwIfAborted } from '../internal/abort.ts'
import { EngineError, type EngineProgress } from './types.ts'
import { noop } from '../internal/function.ts'

// --- callbacks ---

/** A progress callback that is never awaited and never fails the call (a proxy's call may reject). */
const progressOf = (cb: ProgressCallback | undefined): ((p: EngineProgress) => void) | undefined =>
  cb && ((p) => {
    try {
      void Promise.resolve(cb(p)).catch(noop)
    } catch {
      // a failing progress callback must not fail the call
    }
  })

/** Reports `{ phase, done, total }` at most every 50 ms, and always the last step. */
const throttled = (cb: ProgressCallback | undefined, phase: EngineProgress['phase']): ((done: number, total: number) => void) | undefined => {
  const report = progressOf(cb)
  let last = -Infinity
  return report && ((done, total) => {
    if (done < total && now() - last < 50) return
    last = now()
    report({ phase, done, total })
  })
}

/** Releases Comlink proxies (callbacks from another thread); does nothing to plain functions. */
const release = (fs: ReadonlyArray<unknown>): void => {
  for (const f of fs) {
    try {
      ;(f as { [releaseProxy]?: () => void } | undefined)?.[releaseProxy]?.()
    } catch {
      // already released
    }
  }
}

// --- state ---

type SessionState = {
  readonly handle: number
  readonly encoding: EncodingName
  readonly estimate: Estimator
  readonly count: Counter['count']
  state: Resident
  /** Calls on a session run one after another; a change whose answer is still being read holds the queue. */
  queue: Promise<void>
}

/** A call the service knows of: how to abort it, the chunks of its messages, and the change its unread answer holds. */
type CallState = {
  readonly controller: AbortController
  encoding?: EncodingName
  readonly parts: Array<Counted & { readonly at: number; readonly length: number }>
  /** The rest of its answer's list, while it waits to be read chunk by chunk. */
  rest?: { readonly slices: Iterator<{ readonly messages: ReadonlyArray<object> }>; at: number; readonly length: number }
  /** A change held until its answer is read to the end (`done`) or the call is cancelled (`undo`, then `done`). */
  held?: { readonly undo: () => void; readonly done: () => void }
}

// --- the service ---

/**
 * Creates an engine service, which an inline engine calls and a worker exposes: its sessions are its own, its estimators shared (loaded once per encoding).
 *
 * @since 0.1.0
 * @category engine
 */
export const createEngineService = (): EngineService => {
  const calls = new Map<number, CallState>()
  const sessions = new Map<string, SessionState>()
  const pool = createCountPool()
  /**
   * A counter per encoding, kept as long as the service: its sessions, chunks and calls on histories count with it, and the counting pool
   * fills it with counts made in other workers, so that a message it has counted (by identity, held weakly) is not estimated again.
   */
  const counters = new Map<EncodingName, Counter>()
  let handles = 0

  const callOf = (callId: number): CallState => {
    let call = calls.get(callId)
    if (call === undefined) calls.set(callId, call = { controller: new AbortController(), parts: [] })
    return call
  }

  /** Runs a call under its own AbortController, so that `cancel(callId)` can abort it; then releases the callbacks it was given. */
  const run = async <A>(callId: number, callbacks: ReadonlyArray<unknown>, f: (signal: AbortSignal, call: CallState) => Promise<A>): Promise<A> => {
    const call = callOf(callId)
    try {
      return await f(call.controller.signal, call)
    } finally {
      if (call.rest === undefined && calls.get(callId) === call) calls.delete(callId)
      release(callbacks)
    }
  }

  /** The next chunk of the call's answer; the call is done with when it was the last. */
  const next = (callId: number, call: CallState | undefined = calls.get(callId)): Chunk<unknown> => {
    const rest = call?.rest
    if (rest === undefined) throw new EngineError('session', `The answer of call ${callId} is gone`)
    const items = (rest.slices.next().value as { readonly messages: ReadonlyArray<object> } | undefined)?.messages ?? []
    const chunk = { at: rest.at, items, length: rest.length }
    rest.at += items.length
    if (rest.at >= rest.length) {
      delete call?.rest
      call?.held?.done()
      calls.delete(callId)
    }
    return chunk
  }

  /** The first chunk of an answer's list: all of it when it fits in `maxBytes`, else the rest is kept for the call's reads. */
  const ship = (callId: number, list: ReadonlyArray<object>, maxBytes: number): Chunk<unknown> => {
    if (list.length === 0) return { at: 0, items: list, length: 0 }
    const call = callOf(callId)
    call.rest = { slices: slicesOf(list, () => maxBytes), at: 0, length: list.length }
    return next(callId, call)
  }

  const lookup = ({ id, handle }: SessionRef): SessionState => {
    const s = sessions.get(id)
    if (s === undefined) throw new EngineError('session', `Session ${JSON.stringify(id)} is not open`)
    if (s.handle !== handle) throw new EngineError('session', `Session ${JSON.stringify(id)} was replaced by a later open`)
    return s
  }

  /** The estimator of `encoding` (loaded once) and the service's counter of it. */
  const counting = async (encoding: EncodingName): Promise<{ readonly estimate: Estimator; readonly counter: Counter }> => {
    const estimate = await loadEstimator(encoding)
    let counter = counters.get(encoding)
    if (counter === undefined) counters.set(encoding, counter = createCounter(estimate))
    return { estimate, counter }
  }

  /** The messages a call carries, decoded and counted: sent with it, or in the chunks sent ahead of it. */
  const load = async (
    encoding: EncodingName,
    count: Counter['count'],
    request: Carried & { readonly callId: number },
    call: CallState,
    signal: AbortSignal,
    progress?: (done: number, total: number) => void,
  ): Promise<Counted> => {
    if (request.chunked !== true) {
      const { messages, counts } = await admit(request.messages ?? [], { signal, count, ...(progress === undefined ? {} : { progress }) })
      return { messages, tokens: counts.total }
    }
    const messages: Message[] = []
    let tokens = 0
    for (const part of [...call.parts].sort((a, b) => a.at - b.at)) {
      if (part.at !== messages.length || call.encoding !== encoding) break
      for (const m of part.messages) messages.push(m)
      tokens += part.tokens
    }
    if (messages.length !== call.parts[0]?.length) throw new EngineError('session', `The messages of call ${request.callId} are incomplete`)
    return { messages, tokens }
  }

  const onHistory = <K extends HistoryOperation>(op: K): HistoryCall<K> => (request, onProgress, summarize) =>
    run(request.callId, [onProgress, summarize], async (signal) => {
      const declared: OperationFeatures = OPERATIONS.history[op]
      const options: { readonly encoding?: EncodingName } = request.options
      const { estimate, counter: { count } } = await counting(declared.encoding === true ? (options.encoding ?? DEFAULT_ENCODING) : 'heuristic')
      const progress = declared.progress === 'estimate' ? throttled(onProgress, 'estimate') : undefined
      const { messages, counts } = await admit(request.messages, {
        signal,
        ...(declared.encoding === true ? { count } : {}),
        ...(progress === undefined ? {} : { progress }),
      })
      const onCompact = declared.progress === 'compact' ? progressOf(onProgress) : undefined
      return await historyHandlers[op](messages, request.options, { signal, estimate, count, counts, summarize, onProgress: onCompact })
    })

  const onSession = <K extends SessionOperation>(op: K): SessionCall<K> => (request, onProgress, summarize) =>
    run(request.callId, [onProgress, summarize], async (signal, call) => {
      const { sliced, writes }: OperationFeatures = OPERATIONS.session[op]
      const s = lookup(request.session)
      const turn = s.queue
      let held: Promise<void> | undefined
      const result = (async () => {
        await abortable(turn, signal)
        const live = lookup(request.session)
        const { result, next } = await sessionHandlers[op](request.options, {
          signal,
          estimate: live.estimate,
          count: live.count,
          summarize,
          onProgress: progressOf(onProgress),
          state: live.state,
          load: () => load(live.encoding, live.count, request, call, signal),
        })
        throwIfAborted(signal)
        // the list the operation declares `sliced` comes as its first chunk
        const r = result as Record<string, ReadonlyArray<object>> & ReadonlyArray<object>
        const answer = sliced === undefined
          ? result
          : sliced === 'all'
          ? ship(request.callId, r, request.maxBytes)
          : { ...r, [sliced]: ship(request.callId, r[sliced] as ReadonlyArray<object>, request.maxBytes) }
        if (writes === true && next !== undefined) {
          const before = live.state
          live.state = next
          // an answer read in chunks commits with its last chunk: until then the change can be undone
          if (call.rest !== undefined) held = new Promise((done) => (call.held = { undo: () => (live.state = before), done }))
        }
        return answer
      })()
      s.queue = Promise.all([turn, result.then(() => held, noop)]).then(noop)
      return (await result) as AnswerOf<Operations['session'][K]>
    })

  const service: EngineService = {
    ping: () => Promise.resolve(ENGINE_PROTOCOL),

    cancel: async (callId) => {
      const call = calls.get(callId)
      calls.delete(callId)
      call?.controller.abort(new DOMException('The operation was aborted', 'AbortError'))
      call?.held?.undo()
      call?.held?.done()
    },

    open: (request, onProgress) =>
      run(request.callId, [onProgress], async (signal, call) => {
        const { id, encoding } = request
        const { estimate, counter } = await counting(encoding)
        const progress = throttled(onProgress, 'open')
        const { messages, tokens } = request.file === undefined
          ? await load(encoding, counter.count, request, call, signal, progress)
          : await readHistoryFile(historyFile(request.file), {
            signal,
            count: (input, s, dealing) => pool.count({ input, offset: 0, encoding, counter, signal: s, dealing }),
            ...(progress === undefined ? {} : { progress }),
            ...(request.tornTail === undefined ? {} : { tornTail: request.tornTail }),
          })
        throwIfAborted(signal)
        const handle = ++handles
        const state = { messages, appended: messages, pruned: [], tokens, pruners: new Map() }
        sessions.set(id, { handle, encoding, estimate, count: counter.count, state, queue: Promise.resolve() })
        return handle
      }),

    close: ({ id, handle }) => {
      const open = sessions.get(id)?.handle === handle
      if (open) sessions.delete(id)
      return Promise.resolve(open)
    },

    history: proxy(perOperation<ServicePort['history']>(OPERATIONS.history, onHistory)),
    session: proxy(perOperation<ServicePort['session']>(OPERATIONS.session, onSession)),
    chunks: proxy({
      put: async (callId: number, encoding: EncodingName, chunk: Chunk<Message>) => {
        const call = callOf(callId)
        call.encoding = encoding
        const { counter } = await counting(encoding)
        const { signal } = call.controller
        const { messages, tokens } = await pool.count({ input: chunk.items, offset: chunk.at, encoding, counter, signal })
        throwIfAborted(signal)
        call.parts.push({ at: chunk.at, length: chunk.length, messages, tokens })
      },
      read: async (callId: number) => next(callId),
    }),

    counting: proxy({
      count: async (encoding: EncodingName, messages: ReadonlyArray<Message>) => {
        const packed = packedBreakdowns((await counting(encoding)).estimate, messages)
        return transfer(packed, [packed.buffer])
      },
      serve: (port: MessagePort) => Promise.resolve(expose(service, port)),
      use: (ports: ReadonlyArray<MessagePort>, encoding: EncodingName) => Promise.resolve(pool.add(ports, encoding)),
      drop: (index: number) => Promise.resolve(pool.drop(index)),
    }),
  }
  return service
}
