/**
 * What crosses into the engine: decoded message by message, counted, in form input kept as it is
 * (so identities and cached counts hold), bad input refused by path with a bounded report.
 */
import { describe, expect, it } from 'vitest'
import { admit } from '../../src/engine/_admit.ts'
import { MAX_ISSUES } from '../../src/history/blob.ts'
import { textMessage } from '../../src/message/message.ts'
import { countMessage, countMessages } from '../../src/tokens/count.ts'
import { heuristic } from '../../src/tokens/heuristic.ts'
import { sampleSession } from '../../sample/session.ts'
import { deepFreeze } from '../support/arbitraries.ts'

const signal = new AbortController().signal
const failure = (p: Promise<unknown>): Promise<Error> =>
  p.then(() => {
    throw new Error('expected a rejection')
  }, (e: unknown) => e as Error)

describe('admit', () => {
  it('keeps a history in memory form as it is, and counts it', async () => {
    const ms = deepFreeze(sampleSession({ messages: 120, seed: 2 }))
    const got = await admit(ms, { signal, count: countMessage(heuristic) })
    expect(got.messages).toBe(ms)
    expect(got.counts.total).toBe(countMessages(heuristic)(ms))
    expect(got.counts.messages).toBe(ms.length)
  })

  it('decodes a message in wire form (no kind, bytes as base64) and keeps the others by identity', async () => {
    const a = textMessage('user', 'hi')
    const wire = { id: 'w', role: 'user', parts: [{ type: 'image', mediaType: 'image/png', data: 'AAEC' }] }
    const got = await admit([a, wire], { signal })
    expect(got.messages[0]).toBe(a)
    expect(got.messages[1]).toMatchObject({ id: 'w', kind: 'normal', parts: [{ type: 'image', data: new Uint8Array([0, 1, 2]) }] })
  })

  it('refuses bad messages with a TypeError naming each field by path, offset within a batch', async () => {
    const e = await failure(admit([textMessage('user', 'ok'), { id: 'x', role: 'bot', parts: [] }], { signal, offset: 10 }))
    expect(e).toBeInstanceOf(TypeError)
    expect(e.message).toBe('Cannot decode messages: [11].role: expected "system" | "user" | "assistant" | "tool", got "bot"')
  })

  it('reports at most MAX_ISSUES issues, so a history of bad messages gives a short error', async () => {
    const bad = Array.from({ length: 10_000 }, () => ({ id: 1, role: 'bot', parts: 'no' }))
    const e = await failure(admit(bad, { signal }))
    expect(e.message.split('\n').length).toBe(MAX_ISSUES + 1)
    expect(e.message).toMatch(/there may be more\)$/)
  })

  it('stops early on a huge sparse array instead of walking its holes', async () => {
    const e = await failure(admit(new Array(2 ** 32 - 1), { signal }))
    expect(e.message).toMatch(/^Cannot decode messages: \[0\]: expected /)
    expect(e.message.split('\n').length).toBe(MAX_ISSUES + 1)
  })

  it('refuses what is not an array', async () => {
    expect((await failure(admit({ messages: [] }, { signal }))).message).toMatch(/^Cannot decode messages: .*expected/)
  })

  it("rejects with the signal's reason once aborted", async () => {
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    expect((await failure(admit([], { signal: controller.signal }))).message).toBe('stop')
  })
})
