/**
 * The engine service on its own (what a worker exposes): cancellation by call id stops the work
 * at the next slice boundary, calls on one session queue behind each other, sessions are addressed
 * by handle, lists answered in slices can be read to the end or released, and a change to a
 * session is kept by `commit` and undone by `cancel`.
 */
import { describe, expect, it } from 'vitest'
import { createEngineService } from '../../src/engine/service.ts'
import type { EngineProgress } from '../../src/engine/types.ts'
import { textMessage } from '../../src/message/message.ts'
import { sampleSession } from '../../sample/session.ts'

const failure = (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e)

const heuristic = { encoding: 'heuristic' } as const
const estimate = (callId: number, messages: unknown, encoding: 'heuristic' | 'o200k_base' = 'heuristic') =>
  ({ op: 'estimate', callId, messages, options: { encoding }, maxBytes: Infinity }) as never

describe('engine service', () => {
  it('answers its protocol version', async () => {
    expect(await createEngineService().ping()).toBe(6)
  })

  it('a call cancelled before it starts counting rejects with an AbortError', async () => {
    const service = createEngineService()
    const p = service.history(estimate(1, [textMessage('user', 'hi')]))
    await service.cancel(1)
    expect((await failure(p)) as Error).toMatchObject({ name: 'AbortError' })
  })

  it('a call cancelled mid-way stops at the next slice and never reports the end', async () => {
    const service = createEngineService()
    const history = sampleSession({ messages: 2_000, seed: 3 })
    const seen: EngineProgress[] = []
    const p = service.history(estimate(7, history, 'o200k_base'), (progress) => {
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
    expect(((await service.history(estimate(1, []))) as { messages: number }).messages).toBe(0)
    await service.cancel(1)
  })

  it('addresses sessions by handle: a stale handle is refused, closing twice is harmless', async () => {
    const service = createEngineService()
    const h1 = await service.open({ callId: 1, id: 's', ...heuristic })
    await service.commit(1)
    const h2 = await service.open({ callId: 2, id: 's', ...heuristic })
    await service.commit(2)
    expect(h2).not.toBe(h1)
    const tokens = (callId: number, handle: number) => service.session({ op: 'tokens', callId, session: { id: 's', handle }, options: {}, maxBytes: Infinity })
    expect(await failure(tokens(3, h1))).toMatchObject({ name: 'EngineError', code: 'session' })
    expect(await service.close({ id: 's', handle: h1 })).toBe(false)
    expect(await service.close({ id: 's', handle: h2 })).toBe(true)
    expect(await service.close({ id: 's', handle: h2 })).toBe(false)
    expect(await failure(tokens(4, h2))).toMatchObject({ message: expect.stringMatching(/not open/) })
  })

  it('serves a snapshot in slices from the history as it was when the snapshot began', async () => {
    const service = createEngineService()
    const first = [textMessage('user', 'a'.repeat(500)), textMessage('assistant', 'b'.repeat(500)), textMessage('user', 'c'.repeat(500))]
    const handle = await service.open({ callId: 1, id: 's', ...heuristic, messages: first })
    await service.commit(1)
    const session = { id: 's', handle }
    const s1 = await service.session({ op: 'snapshot', callId: 2, session, options: {}, maxBytes: 100 })
    expect(s1.items).toEqual(first.slice(0, 1))
    await service.session({ op: 'append', callId: 3, session, options: {}, maxBytes: 100, messages: [textMessage('user', 'later')] })
    await service.commit(3)
    const s2 = await service.read({ callId: 4, list: s1.list, from: s1.next ?? -1, maxBytes: 10_000 })
    expect(s2.items).toEqual(first.slice(1))
    expect(s2.next).toBeUndefined()
    // read to its end, the list is forgotten
    expect(await failure(service.read({ callId: 5, list: s1.list, from: 1, maxBytes: 100 }))).toMatchObject({ message: expect.stringMatching(/gone/) })
    const s3 = await service.session({ op: 'snapshot', callId: 6, session, options: {}, maxBytes: 100 })
    await service.release({ list: s3.list })
    expect(await failure(service.read({ callId: 7, list: s3.list, from: 1, maxBytes: 100 }))).toMatchObject({ message: expect.stringMatching(/gone/) })
  })

  it('keeps a change once committed, undoes it when cancelled after the answer, and holds later calls until then', async () => {
    const service = createEngineService()
    const handle = await service.open({ callId: 1, id: 's', ...heuristic, messages: [textMessage('user', 'one')] })
    await service.commit(1)
    const session = { id: 's', handle }
    const tokens = (callId: number) => service.session({ op: 'tokens', callId, session, options: {}, maxBytes: Infinity })
    expect((await service.session({ op: 'append', callId: 2, session, options: {}, maxBytes: Infinity, messages: [textMessage('user', 'two')] })).messages).toBe(2)
    let later: number | undefined
    const waiting = tokens(3).then((t) => (later = t.messages))
    await new Promise((r) => setTimeout(r, 10))
    expect(later).toBeUndefined()
    await service.cancel(2)
    await waiting
    expect(later).toBe(1)
    await service.session({ op: 'append', callId: 4, session, options: {}, maxBytes: Infinity, messages: [textMessage('user', 'three')] })
    await service.commit(4)
    await service.cancel(4)
    expect((await tokens(5)).messages).toBe(2)
  })

  it('stages messages in parts, in any order, for an open that takes them whole', async () => {
    const service = createEngineService()
    const ms = [textMessage('user', 'a'), textMessage('assistant', 'b'), textMessage('user', 'c')]
    await service.stage({ callId: 1, batch: 9, at: 2, messages: ms.slice(2), ...heuristic })
    await service.stage({ callId: 2, batch: 9, at: 0, messages: ms.slice(0, 2), ...heuristic })
    const handle = await service.open({ callId: 3, id: 's', ...heuristic, staged: 9 })
    await service.commit(3)
    const snapshot = await service.session({ op: 'snapshot', callId: 4, session: { id: 's', handle }, options: {}, maxBytes: Infinity })
    expect(snapshot.items).toEqual(ms)
    expect(await failure(service.open({ callId: 5, id: 't', ...heuristic, staged: 9 }))).toMatchObject({ message: expect.stringMatching(/gone/) })
  })

  it('rejects a staged part with a bad message by its position in the whole batch', async () => {
    const service = createEngineService()
    const e = await failure(service.stage({ callId: 1, batch: 1, at: 40, messages: [textMessage('user', 'a'), { role: 'bot' }] as never, ...heuristic }))
    expect(e).toBeInstanceOf(TypeError)
    expect((e as Error).message).toMatch(/\[41\]\.role: expected "system" \| "user" \| "assistant" \| "tool", got "bot"/)
  })
})
