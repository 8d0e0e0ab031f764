import { describe, expect, it, vi } from 'vitest'
import * as E from 'fp-ts/Either'
import { createChatStore } from '../../src/store/store.ts'
import { createSimulator, decodeEventData, decodeScheduledEvent } from '../../src/store/simulator.ts'
import { encodeSimulator, type StoreCommand } from '../../src/store/log.ts'
import { replayLog } from '../../src/store/durable.ts'

describe('createChatStore', () => {
  it('steps its simulator and swaps the value only on success', () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z', maxHistorySize: 5 })
    const before = store.simulator()
    expect(E.isRight(store.submit({ role: 'user', content: 'Hi' }))).toBe(true)
    const after = store.simulator()
    expect(after).not.toBe(before)
    expect(store.state().updateCount).toBe(1)
    expect(E.isLeft(store.submit({ role: 'bot', content: 'Hi' }))).toBe(true)
    expect(store.simulator()).toBe(after)
    expect(store.state().maxHistorySize).toBe(5)
  })

  it('schedules and advances', () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    const e = store.schedule({ scheduled_time: '2024-03-15T10:30:00Z', data: { role: 'user', content: 'later' } })
    expect(E.isRight(e) && e.right.status).toBe('pending')
    expect(store.advanceTo('2024-03-15T10:29:00Z')).toEqual(E.right([]))
    const a = store.advanceBy(60)
    expect(E.isRight(a) ? a.right.map((x) => x.status) : []).toEqual(['applied'])
    expect(store.simulator().now).toBe('2024-03-15T10:30:00.000Z')
    expect(E.isLeft(store.advanceBy(-5))).toBe(true)
  })

  it('tells listeners about every change, survives a throwing one, and unsubscribes', () => {
    const store = createChatStore({ simulator: createSimulator() })
    const seen = vi.fn()
    store.subscribe(() => {
      throw new Error('boom')
    })
    const off = store.subscribe(seen)
    store.submit({ role: 'user', content: 'a' })
    store.submit({ role: 'nobody', content: 'a' })
    expect(seen.mock.calls.length).toBe(1)
    expect(seen.mock.calls[0]?.[0]).toBe(store.simulator())
    off()
    store.submit({ role: 'user', content: 'b' })
    expect(seen.mock.calls.length).toBe(1)
    expect(store.state().updateCount).toBe(2)
  })

  it('takes an event decoded once, and logs a command that replays to the same simulator', () => {
    const commands: StoreCommand[] = []
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' }, { record: (c) => void commands.push(c), flush: async () => undefined })
    const now = decodeEventData({ role: 'user', content: [{ type: 'text', text: 'Hi', note: 'dropped' }], conversation_id: 'c' })
    const later = decodeScheduledEvent({ scheduled_time: '2024-03-15T10:30:00Z', data: { role: 'assistant', content: 'Later' } })
    if (E.isLeft(now) || E.isLeft(later)) throw new Error('expected valid events')
    expect(E.isRight(store.submitDecoded(now.right)) && store.state().updateCount).toBe(1)
    expect(E.isRight(store.submitDecoded(later.right)) && store.simulator().pending?.n).toBe(1)
    expect(E.isLeft(store.submitDecoded(now.right))).toBe(false) // a generated input id each time: not a duplicate
    expect(commands.map((c) => c.op)).toEqual(['create', 'submit', 'schedule', 'submit'])
    expect(commands[1]).toEqual({ op: 'submit', data: { role: 'user', content: [{ type: 'text', text: 'Hi' }], conversation_id: 'c' } })
    const replayed = replayLog({ snapshot: undefined, tail: JSON.parse(JSON.stringify(commands.map((command, i) => ({ seq: i + 1, command })))) })
    const simulator = E.isRight(replayed) ? replayed.right.simulator : undefined
    expect(simulator && encodeSimulator(simulator)).toEqual(encodeSimulator(store.simulator()))
  })
})
