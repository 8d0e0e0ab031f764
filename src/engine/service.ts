/**
 * The engine service: the one object that does the work, called directly in inline mode and
 * exposed with Comlink in a worker (`workers/engine.worker.ts` is `expose(createEngineService())`).
 * It runs the handlers of `OPERATIONS` on what it has decoded and counted; callbacks (progress, the
 * caller's summariser) are top-level arguments, so that Comlink can proxy them. Each call carries a
 * call id, by which `cancel` aborts it.
 *
 * Resident sessions keep a history on the engine's side: it arrives in slices, new turns are
 * appended, and its token counts stay cached (by message identity) across calls. A call that
 * changes a session is a transaction: its change is undone when the caller gives up on it.
 *
 * @module
 */
import { expose, releaseProxy, transfer } from 'comlink'
import type { Message, Messages } from '../message/message.ts'
import { DEFAULT_ENCODING, type EncodingName, loadEstimator } from '../tokenizer/load.ts'
import { heuristic } from '../tokens/heuristic.ts'
import { type Estimator, type TokenBreakdown } from '../tokens/message-tokens.ts'
import { admit } from './admit.ts'
import { historyFile, readHistoryFile } from './file.ts'
import { historyHandlers, type Resident, sessionHandlers } from './ops.ts'
import { type Item, OPERATIONS, type OperationFeatures, type Operations, type ResultOf, type SessionAnswer, type SessionOperation, type SessionRef, type Slice } from './operations.ts'
import { ENGINE_PROTOCOL, type EngineService, type ProgressCallback } from './protocol.ts'
import { type Counter, createCounter, createCountPool, packedBreakdowns } from './pool.ts'
import { approxBytes, now } from './schedule.ts'
import { throwIfAborted } from '../internal/abort.ts'
import { type EncodingOptions, EngineError, type EngineProgress } from './types.ts'
import { noop } from '../internal/function.ts'

// --- callbacks ---

/** A progress callback that is never awaited and never fails the call (a proxy's call may reject). */
const progressOf = (cb: ProgressCallback | undefined): ((p: EngineProgress) => void) | undefined =>
  cb === undefined
    ? undefined
    : (p) => {
        try {
          void Promise.resolve(cb(p)).catch(noop)
        } catch {
          // a failing progress callback must not fail the call
        }
      }

/** Reports `{ phase, done, total }` at most every `ms`, and always the last step. */
const throttled = (cb: ProgressCallback | undefined, phase: EngineProgress['phase'], ms = 50): ((done: number, total: number) => void) | undefined => {
  const report = progressOf(cb)
  if (report === undefined) return undefined
  let last = -Infinity
  return (done, total) => {
    const t = now()
    if (done < total && t - last < ms) return
    last = t
    report({ phase, done, total })
  }
}

/** Releases Comlink proxies (callbacks from another thread); does nothing to plain functions. */
const release = (...fs: ReadonlyArray<unknown>): void => {
  for (const f of fs) {
    try {
      const r = (f as { [releaseProxy]?: unknown } | undefined)?.[releaseProxy]
      if (typeof r === 'function') (r as () => void)()
    } catch {
      // already released
    }
  }
}

// --- answers ---

type Session = Operations['session']

/** Makes a list an answer: its first slice, the rest kept for `read`. */
type Ship = <A extends Item>(list: ReadonlyArray<A>) => Slice<A>

const same = <A>(result: A): A => result

/** Each session operation's answer from its result: the list it declares `sliced` comes as its first slice. */
const answers: { readonly [K in SessionOperation]: (result: ResultOf<Session[K]>, ship: Ship) => SessionAnswer<K> } = {
  append: same,
  tokens: same,
  prune: (r, ship) => ({ ...r, changes: ship(r.changes) }),
  plan: same,
  contextTokens: same,
  shouldCompact: same,
  compact: (r, ship) => ({ ...r, messages: ship(r.messages) }),
  snapshot: (r, ship) => ship(r),
  counts: (r, ship) => ship(r),
}

// --- state ---

type SessionState = {
  readonly id: string
  readonly handle: number
  readonly encoding: EncodingName
  readonly estimate: Estimator
  /** The service's counter of the session's encoding. */
  readonly count: (m: Message) => TokenBreakdown
  state: Resident
  /** Calls on a session run one after another; a change holds the queue until it is committed or undone. */
  queue: Promise<void>
}

/** Messages staged for an `open` or `append`: decoded and counted parts, by position. */
type Batch = { readonly encoding: EncodingName; readonly parts: Array<{ readonly at: number; readonly messages: Messages; readonly tokens: number }> }

// --- the service ---

/**
 * Creates an engine service: the object an inline engine calls and a worker exposes. Each service
 * has its own sessions; estimators are shared (loaded once per encoding).
 *
 * @since 0.1.0
 * @category engine
 */
