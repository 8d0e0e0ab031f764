/**
 * Long work in slices: yielding to the event loop between slices of a few milliseconds, and cutting
 * a list of messages into slices of about so many bytes of structured clone (the engine's transfers,
 * a saved history read progressively, the explorer in web/).
 *
 * @module
 */

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
export const approxBytes = (m: object): number =>
  'index' in m && 'message' in m && typeof m.index === 'number' ? PART_OVERHEAD + sizeOf(m.message, 0) : sizeOf(m, 0)

/**
 * Cuts `ms` into consecutive slices of about `maxBytes()` each (at least one message per slice),
 * asking for the size before each slice (the list itself when it fits in one). Lazy, so that
 * sizing a slice is interleaved with sending it.
 */
export function* slicesOf<A extends object>(
  ms: ReadonlyArray<A>,
  maxBytes: () => number,
): Generator<{ readonly messages: ReadonlyArray<A>; readonly bytes: number }> {
  let from = 0
  while (from < ms.length) {
    const max = maxBytes()
    let to = from
    let bytes = 0
    while (to < ms.length && (to === from || bytes < max)) {
      bytes += approxBytes(ms[to] as A)
      to++
    }
    yield { messages: from === 0 && to === ms.length ? ms : ms.slice(from, to), bytes }
    from = to
  }
}

/** The current time in ms. */
export const now = (): number => (typeof performance === 'object' ? performance.now() : Date.now())
