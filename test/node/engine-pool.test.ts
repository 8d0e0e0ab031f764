/**
 * Counting on several `worker_threads` workers: a history opened with a pool has the counts of one
 * worker, the counting workers come from the engine's host and are started once (with the first
 * call that counts with a tokenizer), a counting worker that dies mid-open loses nothing, and a
 * host factory that answers one worker for every call gets no counters.
 */
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine/client.ts'
import { type EngineHost } from '../../src/engine/host.ts'
import { nodeWorkerHost } from '../../src/node/engine.ts'
import { loadEstimator } from '../../src/tokenizer/load.ts'
import { countMessage, countMessages } from '../../src/tokens/count.ts'
import { sampleSession } from '../../sample/session.ts'

const history = sampleSession({ messages: 800, seed: 5 })
// small slices: the history crosses in many, so that every worker gets some
const sliceBytes = 32 * 1024

/** A host factory that keeps what it started, and lets a test fail one as a dying worker would. */
const recording = () => {
  const started: Array<EngineHost & { readonly crash: () => void }> = []
  const factory = (): EngineHost => {
    const inner = nodeWorkerHost()
    const listeners: Array<(e: Error) => void> = []
    inner.onFailure((e) => {
      for (const l of listeners) l(e)
    })
    const host = {
      ...inner,
      onFailure: (l: (e: Error) => void) => void listeners.push(l),
      crash: () => {
        inner.terminate()
        for (const l of listeners) l(new Error('the worker exited with code 1'))
      },
    }
    started.push(host)
    return host
  }
  return { started, factory }
}

const exact = async (): Promise<number> => countMessages(await loadEstimator('o200k_base'))(structuredClone(history))

describe('engine counting pool (worker_threads)', { timeout: 60_000 }, () => {
  it('opens a history with the counts of one worker, starting its counters once', async () => {
    const { started, factory } = recording()
    const engine = createEngine({ mode: 'worker', host: factory, workers: 2, sliceBytes, encoding: 'o200k_base' })
    const single = createEngine({ mode: 'worker', host: () => nodeWorkerHost(), workers: 1, sliceBytes, encoding: 'o200k_base' })
    try {
      const s = await engine.open('a', history)
      const one = await single.open('a', history)
      expect(started).toHaveLength(2)
      const tokens = await s.tokens()
      expect(tokens).toEqual(await one.tokens())
      expect(tokens.tokens).toBe(await exact())
      // a second large open reuses the counters
      await (await engine.open('b', history)).tokens()
      expect(started).toHaveLength(2)
      // each message's counts, made on either worker, are the ones one worker makes
      expect(await s.counts()).toEqual(history.map(countMessage(await loadEstimator('o200k_base'))))
      // the same prune either way: the counts the counters made are the ones the session uses
      expect(await s.prune({ protectTokens: 20_000 })).toEqual(await one.prune({ protectTokens: 20_000 }))
    } finally {
      engine.dispose()
      single.dispose()
    }
  })

  it('a counting worker that dies mid-open loses nothing', async () => {
    const { started, factory } = recording()
    const engine = createEngine({ mode: 'worker', host: factory, workers: 2, sliceBytes, encoding: 'o200k_base' })
    try {
      let crashed = false
      const s = await engine.open('a', history, {
        onProgress: (p) => {
          if (!crashed && p.done > history.length / 3 && started[1] !== undefined) {
            crashed = true
            started[1].crash()
          }
        },
      })
      expect(crashed).toBe(true)
      expect((await s.tokens()).tokens).toBe(await exact())
      // the engine itself is fine, and a later open counts on without the dead worker
      expect((await (await engine.open('b', history)).tokens()).tokens).toBe(await exact())
    } finally {
      engine.dispose()
    }
  })

  it('counting workers start with the first call that counts with a tokenizer, never for the heuristic', async () => {
    const { started, factory } = recording()
    const engine = createEngine({ mode: 'worker', host: factory, workers: 4, sliceBytes, encoding: 'heuristic' })
    try {
      await (await engine.open('heuristic', history)).tokens()
      await engine.estimate(history.slice(0, 10))
      expect(started).toHaveLength(1)
      await engine.estimate(history.slice(0, 10), { encoding: 'o200k_base' })
      expect(started).toHaveLength(4)
      await (await engine.open('o200k', history, { encoding: 'o200k_base' })).tokens()
      expect(started).toHaveLength(4)
    } finally {
      engine.dispose()
    }
  })

  it('a host factory that answers the same worker every time gets no counters', async () => {
    const host = nodeWorkerHost()
    let calls = 0
    const engine = createEngine({
      mode: 'worker',
      host: () => {
        calls++
        return host
      },
      workers: 4,
      sliceBytes,
      encoding: 'o200k_base',
    })
    try {
      expect((await (await engine.open('a', history)).tokens()).tokens).toBe(await exact())
      expect(calls).toBe(2)
    } finally {
      engine.dispose()
    }
  })
})
