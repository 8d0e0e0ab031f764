/**
 * A history sent ahead of the call that takes it, in slices sized by how long a send blocked the sending thread, a few in flight. Private to the engine.
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

export type SliceSizer = { readonly size: () => number; readonly observe: (sent: number, ms: number) => void }

/** Slice sizes: `fixed` when given, else learned from each send, aimed at `SEND_MS` (shrinking at once after a slow send, growing by a quarter at most). */
export const sliceSizer = (fixed: number | undefined): SliceSizer => {
  let bytes = fixed ?? FIRST_SLICE
  return {
    size: () => bytes,
    observe: (sent, ms) => {
      if (fixed !== undefined || sent < MIN_SLICE) return
      const aimed = (sent / Math.max(ms, 0.01)) * SEND_MS
      bytes = Math.round(Math.min(MAX_SLICE, Math.max(MIN_SLICE, Math.min(aimed, bytes * 1.25))))
    },
  }
}

/** Sends `ms` by `send` (resolved once counted), `inFlightAtMost` at once; answers all of `ms` when one send holds it, else `{ chunked: true }`. */
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
  // near the end, a slice shrinks to its share of what is left (at the bytes per message so far), so that the lanes finish together
  const size = (): number => (at === 0 ? sizer.size() : Math.min(sizer.size(), Math.max(TAIL_SLICE, ((sent / at) * (ms.length - at)) / inFlightAtMost)))
  for (const { messages: items, bytes } of slicesOf(ms, size)) {
    if (at === 0 && items.length === ms.length) return { messages: ms }
    const t0 = now()
    // the structured clone of a send happens now, on this thread
    const sending = send({ at, items, length: ms.length })
    sizer.observe(bytes, now() - t0)
    at += items.length
    sent += bytes
    const counted = sending.then(() => {
      inFlight.delete(counted)
      done += items.length
      onProgress?.({ phase: 'open', done, total: ms.length })
    })
    counted.catch(noop)
    inFlight.add(counted)
    await (inFlight.size >= inFlightAtMost ? Promise.race(inFlight) : yieldToEventLoop())
  }
  await Promise.all(inFlight)
  return { chunked: true }
}
