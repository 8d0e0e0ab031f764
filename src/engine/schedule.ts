/**
 * Scheduling helpers of the engine: yielding to the event loop between slices of work, sizing
 * messages for sliced transfers, and abort checks. Private to the engine.
 *
 * @module
 */
import type { Message, Messages } from '../message.ts'

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

const now = (): number => (typeof performance === 'object' ? performance.now() : Date.now())

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

// --- aborting ---

/** The error an aborted call rejects with: the signal's reason, or an `AbortError`. */
export const abortReason = (signal: AbortSignal): unknown =>
  signal.reason ?? new DOMException('The operation was aborted', 'AbortError')

/** Throws the signal's reason when it has been aborted. */
export const throwIfAborted = (signal: AbortSignal | undefined): void => {
  if (signal?.aborted === true) throw abortReason(signal)
}

// --- sizing ---

const PART_OVERHEAD = 32

const sizeOf = (u: unknown, depth: number): number => {
  if (typeof u === 'string') return u.length
  if (u instanceof Uint8Array) return u.byteLength
  if (typeof u !== 'object' || u === null || depth > 4) return 8
  let n = PART_OVERHEAD
  for (const v of Array.isArray(u) ? u : Object.values(u)) n += sizeOf(v, depth + 1)
  return n
}

/**
 * About how many bytes a message occupies when structured-cloned (string lengths, byte lengths, a
 * small overhead per object): the measure by which histories are cut into slices.
 */
export const approxBytes = (m: Message): number => sizeOf(m, 0)

/**
 * Cuts `ms` into consecutive slices of about `maxBytes` each (at least one message per slice).
 * Lazy, so that sizing a slice is interleaved with sending it.
 */
export function* slicesOf(ms: Messages, maxBytes: number): Generator<Messages> {
  let from = 0
  while (from < ms.length) {
    let to = from
    let bytes = 0
    while (to < ms.length && (to === from || bytes < maxBytes)) {
      bytes += approxBytes(ms[to] as Message)
      to++
    }
    yield ms.slice(from, to)
    from = to
  }
}
