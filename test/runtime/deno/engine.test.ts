/**
 * Deno only (`deno test`): the engine in a Deno module worker loads `workers/engine.worker.ts`
 * directly, and a worker that fails to load rejects the engine's calls without ending the Deno
 * process (the engine calls `preventDefault()` on the worker's error event). The full contract runs
 * in a Deno worker from test/engine/engine.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../../src/engine/client.ts'
import { webWorkerHost } from '../../../src/engine/host.ts'
import { EngineError } from '../../../src/engine/types.ts'
import { textMessage } from '../../../src/message/message.ts'
import { openOnPool } from '../../support/engine-pool.ts'

describe('engine in a Deno worker', () => {
  it('a history opened on a pool of Deno workers has the counts of one worker', async () => {
    const one = await openOnPool(1)
    const three = await openOnPool(3)
    expect(three.started).toBe(3)
    expect(three.tokens).toEqual(one.tokens)
  })

  it('auto mode picks the module worker and counts with o200k_base there', async () => {
    const engine = createEngine({ encoding: 'o200k_base' })
    try {
      expect(engine.mode).toBe('worker')
      const got = await engine.estimate([textMessage('user', 'Hello, world!')])
      expect(got).toEqual({ total: 8, content: 4, thinking: 0, tools: 0, messages: 1 })
    } finally {
      engine.dispose()
    }
  })

  it('a worker script that throws on load rejects with a load error, and the process lives on', async () => {
    const url = new URL('./fixtures/throws.worker.ts', import.meta.url)
    const engine = createEngine({ mode: 'worker', host: () => webWorkerHost(url), encoding: 'heuristic' })
    const e = await engine.ready().then(() => undefined, (x: unknown) => x)
    expect(e).toBeInstanceOf(EngineError)
    expect((e as EngineError).code).toBe('load')
    expect((e as EngineError).message).toMatch(/boom on load/)
    await expect(engine.open('s', [])).rejects.toBe(e)
    engine.dispose()
  })

  it('a worker script that does not exist rejects with a load error', async () => {
    const url = new URL('./fixtures/missing.worker.ts', import.meta.url)
    const engine = createEngine({ mode: 'worker', host: () => webWorkerHost(url), encoding: 'heuristic' })
    await expect(engine.ready()).rejects.toMatchObject({ name: 'EngineError', code: 'load' })
    engine.dispose()
  })
})
