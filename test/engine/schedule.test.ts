/**
 * The engine's scheduling helpers: slicing histories by size, learning slice sizes from send
 * times, yielding to the event loop; and how a history is staged with them.
 */
import { expose } from 'comlink'
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine/client.ts'
import { sliceSizer, TAIL_SLICE } from '../../src/engine/_send.ts'
import type { EngineService } from '../../src/engine/operations.ts'
import { createEngineService } from '../../src/engine/service.ts'
import { approxBytes, slicesOf, yieldToEventLoop } from '../../src/internal/schedule.ts'
import { sampleSession } from '../../sample/session.ts'
import { makeMessage, textMessage } from '../../src/message/message.ts'
import { image } from '../../src/message/part-make.ts'

const sized = (chars: number) => textMessage('user', 'x'.repeat(chars))

describe('approxBytes', () => {
  it('grows with the text and counts image bytes', () => {
    const small = approxBytes(sized(10))
    expect(approxBytes(sized(10_010)) - small).toBe(10_000)
    const withImage = makeMessage({ role: 'user', parts: [image({ data: new Uint8Array(5_000), mediaType: 'image/png' })] })
    expect(approxBytes(withImage)).toBeGreaterThan(5_000)
  })

  it('sizes a change (a message with its position) by its whole message, however deep its text sits', () => {
    const deep = makeMessage({ role: 'user', parts: [], metadata: { a: { b: { c: { text: 'x'.repeat(10_000) } } } } })
    expect(approxBytes(deep)).toBeGreaterThan(10_000)
    expect(approxBytes({ index: 3, message: deep })).toBeGreaterThan(approxBytes(deep))
    expect(approxBytes({ index: 3, message: sized(10_010) }) - approxBytes({ index: 3, message: sized(10) })).toBe(10_000)
  })
})

describe('slicesOf', () => {
  it('cuts a history into consecutive slices of about the size asked, at least one message each', () => {
    const ms = Array.from({ length: 10 }, () => sized(1_000))
    const slices = [...slicesOf(ms, () => 2_500)]
    expect(slices.map((s) => s.messages.length)).toEqual([3, 3, 3, 1])
    expect(slices.flatMap((s) => s.messages)).toEqual(ms)
    const huge = [...slicesOf([sized(50_000), sized(10)], () => 100)]
    expect(huge.map((s) => s.messages.length)).toEqual([1, 1])
    expect([...slicesOf([], () => 100)]).toEqual([])
  })

  it('asks for the size before each slice', () => {
    const ms = Array.from({ length: 6 }, () => sized(1_000))
    let size = 1
    const slices = [...slicesOf(ms, () => (size *= 2) * 1_000)]
    expect(slices.map((s) => s.messages.length)).toEqual([2, 4])
  })
})

describe('sliceSizer', () => {
  it('keeps a fixed size', () => {
    const s = sliceSizer(5_000)
    s.observe(1_000_000, 100)
    expect(s.size()).toBe(5_000)
  })

  it('shrinks at once after a slow send and grows by a quarter at most after a fast one', () => {
    const s = sliceSizer(undefined)
    const first = s.size()
    s.observe(first, 20) // ten times the 2 ms aimed at
    expect(s.size()).toBeLessThan(first / 5)
    const small = s.size()
    s.observe(small, 0.01)
    expect(s.size()).toBe(Math.round(small * 1.25))
    for (let i = 0; i < 100; i++) s.observe(s.size(), 0.01)
    expect(s.size()).toBe(512 * 1024)
  })
})

describe('yieldToEventLoop', () => {
  it('lets a pending message through before it resolves (so a cancel reaches a busy engine)', async () => {
    const { port1, port2 } = new MessageChannel()
    let got = false
    port1.onmessage = () => (got = true)
    port2.postMessage('cancel')
    let yields = 0
    while (!got && yields < 50) {
      await yieldToEventLoop()
      yields++
    }
    port1.close()
    port2.close()
    expect(got).toBe(true)
    expect(yields).toBeGreaterThan(0)
  })
})

describe('staging a history', () => {
  it('cuts the end of a history into smaller slices, so that the lanes counting it finish together, and loses nothing', async () => {
    // a service over a MessageChannel (every value cloned, as in a worker) whose chunk channel records each chunk sent ahead
    const service = createEngineService()
    const slices: Array<{ at: number; bytes: number; count: number }> = []
    const { port1, port2 } = new MessageChannel()
    const put: EngineService['chunks']['put'] = (
      callId,
      encoding,
      chunk,
    ) => (slices.push({ at: chunk.at, count: chunk.items.length, bytes: chunk.items.reduce((n, m) => n + approxBytes(m), 0) }),
      service.chunks.put(callId, encoding, chunk))
    expose({ ...service, chunks: { ...service.chunks, put } }, port1)
    const sliceBytes = 256 * 1024
    const engine = createEngine({
      mode: 'worker',
      encoding: 'heuristic',
      sliceBytes,
      host: () => ({ endpoint: port2, onFailure: () => undefined, terminate: () => (port1.close(), port2.close()) }),
    })
    try {
      const history = sampleSession({ messages: 1_500, seed: 5, maxResult: 20_000 })
      const session = await engine.open('s', history)
      expect(await session.snapshot()).toEqual(history)
      slices.sort((a, b) => a.at - b.at)
      // consecutive, and every message sent once
      expect(slices.reduce((at, s) => (expect(s.at).toBe(at), at + s.count), 0)).toBe(history.length)
      // whole slices first (one message past the size at most), then smaller ones, none below
      // TAIL_SLICE but the remainder at the very end
      expect(slices[0]?.bytes).toBeGreaterThanOrEqual(sliceBytes)
      for (const s of slices.slice(-3)) expect(s.bytes).toBeLessThan(sliceBytes / 2)
      for (const s of slices.slice(0, -1)) expect(s.bytes).toBeGreaterThanOrEqual(TAIL_SLICE)
    } finally {
      engine.dispose()
    }
  })
})
