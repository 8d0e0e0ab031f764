/**
 * The engine contract over the modes this runtime has: inline, over an in-thread MessageChannel,
 * and in a real module Web Worker where there is a `Worker` global (Deno, Chromium). Node's
 * `worker_threads` worker runs the same contract in test/node/engine-worker.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine/client.ts'
import { type EngineCase, engineContract, portableCases } from '../support/engine-contract.ts'
import { engineAborts } from '../support/engine-aborts.ts'

const hasWorker = typeof Worker === 'function'

const cases: ReadonlyArray<EngineCase> = hasWorker
  ? [...portableCases, { name: 'web worker', make: (o) => createEngine({ ...o, mode: 'worker' }) }]
  : portableCases

engineContract(cases)

describe('createEngine modes', () => {
  it('auto runs in a worker exactly where the runtime has one', () => {
    const engine = createEngine({ encoding: 'heuristic' })
    expect(engine.mode).toBe(hasWorker ? 'worker' : 'inline')
    engine.dispose()
  })

  it.skipIf(hasWorker)('worker mode without a Worker rejects every call, saying so', async () => {
    const engine = createEngine({ mode: 'worker', encoding: 'heuristic' })
    await expect(engine.ready()).rejects.toMatchObject({ name: 'EngineError', code: 'unsupported' })
    await expect(engine.estimate([])).rejects.toThrow(/no Worker/)
    engine.dispose()
  })
})

engineAborts(cases)
