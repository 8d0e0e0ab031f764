/**
 * The engine in a real `worker_threads` worker (Node): the engine contract, then failure handling
 * a real worker can show: a worker script that cannot load, one that throws on load, one that dies
 * mid-call, and the idle worker not keeping the process alive; and a history file on disk opened
 * from `fs.openAsBlob`.
 */
import { mkdtempSync, openAsBlob, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createNodeEngine } from '../../src/node/engine.ts'
import { createEngine } from '../../src/engine/client.ts'
import { EngineError } from '../../src/engine/types.ts'
import { engineContract } from '../support/engine-contract.ts'
import { engineAborts } from '../support/engine-aborts.ts'
import { toJSONL } from '../../src/history/codec.ts'
import { sampleSession } from '../../sample/session.ts'

const workerThreads = [{ name: 'worker_threads', make: (o: Parameters<typeof createNodeEngine>[0]) => createNodeEngine(o) }]
// Each test starts an engine of its own, a worker thread that loads the engine's sources (compiled
// as they load), and some load the o200k tables there: 1 to 3 s on an idle machine, past vitest's
// 5 s beside other work (23 s measured at a load average of 19 on 2 cores). A budget for that
// rather than a shared engine, which would let one test's state reach the next.
describe('in a worker thread', { timeout: 60_000 }, () => {
  engineContract(workerThreads)
  engineAborts(workerThreads)
})

const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url)

describe('node worker failures', { timeout: 60_000 }, () => { // worker threads too, as above
  it('a worker script that does not exist rejects ready and every later call with a load error', async () => {
    const engine = createNodeEngine({ url: fixture('missing.worker.ts'), encoding: 'heuristic' })
    const e = await engine.ready().then(() => undefined, (x: unknown) => x)
    expect(e).toBeInstanceOf(EngineError)
    expect((e as EngineError).code).toBe('load')
    expect((e as EngineError).message).toMatch(/failed to load/)
    await expect(engine.estimate([])).rejects.toBe(e)
    engine.dispose()
  })

  it('a worker that throws while loading rejects with a load error that says why', async () => {
    const engine = createNodeEngine({ url: fixture('throws.worker.ts'), encoding: 'heuristic' })
    await expect(engine.estimate([])).rejects.toMatchObject({ code: 'load', message: expect.stringMatching(/boom on load/) })
    engine.dispose()
  })

  it('a worker that dies mid-call rejects the pending call and later ones; restart brings a working one', async () => {
    const engine = createNodeEngine({ url: fixture('dies.worker.ts'), encoding: 'heuristic' })
    await engine.ready()
    const e = await engine.estimate([]).then(() => undefined, (x: unknown) => x)
    expect(e).toBeInstanceOf(EngineError)
    expect((e as EngineError).code).toBe('crashed')
    expect((e as EngineError).message).toMatch(/exited with code 3/)
    await expect(engine.open('s', [])).rejects.toBe(e)
    await engine.restart()
    expect(await engine.ready()).toBeUndefined()
    engine.dispose()
  })

  it('a worker that never answers fails after the start timeout', async () => {
    const engine = createNodeEngine({ url: fixture('silent.worker.ts'), encoding: 'heuristic', startTimeout: 300 })
    await expect(engine.ready()).rejects.toMatchObject({ code: 'load', message: expect.stringMatching(/did not answer within 300 ms/) })
    await expect(engine.estimate([])).rejects.toMatchObject({ code: 'load' })
    engine.dispose()
  })

  it('in the same process, the core createEngine runs inline on Node (no Worker global)', () => {
    const engine = createEngine({ encoding: 'heuristic' })
    expect(engine.mode).toBe('inline')
    engine.dispose()
  })
})

describe('a history file on disk in a worker_threads engine', { timeout: 60_000 }, () => { // as above
  it('opens from fs.openAsBlob, whose Blob cannot be cloned to a worker: its bytes cross instead', async () => {
    const ms = sampleSession({ messages: 300, seed: 21 })
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-openfile-'))
    const engine = createNodeEngine({ encoding: 'heuristic' })
    try {
      const path = join(dir, 'session.jsonl')
      writeFileSync(path, toJSONL(ms))
      const file = await openAsBlob(path)
      expect(() => structuredClone(file)).toThrow()
      const session = await engine.openFile('disk', file)
      expect(await session.tokens()).toEqual(await (await engine.open('memory', ms)).tokens())
      expect(await session.snapshot()).toEqual(ms)
    } finally {
      engine.dispose()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
