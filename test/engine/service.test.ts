/**
 * The engine service on its own (what a worker exposes): cancellation by call id stops the work
 * at the next slice boundary, calls on one session queue behind each other, sessions are addressed
 * by handle, and lists answered in slices can be read to the end or released.
 */
import { describe, expect, it } from 'vitest'
import { createEngineService } from '../../src/engine/service.ts'
import type { EngineProgress } from '../../src/engine/types.ts'
import { textMessage } from '../../src/message.ts'
import { sampleSession } from '../../scripts/sample.ts'

const failure = (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e)

describe('engine service', () => {
  it('answers its protocol version', async () => {
    expect(await createEngineService().ping()).toBe(1)
  })

  it('a call cancelled before it starts counting rejects with an AbortError', async () => {
    const service = createEngineService()
    const p = service.estimate(1, [textMessage('user', 'hi')], { encoding: 'heuristic' })
    await service.cancel(1)
    expect((await failure(p)) as Error).toMatchObject({ name: 'AbortError' })
  })

  it('a call cancelled mid-way stops at the next slice and never reports the end', async () => {
    const service = createEngineService()
    const history = sampleSession({ messages: 2_000, seed: 3 })
    const seen: EngineProgress[] = []
    const p = service.estimate(7, history, { encoding: 'o200k_base' }, (progress) => {
      seen.push(progress)
      void service.cancel(7)
    })
    expect((await failure(p)) as Error).toMatchObject({ name: 'AbortError' })
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.every((s) => s.done < s.total)).toBe(true)
  })

  it('cancelling an unknown or finished call does nothing', async () => {
    const service = createEngineService()
    await service.cancel(99)
    expect((await service.estimate(1, [], { encoding: 'heuristic' })).messages).toBe(0)
    await service.cancel(1)
  })

  it('addresses sessions by handle: a stale handle is refused, closing twice is harmless', async () => {
    const service = createEngineService()
    const h1 = await service.openSession(1, 's', { encoding: 'heuristic' })
    const h2 = await service.openSession(2, 's', { encoding: 'heuristic' })
    expect(h2).not.toBe(h1)
    expect(await failure(service.sessionTokens(3, 's', h1))).toMatchObject({ name: 'EngineError', code: 'session' })
    expect(await service.closeSession('s', h1)).toBe(false)
    expect(await service.closeSession('s', h2)).toBe(true)
    expect(await service.closeSession('s', h2)).toBe(false)
    expect(await failure(service.sessionTokens(4, 's', h2))).toMatchObject({ message: expect.stringMatching(/not open/) })
  })

  it('serves a snapshot in slices from the history as it was when the snapshot began', async () => {
    const service = createEngineService()
    const handle = await service.openSession(1, 's', { encoding: 'heuristic' })
    const first = [textMessage('user', 'a'.repeat(500)), textMessage('assistant', 'b'.repeat(500)), textMessage('user', 'c'.repeat(500))]
    await service.appendSession(2, 's', handle, first)
    const s1 = await service.snapshotSession(3, 's', handle, undefined, 0, 100)
    expect(s1.messages).toEqual(first.slice(0, 1))
    await service.appendSession(4, 's', handle, [textMessage('user', 'later')])
    const s2 = await service.snapshotSession(5, 's', handle, s1.snapshot, s1.next ?? -1, 10_000)
    expect(s2.messages).toEqual(first.slice(1))
    expect(s2.next).toBeUndefined()
    // read to its end, the snapshot is forgotten
    expect(await failure(service.snapshotSession(6, 's', handle, s1.snapshot, 1, 100))).toMatchObject({ message: expect.stringMatching(/gone/) })
    const s3 = await service.snapshotSession(7, 's', handle, undefined, 0, 100)
    await service.releaseSnapshot('s', handle, s3.snapshot)
    expect(await failure(service.snapshotSession(8, 's', handle, s3.snapshot, 1, 100))).toMatchObject({ message: expect.stringMatching(/gone/) })
  })
})
