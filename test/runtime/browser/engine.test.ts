/**
 * Chromium only: what a real browser worker can show. A worker script that cannot be fetched, or
 * that throws while loading, rejects the engine's calls with a load error (never a hang), and the
 * page keeps working; the default worker is found through its `new URL(…, import.meta.url)`.
 * The full engine contract runs in a Web Worker from test/engine/engine.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../../src/engine/client.ts'
import { webWorkerHost } from '../../../src/engine/host.ts'
import { EngineError } from '../../../src/engine/types.ts'
import { textMessage } from '../../../src/message/message.ts'
import { openOnPool } from '../../support/engine-pool.ts'

const blobWorker = (code: string): string => URL.createObjectURL(new Blob([code], { type: 'text/javascript' }))

describe('engine in a browser worker', () => {
  it('a history opened on a pool of browser workers has the counts of one worker', async () => {
    const one = await openOnPool(1)
    const three = await openOnPool(3)
    expect(three.started).toBe(3)
    expect(three.tokens).toEqual(one.tokens)
  })

  it('auto mode starts the package worker and counts with o200k_base in it', async () => {
    const engine = createEngine({ encoding: 'o200k_base' })
    try {
      expect(engine.mode).toBe('worker')
      expect(await engine.estimate([textMessage('user', 'Hello, world!')])).toEqual({ total: 8, content: 4, thinking: 0, tools: 0, messages: 1 })
    } finally {
      engine.dispose()
    }
  })

  it('a worker script that throws while loading rejects with a load error', async () => {
    const url = blobWorker('throw new Error("boom on load")')
    const engine = createEngine({ mode: 'worker', host: () => webWorkerHost(url), encoding: 'heuristic' })
    const e = await engine.ready().then(() => undefined, (x: unknown) => x)
    expect(e).toBeInstanceOf(EngineError)
    expect((e as EngineError).code).toBe('load')
    expect((e as EngineError).message).toMatch(/boom on load/)
    await expect(engine.estimate([])).rejects.toBe(e)
    engine.dispose()
    URL.revokeObjectURL(url)
  })

  it('a worker script that cannot be fetched rejects with a load error', async () => {
    const url = new URL('/no/such/engine.worker.js', location.href)
    const engine = createEngine({ mode: 'worker', host: () => webWorkerHost(url), encoding: 'heuristic' })
    const e = await engine.ready().then(() => undefined, (x: unknown) => x)
    expect(e).toMatchObject({ name: 'EngineError', code: 'load' })
    // the URL tried, what the server said, and the one line that fixes it
    expect((e as EngineError).message).toContain(url.href)
    expect((e as EngineError).message).toMatch(/HTTP 404|served as text\/html/)
    expect((e as EngineError).message).toContain('webWorkerHost(new URL(')
    engine.dispose()
  })

  it('a worker that never answers fails after the start timeout', async () => {
    const url = blobWorker('setInterval(() => {}, 1000)')
    const engine = createEngine({ mode: 'worker', host: () => webWorkerHost(url), encoding: 'heuristic', startTimeout: 300 })
    await expect(engine.open('s', [])).rejects.toMatchObject({ code: 'load', message: expect.stringMatching(/did not answer/) })
    engine.dispose()
    URL.revokeObjectURL(url)
  })
})
