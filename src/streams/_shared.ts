/**
 * A streams handler over a log other processes write too (`SharedStreamsLog`): the records they
 * kept applied to the streams held in memory (waking the readers of each stream they touch), and
 * catch-ups that run one at a time, a call made during one waiting for the next.
 *
 * @module
 */
import type { StreamRecord } from './log.ts'
import { applyRecord, type Streams } from './_state.ts'

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
