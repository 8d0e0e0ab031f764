/**
 * The engine service on its own (what a worker exposes): cancellation by call id stops the work
 * at the next slice boundary, calls on one session queue behind each other, sessions are addressed
 * by handle, lists answered in chunks can be read to the end or forgotten, a change commits with
 * its answer (or with the last chunk of it) and is undone by a `cancel` while chunks are unread,
 * and messages sent ahead in chunks are taken by the call of the same id.
 */
import { describe, expect, it } from 'vitest'
import { createEngineService } from '../../src/engine/service.ts'
import type { EngineProgress } from '../../src/engine/types.ts'
import { makeMessage, type Messages, textMessage } from '../../src/message/message.ts'
import { toolCall, toolResult } from '../../src/message/part-make.ts'
import { sampleSession } from '../../sample/session.ts'

const failure = (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e)

const heuristic = { encoding: 'heuristic' } as const
const estimate = (callId: number, messages: Messages, encoding: 'heuristic' | 'o200k_base' = 'heuristic') => ({
  callId,
  messages,
  options: { encoding },
  maxBytes: Infinity,
})

/** A history whose prune (`protectTokens: 0`) changes several messages: tool calls with long results. */
const tools = (n: number): Messages =>
  Array.from({ length: n }, (_, i) => [
    makeMessage({ role: 'assistant', parts: [toolCall({ id: `c${i}`, name: 'read', arguments: `{"path":"f${i}"}` })] }),
    makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: `c${i}`, name: 'read', content: 'x'.repeat(4_000) })] }),
  ]).flat()

