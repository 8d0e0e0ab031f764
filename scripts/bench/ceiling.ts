/**
 * "Counting alone", the benches' measure of what a machine allows: `threads` threads each count
 * every `threads`-th message of a history, handed to them (and their JIT warmed on other messages)
 * before the clock starts, so that nothing is sent, decoded or shared while they count. The engine's
 * pool does the same counting plus all of that, so its speed-up against one worker is read beside
 * this one. The threads run ceiling.worker.ts: Web Workers in the browser bench, `worker_threads`
 * in the engine bench.
 */
import type { Messages } from '../../src/message/message.ts'

/** One counting thread, however the runtime makes it. */
export type CountingThread = {
  readonly post: (message: unknown) => void
  /** The next message the thread posts. */
  readonly next: () => Promise<unknown>
  readonly terminate: () => void
}

/** The wall time until the last thread is done (ms), and the tokens they counted in all. */
export type Alone = { readonly wall: number; readonly tokens: number }

/**
 * Starts `threads` counting threads with `spawn`, hands each its share of `history` (every
 * `threads`-th message) with `warm` to compile its code on, then times them counting at once.
 */
export const countAlone = async (spawn: () => CountingThread, threads: number, history: Messages, warm: Messages): Promise<Alone> => {
  const ts = Array.from({ length: threads }, spawn)
  try {
    // each answers once it has loaded its tables, then once it holds its messages
    await Promise.all(ts.map((t) => t.next()))
    await Promise.all(ts.map((t, i) => {
      const done = t.next()
      t.post({ warm, messages: history.filter((_, j) => j % threads === i) })
      return done
    }))
    const t0 = performance.now()
    const counted = await Promise.all(ts.map((t) => {
      const done = t.next()
      t.post({})
      return done
    }))
    return { wall: performance.now() - t0, tokens: counted.reduce((n: number, c) => n + (c as readonly [number, number])[0], 0) }
  } finally {
    for (const t of ts) t.terminate()
  }
}
