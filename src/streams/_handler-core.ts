/**
 * What the streams handler's routes share: the streams held in memory, the clock and limits, how
 * a record is kept (`commit`: group commit to the handler's own log, or one transaction of a log
 * other processes write too) and how a stream is found by path (absent, gone, or expired and
 * forgotten). Private to the handler's files.
 *
 * @module
 */
import type { StreamRecord, StreamsStorage } from './log.ts'
import { applyRecord, emptyStreams, expired, markDurable, remove as removeStream, type Stream, type Streams } from './_state.ts'
import { refuse } from './_http.ts'
import type { ReadContext } from './_read.ts'
import { sharedWrites } from './_shared.ts'

/** The limits and clock of a handler, as its options give them (defaults filled in by `openCore`). */
export type CoreOptions = {
  readonly maxBodyBytes?: number
  readonly longPollTimeoutMs?: number
  readonly sseCloseMs?: number
  readonly maxReadBytes?: number
  readonly now?: () => number
}

/** What a route of the handler reaches. */
export type Core = {
  readonly streams: Streams
  readonly now: () => number
  /** The largest body a write takes. */
  readonly limit: number
  readonly read: ReadContext
  /** Applies a record, then waits until the log keeps it: `ok`'s answer, or a 503. */
  readonly commit: (record: StreamRecord, ok: (s: Stream | undefined) => Response) => Promise<Response>
  /**
   * The stream at a path: `undefined` when there is none, `'gone'` when it was deleted or expired
   * while forks of it live; a stream that expired is forgotten (or marked gone). A read or write
   * moves its TTL window on (`touch`).
   */
  readonly at: (path: string, touch?: boolean) => Stream | 'gone' | undefined
  /** The stream at a path, or the answer that there is none (404) or it is gone (410). */
  readonly live: (path: string, touch?: boolean) => Stream | Response
  /** Why writes are refused (the log could not be written), if they are. */
  readonly failure: () => string | undefined
  /** The writes and reads over a log other processes write too, when it is one. */
  readonly shared: ReturnType<typeof sharedWrites> | undefined
}

/** Replays `storage`'s log into the streams held in memory and makes the routes' shared core. */
export const openCore = async (storage: StreamsStorage, options: CoreOptions): Promise<Core> => {
  const streams = emptyStreams()
  for (const r of await storage.load()) applyRecord(streams, r, true)
  const now = options.now ?? (() => Date.now())
  const limit = options.maxBodyBytes ?? 16 * 1_048_576
  const read: ReadContext = {
    streams,
    now,
    longPollTimeoutMs: options.longPollTimeoutMs ?? 20_000,
    sseCloseMs: options.sseCloseMs ?? 60_000,
    maxReadBytes: options.maxReadBytes ?? 1_048_576,
  }
  let failure: string | undefined

  // group commit: the records accepted while a batch is written go in the next batch
  let queue: Array<{ readonly record: StreamRecord; readonly done: (e?: unknown) => void }> = []
  let writing = false
  const drain = async () => {
    writing = true
    while (queue.length > 0) {
      const batch = queue
      queue = []
      try {
        await storage.append(batch.map((b) => b.record))
        for (const b of batch) b.done()
      } catch (e) {
        failure ??= `The streams log cannot be written: ${e instanceof Error ? e.message : String(e)}`
        for (const b of batch) b.done(e)
      }
    }
    writing = false
  }
  // a log other processes write too: reads catch up first, a write runs in one transaction of the log
  const shared = storage.shared === undefined ? undefined : sharedWrites(streams, storage, storage.shared, limit)

  const commit = async (record: StreamRecord, ok: (s: Stream | undefined) => Response): Promise<Response> => {
    const inTransaction = shared?.commit(record, ok)
    if (inTransaction !== undefined) return inTransaction
    applyRecord(streams, record, false)
    const s = streams.byPath.get(record.path)
    const end = s?.end ?? 0
    const kept = await new Promise<unknown>((resolve) => {
      queue.push({ record, done: resolve })
      if (!writing) void drain()
    })
    if (kept !== undefined) return refuse(503, failure ?? 'The streams log cannot be written')
    markDurable(streams, record, end, s)
    return ok(s)
  }

  const at = (path: string, touch = true): Stream | 'gone' | undefined => {
    const s = streams.byPath.get(path)
    if (s === undefined) return undefined
    if (s.gone) return 'gone'
    const t = now()
    if (!expired(s, t)) {
      if (touch) s.touched = t
      return s
    }
    removeStream(streams, s)
    return s.gone ? 'gone' : undefined
  }
  const live = (path: string, touch = true): Stream | Response => {
    const s = at(path, touch)
    if (s === undefined) return refuse(404, 'The stream does not exist')
    if (s === 'gone') return refuse(410, 'The stream was deleted')
    return s
  }

  return { streams, now, limit, read, commit, at, live, failure: () => failure, shared }
}
