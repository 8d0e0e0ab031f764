/**
 * A streams handler over a log other processes write too (`SharedStreamsLog`): reads catch up
 * with the records they kept (applied to the streams held in memory, waking the readers of each
 * stream they touch), and each write runs in one transaction of the log, after catching up, its
 * answer made and its data shown only once the transaction commits.
 *
 * @module
 */
import type { SharedStreamsLog, StreamRecord, StreamsStorage } from './log.ts'
import { applyRecord, markDurable, type Stream, type Streams } from './_state.ts'
import { answer, readBytes, refuse } from './_http.ts'

/** Applies records kept (by other processes) and wakes the readers of the streams they change. */
export const applyKept = (streams: Streams, records: ReadonlyArray<StreamRecord>): void => {
  for (const r of records) {
    const before = streams.byPath.get(r.path)
    applyRecord(streams, r, true)
    const after = streams.byPath.get(r.path)
    for (const s of new Set([before, after])) {
      if (s !== undefined) { for (const w of [...s.waiters]) w() }
    }
  }
}

/** Forgets every stream held (waking their readers) and applies `records`, the whole log, as kept. */
export const rebuild = (streams: Streams, records: ReadonlyArray<StreamRecord>): void => {
  for (const s of streams.byPath.values()) for (const w of [...s.waiters]) w()
  streams.byPath.clear()
  for (const r of records) applyRecord(streams, r, true)
}

/**
 * `run` one at a time: a call while one runs is answered by the next run, started once that one
 * ends (so that it sees everything kept before the call); calls meanwhile share it.
 */
export const coalesced = (run: () => Promise<void>): () => Promise<void> => {
  let running: Promise<void> | undefined
  let queued: Promise<void> | undefined
  const start = (): Promise<void> => {
    const p: Promise<void> = run().finally(() => {
      if (running === p) running = undefined
    })
    running = p
    return p
  }
  return () => {
    if (running === undefined) return start()
    queued ??= running.catch(() => undefined).then(() => {
      queued = undefined
      return start()
    })
    return queued
  }
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** The write transaction under way: how to keep its records, what to do and answer once it commits. */
type Transaction = {
  readonly keep: (records: ReadonlyArray<StreamRecord>) => Promise<void>
  readonly after: Array<() => void>
  applied: boolean
  answer?: () => Response
}

/**
 * The handler's writes and reads over a shared log: `catchUp` before a read (a 503 when the log
 * cannot be read), `write` runs a request (its body read first: a slow client holds no lock) in
 * one transaction of the log, `commit` keeps a record in the transaction under way (undefined
 * outside one), `stop` ends the watch.
 */
export const sharedWrites = (streams: Streams, storage: StreamsStorage, log: SharedStreamsLog, limit: number) => {
  let tx: Transaction | undefined
  /** A write applied in memory was not kept: the streams are read again before the next write. */
  let stale = false
  const sync = coalesced(async () => {
    if (!stale) return log.sync((records) => applyKept(streams, records))
    rebuild(streams, await storage.load())
    stale = false
  })
  const stopWatch = log.watch(() => void sync().catch(() => undefined))

  const commit = (record: StreamRecord, ok: (s: Stream | undefined) => Response): Promise<Response> | undefined => {
    const t = tx
    if (t === undefined) return undefined
    // readers see it, and the answer is made, once the transaction commits
    applyRecord(streams, record, false)
    t.applied = true
    const s = streams.byPath.get(record.path)
    const end = s?.end ?? 0
    return t.keep([record]).then(() => {
      t.after.push(() => markDurable(streams, record, end, s))
      t.answer = () => ok(s)
      return answer(204, null)
    })
  }

  const write = async (request: Request, run: (request: Request) => Promise<Response> | Response): Promise<Response> => {
    const body = await readBytes(request, limit)
    if (body === 'too_large') return refuse(413, 'The body is too large')
    const buffered = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      ...(body.length === 0 ? {} : { body: new Uint8Array(body) }),
    })
    let t: Transaction | undefined
    try {
      const response = await log.exclusive(async (fresh, keep) => {
        if (stale) return refuse(503, 'The streams are being read again: try again', { 'retry-after': '1' })
        applyKept(streams, fresh)
        t = { keep, after: [], applied: false }
        tx = t
        try {
          return await run(buffered)
        } finally {
          tx = undefined
        }
      })
      if (t?.answer === undefined) return response
      for (const f of t.after) f()
      return t.answer()
    } catch (e) {
      // what was applied in memory was not kept: the streams are read again from the log
      if (t?.applied === true) stale = true
      void sync().catch(() => undefined)
      return refuse(503, `The streams log cannot be written: ${message(e)}`, { 'retry-after': '1' })
    }
  }

  const catchUp = async (): Promise<Response | undefined> => {
    try {
      await sync()
      return undefined
    } catch (e) {
      return refuse(503, `The streams log cannot be read: ${message(e)}`, { 'retry-after': '1' })
    }
  }

  return { commit, write, catchUp, stop: stopWatch }
}
