/**
 * Counting on several workers, in one process: a service connected to counting services through
 * message ports (what a worker pool is, without the workers) stages a history whose counts are the
 * ones it would make alone; counters share the work; a counter that is dropped mid-slice or answers
 * nonsense loses nothing; bad input is still refused by path.
 */
import { expose } from 'comlink'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createEngineService } from '../../src/engine/service.ts'
import { BACKLOG, COUNTER_DEPTH } from '../../src/engine/_pool.ts'
import { type Counter, createCounter, createCountPool } from '../../src/engine/_pool.ts'
import type { EngineService } from '../../src/engine/operations.ts'

/** What a counting worker is asked to count. */
type CountRequest = { readonly encoding: 'o200k_base' | 'cl100k_base' | 'heuristic'; readonly messages: Messages }
import { type Messages, textMessage } from '../../src/message/message.ts'
import { toJSONL } from '../../src/history/codec.ts'
import { loadEstimator } from '../../src/tokenizer/load.ts'
import { countMessage } from '../../src/tokens/count.ts'
import { sampleSession } from '../../sample/session.ts'

const ports: MessagePort[] = []
afterEach(() => {
  for (const p of ports.splice(0)) p.close()
})

/**
 * Settles once the first answer a port receives (a counter's warm-up, the first thing the pool
 * asks) has been handled there: a task after it arrives, when the pool has marked the counter ready.
 * Waiting for this, not for a guessed delay, holds on a busy machine. Call before the pool takes the port.
 */
const firstAnswer = (port: MessagePort): Promise<void> =>
  new Promise((resolve) => port.addEventListener('message', () => setTimeout(resolve, 0), { once: true }))

/**
 * Polls, a task at a time, until `ready()` holds: for what the pool does across its channels,
 * which no delay can be sure to cover. The test's own time limit bounds it.
 */
const until = async (ready: () => boolean): Promise<void> => {
  while (!ready()) await new Promise((r) => setTimeout(r, 1))
}

/** A service with `n` counting services, each behind a channel of its own, once each has answered its warm-up (its tables loaded). */
const pooled = async (n: number, counter: () => EngineService = createEngineService): Promise<{ service: EngineService; counters: EngineService[] }> => {
  const service = createEngineService()
  const counters: EngineService[] = []
  const near: MessagePort[] = []
  for (let i = 0; i < n; i++) {
    const c = counter()
    const { port1, port2 } = new MessageChannel()
    ports.push(port1, port2)
    await c.counting.serve(port1)
    counters.push(c)
    near.push(port2)
  }
  const warm = Promise.all(near.map(firstAnswer))
  await service.counting.use(near, 'o200k_base')
  await warm
  return { service, counters }
}

/** Stages `history` in slices of `size`, opens a session with it, and answers its tokens. */
const openStaged = async (service: EngineService, history: Messages, size: number): Promise<number> => {
  const staged: Array<Promise<void>> = []
  for (let at = 0; at < history.length; at += size) {
    staged.push(service.chunks.put(1, 'o200k_base', { at, items: history.slice(at, at + size), length: history.length }))
  }
  await Promise.all(staged)
  const handle = await service.open({ callId: 1, id: 's', encoding: 'o200k_base', chunked: true, maxBytes: Infinity })
  const tokens = await service.session.tokens({ callId: 2, session: { id: 's', handle }, options: {}, maxBytes: Infinity })
  expect(tokens.messages).toBe(history.length)
  return tokens.tokens
}

/** A counting service whose `count` is replaced (and which serves the replacement on a port). */
const counterWith = (count: (inner: EngineService) => EngineService['counting']['count']): EngineService => {
  const inner = createEngineService()
  const service: EngineService = {
    ...inner,
    counting: {
      ...inner.counting,
      count: count(inner),
      serve: (port) => {
        expose(service, port)
        return Promise.resolve()
      },
    },
  }
  return service
}

/**
 * Counting services that answer each real slice with `answer` (warm-ups pass through), and how
 * many slices they were asked to count.
 */
const onSlices = (answer: (inner: EngineService, r: CountRequest) => Promise<Float64Array>) => {
  let asked = 0
  const make = (): EngineService =>
    counterWith((inner) => (encoding, messages) => {
      if (messages.length === 0) return inner.counting.count(encoding, messages)
      asked++
      return answer(inner, { encoding, messages })
    })
  return { make, asked: (): number => asked }
}

const exact = async (history: Messages): Promise<number> => {
  const count = countMessage(await loadEstimator('o200k_base'))
  return history.reduce((n, m) => n + count(m).total, 0)
}

