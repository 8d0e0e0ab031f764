/**
 * The engine service: the one object that does the work, called directly in inline mode and
 * exposed with Comlink in a worker (`workers/engine.worker.ts` is `expose(createEngineService())`).
 * Every method takes and returns structured-clonable data; callbacks (progress, the caller's
 * summariser) are top-level arguments, so that Comlink can proxy them. Each call carries a call
 * id, by which `cancel` aborts it.
 *
 * Resident sessions keep a history on the engine's side: it arrives in slices, new turns are
 * appended, and its token counts stay cached (by message identity) across calls.
 *
 * @module
 */
import { releaseProxy } from 'comlink'
import type { Message, Messages } from '../message.ts'
import { countMessage, DEFAULT_ENCODING, type EncodingName, type Estimator, loadEstimator } from '../tokens.ts'
import type { PruneResult } from '../messages/prune.ts'
import { buildTranscript } from '../compaction/transcript.ts'
import { compact, counter, diffHistories, plan, planSummary, prune } from './ops.ts'
import { ENGINE_PROTOCOL, type EngineService, type ProgressCallback, type SnapshotSlice } from './protocol.ts'
import { approxBytes, budget, now, throwIfAborted, yieldToEventLoop } from './schedule.ts'
import { EngineError, type EngineProgress, type TokenEstimate } from './types.ts'

// --- helpers ---

const noop = (): void => undefined

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
const throttled = (cb: ProgressCallback | undefined, phase: EngineProgress['phase'], ms = 50) => {
  const report = progressOf(cb)
  let last = -Infinity
  return (done: number, total: number): void => {
    if (report === undefined) return
    const t = now()
    if (done < total && t - last < ms) return
    last = t
    report({ phase, done, total })
  }
}

/** Releases a Comlink proxy (a callback from another thread); does nothing to a plain function. */
const releaseCallback = (f: unknown): void => {
  try {
    const release = (f as { [releaseProxy]?: unknown } | undefined)?.[releaseProxy]
    if (typeof release === 'function') (release as () => void)()
  } catch {
    // already released
  }
}

/**
 * Counts `ms` in slices of a few milliseconds, yielding between them (so that cancellation and
 * other calls get through, and an inline engine does not freeze its thread), and reporting progress.
 */
const countSliced = async (
  estimate: Estimator,
  ms: Messages,
  signal: AbortSignal,
  progress: (done: number, total: number) => void = noop,
): Promise<TokenEstimate> => {
  throwIfAborted(signal)
  const count = countMessage(estimate)
  const slice = budget()
  let total = 0
  let content = 0
  let thinking = 0
  let tools = 0
  for (let i = 0; i < ms.length; i++) {
    if (slice.spent()) {
      progress(i, ms.length)
      await yieldToEventLoop()
      throwIfAborted(signal)
      slice.reset()
    }
    const b = count(ms[i] as Message)
    total += b.total
    content += b.content
    thinking += b.thinking
    tools += b.tools
  }
  progress(ms.length, ms.length)
  return { total, content, thinking, tools, messages: ms.length }
}

// --- sessions ---

type SessionState = {
  readonly id: string
  readonly handle: number
  readonly estimate: Estimator
  /** The resident history. Replaced, never mutated: a snapshot can hold on to it. */
  messages: Messages
  /**
   * The history as appended (since the open or the last compaction), before any pruning. Pruning
   * is computed from it with a remembered pruner, so that each turn's prune rewrites only the
   * messages that newly left the protected tail; the resident history is that prune's result.
   */
  appended: Messages
  tokens: number
  /** Calls on a session run one after another. */
  queue: Promise<void>
  readonly snapshots: Map<number, Messages>
  /** Pruners by options (a pruner remembers the messages it has pruned). */
  readonly pruners: Map<string, (ms: Messages) => PruneResult>
}

const PRUNERS_KEPT = 4

// --- the service ---

