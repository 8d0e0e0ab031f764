import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { memoryStorage, openDurableStore, replayLog, type StoreStorage } from '../../src/store/durable.ts'
import { decodeSimulator, encodeSimulator, restoreSimulator, type StoreCommand } from '../../src/store/log.ts'
import { createChatStore } from '../../src/store/store.ts'
import type { Simulator } from '../../src/store/simulator.ts'

const START = '2024-03-15T10:00:00Z'

/** A run of steps of every kind, some refused. */
const drive = (store: ReturnType<typeof createChatStore>) => {
  store.submit({ role: 'user', content: "What's the weather?" })
  store.submit({ role: 'assistant', content: [{ type: 'text', text: 'Sunny.' }], message_id: 'a-1', conversation_id: 'c-1', metadata: { model: 'x' } })
  store.submit({ role: 'user', content: 'dup', message_id: 'a-1', conversation_id: 'c-1' }) // refused: duplicate
  store.submit({ role: 'bot', content: '' }) // refused: invalid
  store.schedule({ scheduled_time: '2024-03-15T10:30:00Z', data: { role: 'user', content: 'later' } })
  store.schedule({ scheduled_time: '2024-03-15T12:00:00Z', data: { role: 'user', content: 'much later', message_id: 'a-1', conversation_id: 'c-1' } }) // fails when it falls due
  store.schedule({ scheduled_time: '2025-01-01T00:00:00Z', data: { role: 'user', content: 'next year' } })
  store.advanceBy(3 * 3600)
  store.advanceTo('2024-03-15T13:00:00Z')
}

describe('a store created at module scope', () => {
  it('creates its simulator (random id prefix, clock) on first use, not when made', () => {
    const recorded: StoreCommand[] = []
    const store = createChatStore({}, { record: (c) => void recorded.push(c), flush: async () => undefined })
    expect(recorded).toEqual([])
    const now = Date.now()
    store.state()
    expect(recorded.map((c) => c.op)).toEqual(['create'])
    const created = recorded[0]
    expect(created?.op === 'create' && Math.abs(Date.parse(created.startTime) - now) < 86_400_000).toBe(true)
    store.state()
    expect(recorded).toHaveLength(1)
  })
})

describe('openDurableStore', () => {
  it('recovers exactly the simulator its accepted steps made, refused steps leaving no record', async () => {
    const storage = memoryStorage()
    const a = await openDurableStore(storage)({ startTime: START, idPrefix: 'p-' })
    drive(a)
    await a.flush()
    // create, 2 submits, 3 schedules, 2 advances; the two refused submits are not logged
    expect(storage.records().map((r) => r.command.op)).toEqual(['create', 'submit', 'submit', 'schedule', 'schedule', 'schedule', 'advance', 'advance'])
    expect(storage.records().map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    const b = await openDurableStore(storage)()
    expect(encodeSimulator(b.simulator())).toEqual(encodeSimulator(a.simulator()))
    expect(b.recovery).toEqual({ snapshotSeq: 0, replayed: 8, seq: 8, messages: 3, repaired: [] })
  })

  it('writes a snapshot every N records and replays only the tail after it', async () => {
    const storage = memoryStorage()
    const a = await openDurableStore(storage)({ startTime: START, snapshotEvery: 5 })
    for (let i = 0; i < 12; i++) {
      a.submit({ role: 'user', content: `m${i}` })
      await a.flush()
    }
    expect(storage.snapshot()?.seq).toBe(10)
    expect(storage.records().map((r) => r.seq)).toEqual([11, 12, 13])
    const b = await openDurableStore(storage)()
    expect(b.recovery).toMatchObject({ snapshotSeq: 10, replayed: 3, seq: 13, messages: 12 })
    expect(encodeSimulator(b.simulator())).toEqual(encodeSimulator(a.simulator()))
  })

  it('writes the steps accepted during one append together in the next (group commit)', async () => {
    const inner = memoryStorage()
    const batches: number[] = []
    const storage: StoreStorage = { ...inner, append: (es) => (batches.push(es.length), inner.append(es)) }
    const store = await openDurableStore(storage)({ startTime: START })
    const flushes = Array.from({ length: 100 }, (_, i) => {
      store.submit({ role: 'user', content: `m${i}` })
      return store.flush()
    })
    await Promise.all(flushes)
    expect(batches.reduce((a, b) => a + b, 0)).toBe(101)
    expect(batches.length).toBeLessThanOrEqual(2)
  })

  it('fails every flush once an append has failed, and never reports the lost steps as durable', async () => {
    const inner = memoryStorage()
    let broken = false
    const storage: StoreStorage = { ...inner, append: async (es) => (broken ? Promise.reject(new Error('disk full')) : inner.append(es)) }
    const store = await openDurableStore(storage)({ startTime: START })
    store.submit({ role: 'user', content: 'kept' })
    await store.flush()
    broken = true
    store.submit({ role: 'user', content: 'lost' })
    await expect(store.flush()).rejects.toThrow(/could not be written: disk full/)
    broken = false
    await expect(store.flush()).rejects.toThrow(/disk full/)
    const back = await openDurableStore(inner)()
    expect(back.state().updateCount).toBe(1)
  })

  it('names the record when the log cannot be replayed', () => {
    const create = { op: 'create', startTime: START, idPrefix: 'p-', maxHistorySize: 10, defaultConversationId: 'default' }
    const submit = { op: 'submit', data: { role: 'user', content: 'Hi', message_id: 'x' } }
    const gap = replayLog({ snapshot: undefined, tail: [{ seq: 1, command: create }, { seq: 3, command: submit }] })
    expect(gap).toEqual(E.left('Cannot replay the log: record 3 follows record 1 (records 2–2 are missing)'))
    const bad = replayLog({ snapshot: undefined, tail: [{ seq: 1, command: create }, { seq: 2, command: { op: 'shout' } }] })
    expect(E.isLeft(bad) && bad.left).toMatch(/^Cannot replay the log: record 2 is not a command: expected op/)
    const dup = replayLog({ snapshot: undefined, tail: [{ seq: 1, command: create }, { seq: 2, command: submit }, { seq: 3, command: submit }] })
    expect(E.isLeft(dup) && dup.left).toMatch(/record 3 \(submit\) fails: duplicate message id "x"/)
    const noCreate = replayLog({ snapshot: undefined, tail: [{ seq: 1, command: submit }] })
    expect(E.isLeft(noCreate) && noCreate.left).toMatch(/record 1 \(submit\) fails: a submit command before the create command/)
  })

  it('round-trips a simulator through its JSON form', async () => {
    const store = createChatStore({ startTime: START, maxHistorySize: Infinity })
    drive(store)
    const json = JSON.parse(JSON.stringify(encodeSimulator(store.simulator())))
    const back = decodeSimulator(json)
    expect(E.isRight(back)).toBe(true)
    const sim = (back as E.Right<Simulator>).right
    expect(encodeSimulator(sim)).toEqual(json)
    expect(sim.state.maxHistorySize).toBe(Infinity)
    expect(E.isLeft(decodeSimulator({ ...json, now: 'noon' }))).toBe(true)
    // the trusted path (a store's own snapshot) rebuilds the same simulator
    const restored = restoreSimulator(json)
    expect(E.isRight(restored) && encodeSimulator(restored.right)).toEqual(json)
    expect(E.isRight(restored) && restored.right.state.maxHistorySize).toBe(Infinity)
  })
})