describe('engine service', () => {
  it('answers its protocol version', async () => {
    expect(await createEngineService().ping()).toBe(8)
  })

  it('a call cancelled before it starts counting rejects with an AbortError', async () => {
    const service = createEngineService()
    const p = service.history.estimate(estimate(1, [textMessage('user', 'hi')]))
    await service.cancel(1)
    expect((await failure(p)) as Error).toMatchObject({ name: 'AbortError' })
  })

  it('a call cancelled mid-way stops at the next slice and never reports the end', async () => {
    const service = createEngineService()
    const history = sampleSession({ messages: 2_000, seed: 3 })
    const seen: EngineProgress[] = []
    const p = service.history.estimate(estimate(7, history, 'o200k_base'), (progress) => {
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
    expect((await service.history.estimate(estimate(1, []))).messages).toBe(0)
    await service.cancel(1)
  })

  it('addresses sessions by handle: a stale handle is refused, closing twice is harmless', async () => {
    const service = createEngineService()
    const h1 = await service.open({ callId: 1, id: 's', ...heuristic, maxBytes: Infinity })
    const h2 = await service.open({ callId: 2, id: 's', ...heuristic, maxBytes: Infinity })
    expect(h2).not.toBe(h1)
    const tokens = (callId: number, handle: number) => service.session.tokens({ callId, session: { id: 's', handle }, options: {}, maxBytes: Infinity })
    expect(await failure(tokens(3, h1))).toMatchObject({ name: 'EngineError', code: 'session' })
    expect(await service.close({ id: 's', handle: h1 })).toBe(false)
    expect(await service.close({ id: 's', handle: h2 })).toBe(true)
    expect(await service.close({ id: 's', handle: h2 })).toBe(false)
    expect(await failure(tokens(4, h2))).toMatchObject({ message: expect.stringMatching(/not open/) })
  })

  it('serves a snapshot in chunks from the history as it was when the snapshot began', async () => {
    const service = createEngineService()
    const first = [textMessage('user', 'a'.repeat(500)), textMessage('assistant', 'b'.repeat(500)), textMessage('user', 'c'.repeat(500))]
    const handle = await service.open({ callId: 1, id: 's', ...heuristic, messages: first, maxBytes: Infinity })
    const session = { id: 's', handle }
    const s1 = await service.session.snapshot({ callId: 2, session, options: {}, maxBytes: 100 })
    expect(s1).toEqual({ at: 0, items: first.slice(0, 1), length: 3 })
    // a snapshot changes nothing: the session goes on while it is read
    await service.session.append({ callId: 3, session, options: {}, maxBytes: 100, messages: [textMessage('user', 'later')] })
    expect(await service.chunks.read(2)).toEqual({ at: 1, items: first.slice(1, 2), length: 3 })
    expect(await service.chunks.read(2)).toEqual({ at: 2, items: first.slice(2), length: 3 })
    // read to its end, the list is forgotten
    expect(await failure(service.chunks.read(2))).toMatchObject({ message: expect.stringMatching(/gone/) })
    await service.session.snapshot({ callId: 6, session, options: {}, maxBytes: 100 })
    await service.cancel(6)
    expect(await failure(service.chunks.read(6))).toMatchObject({ message: expect.stringMatching(/gone/) })
  })

  it('commits a change with its answer, or with the last chunk of it; a cancel before that undoes it, and later calls wait until then', async () => {
    const service = createEngineService()
    const handle = await service.open({ callId: 1, id: 's', ...heuristic, messages: tools(4), maxBytes: Infinity })
    const session = { id: 's', handle }
    const tokens = (callId: number) => service.session.tokens({ callId, session, options: {}, maxBytes: Infinity })
    const before = await tokens(2)
    // an answer whole: committed as it is sent, with no round trip after it
    expect((await service.session.append({ callId: 3, session, options: {}, maxBytes: Infinity, messages: [textMessage('user', 'two')] })).messages).toBe(9)
    await service.cancel(3)
    expect((await tokens(4)).messages).toBe(9)
    const appended = await tokens(5)
    // an answer in chunks (one change a chunk): held until its last chunk is read, undone by a cancel before
    const prune = (callId: number) => service.session.prune({ callId, session, options: { protectTokens: 0, minimumSavings: 0 }, maxBytes: 1 })
    const first = await prune(6)
    expect(first.changes.length).toBeGreaterThan(1)
    let later: number | undefined
    const waiting = tokens(7).then((t) => (later = t.tokens))
    await service.chunks.read(6)
    await new Promise((r) => setTimeout(r, 10))
    expect(later).toBeUndefined()
    await service.cancel(6)
    await waiting
    expect(later).toBe(appended.tokens)
    // read to its end: kept
    const again = await prune(8)
    for (let at = again.changes.items.length; at < again.changes.length; at += (await service.chunks.read(8)).items.length);
    expect((await tokens(9)).tokens).toBe(again.tokens)
    expect(again.tokens).toBeLessThan(appended.tokens)
    expect(before.messages).toBe(8)
  })

  it('takes the messages sent ahead in chunks, in any order, under the call id of the open', async () => {
    const service = createEngineService()
    const ms = [textMessage('user', 'a'), textMessage('assistant', 'b'), textMessage('user', 'c')]
    await service.chunks.put(3, 'heuristic', { at: 2, items: ms.slice(2), length: 3 })
    await service.chunks.put(3, 'heuristic', { at: 0, items: ms.slice(0, 2), length: 3 })
    const handle = await service.open({ callId: 3, id: 's', ...heuristic, chunked: true, maxBytes: Infinity })
    expect(await service.session.snapshot({ callId: 4, session: { id: 's', handle }, options: {}, maxBytes: Infinity })).toEqual({
      at: 0,
      items: ms,
      length: 3,
    })
    // the chunks went with their call
    expect(await failure(service.open({ callId: 3, id: 't', ...heuristic, chunked: true, maxBytes: Infinity }))).toMatchObject({
      message: expect.stringMatching(/incomplete/),
    })
  })

  it('rejects a chunk with a bad message by its position in the whole list', async () => {
    const service = createEngineService()
    const bad = [textMessage('user', 'a'), { role: 'bot' }] as unknown as Messages
    const e = await failure(service.chunks.put(1, 'heuristic', { at: 40, items: bad, length: 42 }))
    expect(e).toBeInstanceOf(TypeError)
    expect((e as Error).message).toMatch(/\[41\]\.role: expected "system" \| "user" \| "assistant" \| "tool", got "bot"/)
  })
})
