/**
 * Scheduling helpers of the engine: yielding to the event loop between slices of work, sizing
 * messages for sliced transfers (the explorer in web/ uses them too).
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import type { Items } from './operations.ts'

type Item = Items[keyof Items]

// --- yielding ---

type Immediate = (f: () => void) => unknown
const setImmediateFn = (globalThis as { setImmediate?: Immediate }).setImmediate

/**
 * Resolves on a later turn of the event loop (a macrotask), so that pending messages, timers and
 * rendering run in between: `setImmediate` where it exists, a `MessageChannel` ping in browsers and
 * workers (not clamped like nested timers), a zero timeout anywhere else. The channel is closed at
 * once, so it never keeps a process alive.
 */
export const yieldToEventLoop = (): Promise<void> =>
  new Promise((resolve) => {
    if (setImmediateFn !== undefined) {
      setImmediateFn(resolve)
    } else if (typeof MessageChannel === 'function') {
      const { port1, port2 } = new MessageChannel()
      port1.onmessage = () => {
        port1.close()
        port2.close()
        resolve()
      }
      port2.postMessage(null)
    } else {
      setTimeout(resolve, 0)
    }
  })

/** How long a slice of work runs before it yields (ms): a fraction of a 16 ms frame. */
export const SLICE_MS = 8

/**
 * A budget of `ms` milliseconds: `spent()` is true once it has run out; `reset()` starts a new one.
 */
export const budget = (ms: number = SLICE_MS) => {
  let start = now()
  return {
    spent: (): boolean => now() - start >= ms,
    reset: (): void => {
      start = now()
    },
  }
}

// --- sizing ---

const PART_OVERHEAD = 32

const sizeOf = (u: unknown, depth: number): number => {
  if (typeof u === 'string') return u.length
  if (u instanceof Uint8Array) return u.byteLength
  if (typeof u !== 'object' || u === null || depth > 4) return 8
  let n = PART_OVERHEAD
  // indexed and `for…in` walks: no array of values is made per object (the main thread sizes every message it sends)
  if (Array.isArray(u)) { for (let i = 0; i < u.length; i++) n += sizeOf(u[i], depth + 1) }
  else for (const k in u) if (Object.hasOwn(u, k)) n += sizeOf((u as Record<string, unknown>)[k], depth + 1)
  return n
}

/**
 * About how many bytes a message (or a change: a message with its position; or a message's token counts) occupies when
 * structured-cloned (string lengths, byte lengths, a small overhead per object): the measure by
 * which histories are cut into slices.
 */
export const approxBytes = (m: Item): number =>
  'index' in m && 'message' in m && typeof m.index === 'number' ? PART_OVERHEAD + sizeOf(m.message, 0) : sizeOf(m, 0)

/**
 * Cuts `ms` into consecutive slices of about `maxBytes()` each (at least one message per slice),
 * asking for the size before each slice. Lazy, so that sizing a slice is interleaved with sending it.
 */
export function* slicesOf(ms: Messages, maxBytes: () => number): Generator<{ readonly messages: Messages; readonly bytes: number }> {
  let from = 0
  while (from < ms.length) {
    const max = maxBytes()
    let to = from
    let bytes = 0
    while (to < ms.length && (to === from || bytes < max)) {
      bytes += approxBytes(ms[to] as Message)
      to++
    }
    yield { messages: ms.slice(from, to), bytes }
    from = to
  }
}

// --- slice sizes ---

/**
 * How many slices a counting worker holds at once: the one it counts and the next, already in its
 * port, so that it does not wait between two for the thread that deals them (busy counting a slice
 * of its own).
 */
export const COUNTER_DEPTH = 2

/**
 * How many slices wait for the counters before the thread that decodes them (a file) counts one
 * itself. Counting on that thread stops its decoding, so the counters run dry unless some wait for
 * them; and the more wait, the longer the tail the counters are left with. Two gave a pool of two
 * 0.54–0.65 of one worker's time on Node, against 0.75–0.82 with this thread taking a slice
 * whenever it was free, as it does for `open` (whose slices another thread sends).
 */
export const BACKLOG = 2

/** How many chunks of a history are sent ahead at once: one per place a lane holds one, and one more being sent. */
export const slicesInFlight = (workers: number): number => 1 + (workers - 1) * COUNTER_DEPTH + 1

/** A send is aimed at this many ms of the sending thread: an eighth of a frame, leaving room for a busy machine. */
export const SEND_MS = 2
const FIRST_SLICE = 128 * 1024
const MIN_SLICE = 16 * 1024
/** The smallest slice the end of a history sent ahead is cut into. */
export const TAIL_SLICE = 32 * 1024
const MAX_SLICE = 512 * 1024

/**
 * The size of the next slice: `fixed` when given, otherwise learned from how long each send
 * blocked, aimed at `SEND_MS`: it shrinks at once after a slow send and grows by a quarter at most
 * after a fast one, so that no send blocks a frame on a slow or busy machine and fast ones send
 * fewer, larger slices (16 KiB to 512 KiB).
 */
export const sliceSizer = (fixed: number | undefined) => {
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

/** The current time in ms. */
export const now = (): number => (typeof performance === 'object' ? performance.now() : Date.now())
