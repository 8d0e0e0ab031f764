/**
 * The event history is bounded (by count and by age of simulated time) and paged from the newest:
 * a long-running store keeps a bounded log, and `GET /events?limit=N` reads N events, not all.
 */
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { createChatHandler } from '../../src/store/http.ts'
import { createChatStore } from '../../src/store/store.ts'
import { DEFAULT_MAX_EVENTS, eventHistory, recentEvents, type SimEvent } from '../../src/store/simulator.ts'

const contentOf = (e: SimEvent): unknown => e.input.content

describe('the event history', () => {
  // 100,000 submits through the store, the long run the bound is for: seconds on an idle machine,
  // tens of seconds beside other work, so a budget of its own rather than vitest's 5 s
  it('keeps the newest DEFAULT_MAX_EVENTS events of 100,000 submits, in order', () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z', maxHistorySize: 100 })
    for (let i = 0; i < 100_000; i++) if (E.isLeft(store.submit({ role: 'user', content: `m${i}` }))) throw new Error(`submit ${i} refused`)
    const events = eventHistory(store.simulator())
    expect(events).toHaveLength(DEFAULT_MAX_EVENTS)
    expect(contentOf(events[0]!)).toBe(`m${100_000 - DEFAULT_MAX_EVENTS}`)
    expect(contentOf(events.at(-1)!)).toBe('m99999')
    expect(store.state().updateCount).toBe(100_000)
  }, 120_000)

  it('keeps at most maxEvents', () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z', maxEvents: 5 })
    for (let i = 0; i < 12; i++) store.submit({ role: 'user', content: `m${i}` })
    expect(eventHistory(store.simulator()).map(contentOf)).toEqual(['m7', 'm8', 'm9', 'm10', 'm11'])
  })

  it('drops events older than maxEventAgeSeconds of simulated time', () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z', maxEventAgeSeconds: 60 })
    store.submit({ role: 'user', content: 'early' })
    store.advanceBy(30)
    store.submit({ role: 'user', content: 'middle' })
    store.advanceBy(45)
    store.submit({ role: 'user', content: 'late' })
    expect(eventHistory(store.simulator()).map(contentOf)).toEqual(['middle', 'late'])
  })

  it('recentEvents reads the newest events and visits no more than it needs', () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    for (let i = 0; i < 1_000; i++) store.submit({ role: 'user', content: `m${i}`, conversation_id: i % 2 === 0 ? 'even' : 'odd' })
    let visited = 0
    const odd = recentEvents({ limit: 3, keep: (e) => (visited++, e.input.conversation_id === 'odd') })(store.simulator())
    expect(odd.map(contentOf)).toEqual(['m995', 'm997', 'm999'])
    expect(visited).toBe(5) // m999, m998, m997, m996, m995
    expect(recentEvents({ limit: 0 })(store.simulator())).toEqual([])
  })

  it('GET /events?limit=10 answers the 10 newest, oldest first', async () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    for (let i = 0; i < 50; i++) store.submit({ role: 'user', content: `m${i}` })
    const r = await createChatHandler(store)(new Request('http://localhost/events?limit=10'))
    expect(r.status).toBe(200)
    const body = (await r.json()) as { events: SimEvent[] }
    expect(body.events.map(contentOf)).toEqual(Array.from({ length: 10 }, (_, i) => `m${40 + i}`))
  })
})
