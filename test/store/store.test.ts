import { describe, expect, it, vi } from 'vitest'
import * as E from 'fp-ts/Either'
import { createChatStore } from '../../src/store/store.ts'
import { createSimulator } from '../../src/store/simulator.ts'

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
})