describe('counting pool', () => {
  // the tables load once per process: here, before the counters' warm-up asks for them
  beforeAll(async () => {
    await loadEstimator('o200k_base')
  })
  // fresh messages per test: counts are cached by message identity, which would hide where they were made
  const history = (): Messages => structuredClone(sampleSession({ messages: 600, seed: 11 }))

  it('counts a staged history exactly as one service does, with the counters sharing the work', async () => {
    const seen = onSlices((inner, r) => inner.counting.count(r.encoding, r.messages))
    const h = history()
    // the counters take slices once their tables are loaded: pooled waits for that
    const { service } = await pooled(2, seen.make)
    expect(await openStaged(service, h, 20)).toBe(await exact(structuredClone(h)))
    expect(seen.asked()).toBeGreaterThan(0)
  })

  it('counts a history read from a file on the counters too, exactly as one service does', async () => {
    const seen = onSlices((inner, r) => inner.counting.count(r.encoding, r.messages))
    const h = history()
    const { service } = await pooled(2, seen.make)
    const handle = await service.open({ callId: 1, id: 'f', encoding: 'o200k_base', file: new Blob([toJSONL(h)]), maxBytes: Infinity })
    const tokens = await service.session.tokens({ callId: 2, session: { id: 'f', handle }, options: {}, maxBytes: Infinity })
    expect(tokens).toEqual({ messages: h.length, tokens: await exact(structuredClone(h)) })
    expect(seen.asked()).toBeGreaterThan(0)
  })

  it('keeps the counts a counter made for the resident messages: later calls use them and count nothing again', async () => {
    const h = history()
    // a counter whose counts are recognisable: 1,000 tokens a message, all content
    const fake = onSlices((_inner, r) => {
      const packed = new Float64Array(r.messages.length * 4)
      for (let i = 0; i < r.messages.length; i++) packed.set([1000, 996, 0, 0], i * 4)
      return Promise.resolve(packed)
    })
    const { service } = await pooled(1, fake.make)
    const tokens = await openStaged(service, h, 30)
    expect(fake.asked()).toBeGreaterThan(0)
    const real = await exact(structuredClone(h))
    expect(tokens).not.toBe(real)
    // a prune of the session starts from the same total: the remembered counts, not a recount
    const pruned = await service.session.prune({ callId: 3, session: { id: 's', handle: 1 }, options: { protectTokens: 1e12 }, maxBytes: Infinity })
    expect(pruned.report.tokensBefore).toBe(tokens)
  })

  it('a counter dropped mid-slice loses nothing: its slice is counted by another', async () => {
    const h = history()
    // deno-lint-ignore prefer-const -- the counter below reads it before it is set
    let service: EngineService | undefined
    // a counter that never answers a real slice, and is dropped when asked for one
    const silent = onSlices(() => {
      setTimeout(() => void service?.counting.drop(0), 5)
      return new Promise<Float64Array>(() => undefined)
    })
    const { service: s } = await pooled(1, silent.make)
    service = s
    expect(await openStaged(s, h, 25)).toBe(await exact(structuredClone(h)))
    // it was given what a counter holds (the slice it counts and the next), and nothing after the drop
    expect(silent.asked()).toBe(COUNTER_DEPTH)
  })

  it('a counter that answers counts of the wrong length is not believed', async () => {
    const h = history()
    const lying = onSlices(() => Promise.resolve(new Float64Array(3)))
    const { service } = await pooled(1, lying.make)
    expect(await openStaged(service, h, 25)).toBe(await exact(structuredClone(h)))
    // once caught lying, the counter gets no more slices than the ones it already held
    expect(lying.asked()).toBe(COUNTER_DEPTH)
  })

  it('refuses bad input by path whichever lane takes it', async () => {
    const { service } = await pooled(1)
    const bad = [textMessage('user', 'fine'), { id: 'x', role: 'bot', kind: 'normal', parts: [] }] as unknown as Messages
    const results = await Promise.allSettled([0, 1, 2].map((i) => service.chunks.put(10 + i, 'o200k_base', { at: i * 2, items: bad, length: 6 })))
    for (const r of results) {
      expect(r.status).toBe('rejected')
      expect(String((r as PromiseRejectedResult).reason)).toMatch(/\[\d+\]\.role/)
    }
  })

  it('while this thread still decodes the slices (a file), it counts one only once BACKLOG wait for the counters, and as any lane when decoding is over', async () => {
    // a counter that holds every real slice until it is let go
    const held: Array<() => void> = []
    const slow = onSlices((inner, r) => new Promise<Float64Array>((resolve) => held.push(() => resolve(inner.counting.count(r.encoding, r.messages)))))
    const c = slow.make()
    const { port1, port2 } = new MessageChannel()
    ports.push(port1, port2)
    await c.counting.serve(port1)
    const pool = createCountPool()
    const warm = firstAnswer(port2)
    pool.add([port2], 'o200k_base')
    await warm
    // this thread's counter, which tells how many messages were counted here
    const base = createCounter(await loadEstimator('o200k_base'))
    let here = 0
    const counter: Counter = {
      count: (m) => {
        here++
        return base.count(m)
      },
      remember: base.remember,
    }
    let decoding = true
    const signal = new AbortController().signal
    const slices = Array.from({ length: COUNTER_DEPTH + BACKLOG + 1 }, (_, i) => [textMessage('user', `slice ${i}`)])
    const deal = (i: number) => pool.count({ input: slices[i], offset: 0, encoding: 'o200k_base', counter, signal, dealing: () => decoding })
    const counted = [deal(0), deal(1), deal(2)]
    await until(() => slow.asked() >= COUNTER_DEPTH)
    // the counter holds two; one waits for it, and this thread goes on decoding
    expect(slow.asked()).toBe(COUNTER_DEPTH)
    expect(here).toBe(0)
    for (let i = 3; i < COUNTER_DEPTH + BACKLOG; i++) counted.push(deal(i))
    await until(() => here >= 1)
    // BACKLOG waited: this thread took the oldest, and the rest wait again
    expect(here).toBe(1)
    // decoding is over: this thread counts what waits, the counter still busy with its two
    decoding = false
    counted.push(deal(COUNTER_DEPTH + BACKLOG))
    await until(() => here >= slices.length - COUNTER_DEPTH)
    expect(here).toBe(slices.length - COUNTER_DEPTH)
    expect(slow.asked()).toBe(COUNTER_DEPTH)
    for (const f of held) f()
    const results = await Promise.all(counted)
    const count = countMessage(await loadEstimator('o200k_base'))
    expect(results.map((r) => r.tokens)).toEqual(slices.map((ms) => count(ms[0] as Messages[number]).total))
  })
})
