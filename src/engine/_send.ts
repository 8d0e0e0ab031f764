/**
 * A history sent ahead of the call that takes it, in slices: each slice's size learned from how long
 * a send blocked the sending thread, a few slices in flight, and the last ones smaller, so that the
 * lanes counting them finish together. Private to the engine.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import { now, slicesOf, yieldToEventLoop } from '../internal/schedule.ts'
import { noop } from '../internal/function.ts'
import type { Carried, Chunk } from './operations.ts'
import type { EngineProgress } from './types.ts'

/** A send is aimed at this many ms of the sending thread: an eighth of a frame, leaving room for a busy machine. */
export const SEND_MS = 2
const FIRST_SLICE = 128 * 1024
const MIN_SLICE = 16 * 1024
/** The smallest slice the end of a history sent ahead is cut into. */
export const TAIL_SLICE = 32 * 1024
const MAX_SLICE = 512 * 1024

/** The size of the next slice, and how it learns from a send. */
export type SliceSizer = { readonly size: () => number; readonly observe: (sent: number, ms: number) => void }

/**
 * The size of the next slice: `fixed` when given, else learned from how long each send blocked,
 * aimed at `SEND_MS`: it shrinks at once after a slow send and grows by a quarter at most after a fast one.
 */
export const sliceSizer = (fixed: number | undefined): SliceSizer => {
  let bytes = fixed ?? FIRST_SLICE
  return {
    size: (): number => bytes,
    observe: (sent: number, ms: number): void => {
      if (fixed !== undefined || sent < MIN_SLICE) return
      const aimed = (sent / Math.max(ms, 0.01)) * SEND_MS
      bytes = Math.round(Math.min(MAX_SLICE, Math.max(MIN_SLICE, Math.min(aimed, bytes * 1.25))))
    },
  }
}

/**
 * Sends `ms` in chunks with `send` (which resolves once a chunk is counted), `inFlight` at most at
 * once, yielding between sends. Answers what the call itself carries: all the messages when they
 * fit in one send, else word that they came in chunks.
 */
export const sendAhead = async (
  ms: Messages,
  sizer: SliceSizer,
  inFlightAtMost: number,
  send: (chunk: Chunk<Message>) => Promise<void>,
  onProgress?: (p: EngineProgress) => void,
): Promise<Carried> => {
  const inFlight = new Set<Promise<void>>()
  let at = 0
  let done = 0
  let sent = 0
  // Near the end, chunks shrink to a share of what is left (judged by the bytes per message so
  // far), so that the lanes finish together rather than one counting a full chunk while the others wait.
  const size = (): number => (at === 0 ? sizer.size() : Math.min(sizer.size(), Math.max(TAIL_SLICE, ((sent / at) * (ms.length - at)) / inFlightAtMost)))
  for (const { messages: items, bytes } of slicesOf(ms, size)) {
    if (at === 0 && items.length === ms.length) return { messages: ms }
    const chunk: Chunk<Message> = { at, items, length: ms.length }
    at += items.length
    sent += bytes
    const t0 = now()
    const p = send(chunk)
    // the structured clone of a send happens now, on this thread
    sizer.observe(bytes, now() - t0)
    const counted = p.then(() => {
      inFlight.delete(counted)
      done += items.length
      onProgress?.({ phase: 'open', done, total: ms.length })
    })
    counted.catch(noop)
    inFlight.add(counted)
    if (inFlight.size >= inFlightAtMost) await Promise.race(inFlight)
    else await yieldToEventLoop()
  }
  await Promise.all(inFlight)
  return { chunked: true }
}