/**
 * Creates an engine service: the object an inline engine calls and a worker exposes. Each service
 * has its own sessions; estimators are shared (loaded once per encoding).
 *
 * @example
 * import { expose } from 'comlink'
 * import { createEngineService } from 'chatfold'
 * expose(createEngineService()) // the whole of a worker script
 *
 * @since 0.1.0
 * @category engine
 */
export const createEngineService = (): EngineService => {
  const running = new Map<number, AbortController>()
  const sessions = new Map<string, SessionState>()
  let handles = 0
  let snapshots = 0

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

  const session = (id: string, handle: number): SessionState => {
    const s = sessions.get(id)
    if (s === undefined) throw new EngineError('session', `Session ${JSON.stringify(id)} is not open`)
    if (s.handle !== handle) throw new EngineError('session', `Session ${JSON.stringify(id)} was replaced by a later open`)
    return s
  }

  /** Runs `f` on a session after the calls before it; the session is looked up when its turn comes. */
  const exclusive = <A>(id: string, handle: number, signal: AbortSignal, f: (s: SessionState) => Promise<A>): Promise<A> => {
    const s = session(id, handle)
    const result = s.queue.then(() => {
      throwIfAborted(signal)
      return f(session(id, handle))
    })
    s.queue = result.then(noop, noop)
    return result
  }

  /** The slice of `ms` from `from` of about `maxBytes`; the list is kept under its id until its last slice is read. */
  const ship = (s: SessionState, ms: Messages, from: number, maxBytes: number, key: number = ++snapshots): SnapshotSlice => {
    let to = from
    let bytes = 0
    while (to < ms.length && (to === from || bytes < maxBytes)) bytes += approxBytes(ms[to++] as Message)
    if (to < ms.length) s.snapshots.set(key, ms)
    else s.snapshots.delete(key)
    const slice = from === 0 && to === ms.length ? ms : ms.slice(from, to)
    return to < ms.length ? { snapshot: key, messages: slice, next: to } : { snapshot: key, messages: slice }
  }

  const estimator = (encoding: EncodingName | undefined): Promise<Estimator> => loadEstimator(encoding ?? DEFAULT_ENCODING)

  return {
    ping: () => Promise.resolve(ENGINE_PROTOCOL),

    cancel: (callId) => {
      const c = running.get(callId)
      if (c !== undefined) c.abort(new DOMException('The operation was aborted', 'AbortError'))
      return Promise.resolve()
    },

    estimate: (callId, messages, options, onProgress) =>
      run(callId, async (signal) => {
        try {
          return await countSliced(await estimator(options.encoding), messages, signal, throttled(onProgress, 'estimate'))
        } finally {
          releaseCallback(onProgress)
        }
      }),

    pruneToolResults: (callId, messages, options) =>
      run(callId, async (signal) => {
        const { encoding, ...rest } = options
        const estimate = await estimator(encoding)
        await countSliced(estimate, messages, signal)
        return prune(rest, estimate)(messages)
      }),

    buildTranscript: (callId, messages, options) => run(callId, () => Promise.resolve(buildTranscript(options)(messages))),

    planCompaction: (callId, messages, options) =>
      run(callId, async (signal) => {
        const { encoding, ...rest } = options
        const estimate = await estimator(encoding)
        await countSliced(estimate, messages, signal)
        return plan(rest, estimate)(messages)
      }),

    compact: (callId, messages, options, summarize, onProgress) =>
      run(callId, async (signal) => {
        try {
          const { encoding, ...rest } = options
          const estimate = await estimator(encoding)
          await countSliced(estimate, messages, signal)
          return await compact(rest, estimate, summarize, signal, progressOf(onProgress))(messages)
        } finally {
          releaseCallback(summarize)
          releaseCallback(onProgress)
        }
      }),

    openSession: (callId, id, options) =>
      run(callId, async (signal) => {
        const estimate = await estimator(options.encoding)
        throwIfAborted(signal)
        const handle = ++handles
        sessions.set(id, { id, handle, estimate, messages: [], appended: [], tokens: 0, queue: Promise.resolve(), snapshots: new Map(), pruners: new Map() })
        return handle
      }),

    appendSession: (callId, id, handle, messages, onProgress) =>
      run(callId, (signal) =>
        exclusive(id, handle, signal, async (s) => {
          try {
            const counted = await countSliced(s.estimate, messages, signal, throttled(onProgress, 'open'))
            // a copy: the caller's array (inline mode) may change after the call
            const unpruned = s.appended === s.messages
            s.messages = [...s.messages, ...messages]
            s.appended = unpruned ? s.messages : [...s.appended, ...messages]
            s.tokens += counted.total
            return { messages: s.messages.length, tokens: s.tokens }
          } finally {
            releaseCallback(onProgress)
          }
        }),
      ),

    sessionTokens: (callId, id, handle) =>
      run(callId, (signal) => exclusive(id, handle, signal, (s) => Promise.resolve({ messages: s.messages.length, tokens: s.tokens }))),

    pruneSession: (callId, id, handle, options, maxBytes) =>
      run(callId, (signal) =>
        exclusive(id, handle, signal, (s) => {
          const before = s.messages
          const key = JSON.stringify(options)
          let pruner = s.pruners.get(key)
          if (pruner === undefined) {
            pruner = prune(options, s.estimate)
            if (s.pruners.size >= PRUNERS_KEPT) s.pruners.delete(s.pruners.keys().next().value as string)
            s.pruners.set(key, pruner)
          }
          const { messages, report } = pruner(s.appended)
          const diff = diffHistories(before, messages, counter(s.estimate))
          s.messages = messages
          s.tokens += diff.delta
          const changed = ship(s, diff.changes.map((c) => c.message), 0, maxBytes)
          return Promise.resolve({ report, indices: diff.changes.map((c) => c.index), changed, length: diff.length, tokens: s.tokens })
        }),
      ),

    planSession: (callId, id, handle, options) =>
      run(callId, (signal) => exclusive(id, handle, signal, (s) => Promise.resolve(planSummary(plan(options, s.estimate)(s.messages))))),

    compactSession: (callId, id, handle, options, maxBytes, summarize, onProgress) =>
      run(callId, (signal) =>
        exclusive(id, handle, signal, async (s) => {
          try {
            const result = await compact(options, s.estimate, summarize, signal, progressOf(onProgress))(s.messages)
            if (result.messages !== s.messages) {
              // counted first: an abort while counting leaves the session as it was
              const tokens = (await countSliced(s.estimate, result.messages, signal)).total
              s.messages = result.messages
              s.appended = result.messages
              s.pruners.clear()
              s.tokens = tokens
            }
            return { messages: ship(s, result.messages, 0, maxBytes), archived: result.archive.length, report: result.report, tokens: s.tokens }
          } finally {
            releaseCallback(summarize)
            releaseCallback(onProgress)
          }
        }),
      ),

    snapshotSession: (callId, id, handle, snapshot, from, maxBytes) =>
      run(callId, (signal) =>
        exclusive(id, handle, signal, (s) => {
          const ms = snapshot === undefined ? s.messages : s.snapshots.get(snapshot)
          if (ms === undefined) throw new EngineError('session', `Snapshot ${snapshot} of session ${JSON.stringify(id)} is gone`)
          return Promise.resolve(ship(s, ms, from, maxBytes, snapshot))
        }),
      ),

    releaseSnapshot: (id, handle, snapshot) => {
      const s = sessions.get(id)
      if (s !== undefined && s.handle === handle) s.snapshots.delete(snapshot)
      return Promise.resolve()
    },

    closeSession: (id, handle) => {
      const s = sessions.get(id)
      if (s === undefined || s.handle !== handle) return Promise.resolve(false)
      sessions.delete(id)
      return Promise.resolve(true)
    },
  }
}