export const createEngineService = (): EngineService => {
  const running = new Map<number, AbortController>()
  /** Answered changes not yet committed: how to undo each, and how to let the session go on. */
  const pending = new Map<number, { readonly undo: () => void; readonly done: () => void }>()
  const sessions = new Map<string, SessionState>()
  const lists = new Map<number, ReadonlyArray<Item>>()
  const batches = new Map<number, Batch>()
  const pool = createCountPool()
  /**
   * A counter per encoding, kept as long as the service: its sessions, staged messages and calls on
   * histories count with it, and the counting pool fills it with counts made in other workers, so that a message it has counted (by identity) is not estimated again.
   * It holds messages weakly: a closed session's messages leave it with the session.
   */
  const counters = new Map<EncodingName, Counter>()
  let handles = 0
  let listIds = 0

  /** Runs a call under its own AbortController, so that `cancel(callId)` can abort it. */
  const run = async <A>(callId: number, f: (signal: AbortSignal) => Promise<A>): Promise<A> => {
    const controller = new AbortController()
    running.set(callId, controller)
    try {
      return await f(controller.signal)
    } finally {
      running.delete(callId)
    }
  }

  /** Keeps a change until the call is committed (then resolves) or cancelled (then undoes it and resolves). */
  const hold = (callId: number, undo: () => void): Promise<void> => new Promise((done) => pending.set(callId, { undo, done }))

  const lookup = ({ id, handle }: SessionRef): SessionState => {
    const s = sessions.get(id)
    if (s === undefined) throw new EngineError('session', `Session ${JSON.stringify(id)} is not open`)
    if (s.handle !== handle) throw new EngineError('session', `Session ${JSON.stringify(id)} was replaced by a later open`)
    return s
  }

  /** The slice of `list` from `from` of about `maxBytes`; the list is kept under its id until its last slice is read. */
  const ship = <A extends Item>(list: ReadonlyArray<A>, from: number, maxBytes: number, id: number = ++listIds): Slice<A> => {
    let to = from
    let bytes = 0
    while (to < list.length && (to === from || bytes < maxBytes)) bytes += approxBytes(list[to++] as A)
    if (to < list.length) lists.set(id, list)
    else lists.delete(id)
    const items = from === 0 && to === list.length ? list : list.slice(from, to)
    return to < list.length ? { list: id, items, next: to } : { list: id, items }
  }

  const estimator = (encoding: EncodingName | undefined): Promise<Estimator> => loadEstimator(encoding ?? DEFAULT_ENCODING)

  const counterOf = (encoding: EncodingName, estimate: Estimator): Counter => {
    let counter = counters.get(encoding)
    if (counter === undefined) counters.set(encoding, (counter = createCounter(estimate)))
    return counter
  }

  /** The messages of an `open` or `append`: those staged under `staged`, then `messages`, decoded and counted. */
  const load = async (
    encoding: EncodingName,
    count: (m: Message) => TokenBreakdown,
    request: { readonly messages?: Messages; readonly staged?: number },
    signal: AbortSignal,
    progress?: (done: number, total: number) => void,
  ): Promise<{ readonly messages: Messages; readonly tokens: number }> => {
    const out: Messages[number][] = []
    let tokens = 0
    if (request.staged !== undefined) {
      const batch = batches.get(request.staged)
      batches.delete(request.staged)
      if (batch === undefined || batch.encoding !== encoding) throw new EngineError('session', `Staged messages ${request.staged} are gone`)
      for (const part of [...batch.parts].sort((a, b) => a.at - b.at)) {
        if (part.at !== out.length) throw new EngineError('session', `Staged messages ${request.staged} are incomplete`)
        for (const m of part.messages) out.push(m)
        tokens += part.tokens
      }
    }
    if (request.messages !== undefined) {
      const tail = await admit(request.messages, { signal, count, offset: out.length, ...(progress === undefined ? {} : { progress }) })
      for (const m of tail.messages) out.push(m)
      tokens += tail.counts.total
    }
    return { messages: out, tokens }
  }

  const service: EngineService = {
    ping: () => Promise.resolve(ENGINE_PROTOCOL),

    cancel: (callId) => {
      running.get(callId)?.abort(new DOMException('The operation was aborted', 'AbortError'))
      const p = pending.get(callId)
      if (p !== undefined) {
        pending.delete(callId)
        p.undo()
        p.done()
      }
      return Promise.resolve()
    },

    commit: (callId) => {
      const p = pending.get(callId)
      if (p !== undefined) {
        pending.delete(callId)
        p.done()
      }
      return Promise.resolve()
    },

    history: (request, onProgress, summarize) =>
      run(request.callId, async (signal) => {
        try {
          const declared: OperationFeatures = OPERATIONS.history[request.op]
          const options: EncodingOptions = request.options
          const encoding = declared.encoding === true ? (options.encoding ?? DEFAULT_ENCODING) : 'heuristic'
          const estimate = declared.encoding === true ? await estimator(encoding) : heuristic
          const count = counterOf(encoding, estimate).count
          const progress = declared.progress === 'estimate' ? throttled(onProgress, 'estimate') : undefined
          const admitted = await admit(request.messages, { signal, ...(declared.encoding === true ? { count } : {}), ...(progress === undefined ? {} : { progress }) })
          const onCompact = declared.progress === 'compact' ? progressOf(onProgress) : undefined
          return await historyHandlers[request.op](admitted.messages, request.options, { signal, estimate, count, counts: admitted.counts, summarize, onProgress: onCompact })
        } finally {
          release(onProgress, summarize)
        }
      }),

    session: (request, onProgress, summarize) =>
      run(request.callId, async (signal) => {
        try {
          const declared: OperationFeatures = OPERATIONS.session[request.op]
          const s = lookup(request.session)
          let held: Promise<void> | undefined
          const result = s.queue.then(async () => {
            throwIfAborted(signal)
            const live = lookup(request.session)
            const outcome = await sessionHandlers[request.op](request.options, {
              signal,
              estimate: live.estimate,
              count: live.count,
              summarize,
              onProgress: progressOf(onProgress),
              state: live.state,
              load: () => load(live.encoding, live.count, request, signal),
            })
            throwIfAborted(signal)
            if (declared.writes === true && outcome.next !== undefined) {
              const before = live.state
              live.state = outcome.next
              held = hold(request.callId, () => {
                live.state = before
              })
            }
            return answers[request.op](outcome.result, (list) => ship(list, 0, request.maxBytes))
          })
          s.queue = result.then(() => held, noop)
          return await result
        } finally {
          release(onProgress, summarize)
        }
      }),

    stage: (request) =>
      run(request.callId, async (signal) => {
        const estimate = await estimator(request.encoding)
        const { messages, tokens } = await pool.count({ input: request.messages, offset: request.at, encoding: request.encoding, counter: counterOf(request.encoding, estimate), signal })
        throwIfAborted(signal)
        let batch = batches.get(request.batch)
        if (batch === undefined) batches.set(request.batch, (batch = { encoding: request.encoding, parts: [] }))
        batch.parts.push({ at: request.at, messages, tokens })
      }),

    open: (request, onProgress) =>
      run(request.callId, async (signal) => {
        try {
          const { id, encoding } = request
          const estimate = await estimator(encoding)
          const counter = counterOf(encoding, estimate)
          const progress = throttled(onProgress, 'open')
          const { messages, tokens } =
            request.file === undefined
              ? await load(encoding, counter.count, request, signal, progress)
              : await readHistoryFile(historyFile(request.file), {
                  signal,
                  count: (input, s, dealing) => pool.count({ input, offset: 0, encoding, counter, signal: s, dealing }),
                  ...(progress === undefined ? {} : { progress }),
                  ...(request.tornTail === undefined ? {} : { tornTail: request.tornTail }),
                })
          throwIfAborted(signal)
          const handle = ++handles
          const before = sessions.get(id)
          const queue = hold(request.callId, () => {
            if (sessions.get(id)?.handle !== handle) return
            if (before === undefined) sessions.delete(id)
            else sessions.set(id, before)
          })
          sessions.set(id, { id, handle, encoding, estimate, count: counter.count, state: { messages, appended: messages, pruned: [], tokens, pruners: new Map() }, queue })
          return handle
        } finally {
          release(onProgress)
        }
      }),

    read: (request) =>
      run(request.callId, () => {
        const list = lists.get(request.list)
        if (list === undefined) return Promise.reject(new EngineError('session', `List ${request.list} is gone`))
        return Promise.resolve(ship(list, request.from, request.maxBytes, request.list))
      }),

    release: ({ list, batch }) => {
      if (list !== undefined) lists.delete(list)
      if (batch !== undefined) batches.delete(batch)
      return Promise.resolve()
    },

    close: ({ id, handle }) => {
      const s = sessions.get(id)
      if (s === undefined || s.handle !== handle) return Promise.resolve(false)
      sessions.delete(id)
      return Promise.resolve(true)
    },

    count: async ({ encoding, messages }) => {
      const packed = packedBreakdowns(await estimator(encoding), messages)
      return transfer(packed, [packed.buffer])
    },

    serve: (port) => {
      expose(service, port)
      return Promise.resolve()
    },

    useCounters: ({ ports, encoding }) => {
      pool.add(ports, encoding)
      return Promise.resolve()
    },

    dropCounter: (index) => {
      pool.drop(index)
      return Promise.resolve()
    },
  }
  return service
}
