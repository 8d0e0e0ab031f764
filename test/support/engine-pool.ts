/**
 * A history opened on a pool of the runtime's own Web Workers (Deno, Chromium): the tokens a
 * session holds, and how many workers the engine started for it.
 */
import { createEngine } from '../../src/engine/client.ts'
import { webWorkerHost } from '../../src/engine/host.ts'
import { sampleSession } from '../../sample/session.ts'

/** About 1 MB of history: past the size at which counting workers start. */
const history = sampleSession({ messages: 400, seed: 9 })

/** Opens the history with `workers` counting, in small slices; answers its tokens and the workers started. */
export const openOnPool = async (workers: number): Promise<{ readonly tokens: unknown; readonly started: number }> => {
  let started = 0
  const engine = createEngine({
    mode: 'worker',
    workers,
    sliceBytes: 32 * 1024,
    encoding: 'o200k_base',
    host: () => {
      started++
      return webWorkerHost()
    },
  })
  try {
    return { tokens: await (await engine.open('s', history)).tokens(), started }
  } finally {
    engine.dispose()
  }
}
