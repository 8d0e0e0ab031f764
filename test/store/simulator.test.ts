import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { textContent } from '../../src/message/accessors.ts'
import { getConversation } from '../../src/store/query.ts'
import {
  advanceBy,
  advanceTo,
  createSimulator,
  decodeEventData,
  decodeScheduledEvent,
  eventHistory,
  formatStoreFailure,
  pendingEvents,
  scheduleEvent,
  type Simulator,
  submitDecodedEvent,
  submitEvent,
} from '../../src/store/simulator.ts'

const start = () => createSimulator({ startTime: '2024-03-15T10:00:00Z', idPrefix: 'in-' })

const ok = <A>(r: E.Either<unknown, A>): A => {
  if (E.isLeft(r)) throw new Error(`expected right, got ${JSON.stringify(r.left)}`)
  return r.right
}

const texts = (s: Simulator, conv = 'default') => getConversation(conv)(s.state).map(textContent)

describe('createSimulator', () => {
  it('starts its clock at the given time, canonical, with nothing queued', () => {
    const s = createSimulator({ startTime: '2024-03-15T11:00:00+01:00' })
    expect(s.now).toBe('2024-03-15T10:00:00.000Z')
    expect(pendingEvents(s)).toEqual([])
    expect(eventHistory(s)).toEqual([])
    expect(s.idPrefix.length).toBeGreaterThan(0)
  })
})

describe('submitEvent (immediate)', () => {
  it('applies at the current simulated time with a generated input id', () => {
    const { simulator, event } = ok(submitEvent({ role: 'assistant', content: "It's sunny and 72°F." })(start()))
    expect(event).toMatchObject({
      event_id: 'in-000000000001',
      status: 'applied',
      scheduled_time: '2024-03-15T10:00:00.000Z',
      applied_at: '2024-03-15T10:00:00.000Z',
    })
    expect(event.input).toEqual({
      modality_type: 'chat',
      input_id: 'in-000000000001',
      role: 'assistant',
      content: "It's sunny and 72°F.",
      timestamp: '2024-03-15T10:00:00.000Z',
    })
    expect(texts(simulator)).toEqual(["It's sunny and 72°F."])
    expect(eventHistory(simulator)).toEqual([event])
  })

  it('keeps submission order for messages at the same simulated time', () => {
    let s = start()
    for (const c of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k']) s = ok(submitEvent({ role: 'user', content: c })(s)).simulator
    expect(texts(s)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'])
  })

  it('refuses bad data with paths relative to the data, and a timestamp, changing nothing', () => {
    const s = start()
    const r = submitEvent({ role: 'bot', content: '', timestamp: '2024-01-01T00:00:00Z' })(s)
    expect(E.isLeft(r) && r.left.kind === 'invalid_input' ? r.left.failure.map((i) => i.path) : []).toEqual(['timestamp', 'role', 'content'])
    expect(E.isLeft(submitEvent('hello')(s))).toBe(true)
    expect(s.seq).toBe(0)
  })

  it('refuses a duplicate message id and records nothing', () => {
    const s = ok(submitEvent({ role: 'user', content: 'a', message_id: 'm' })(start())).simulator
    const r = submitEvent({ role: 'user', content: 'b', message_id: 'm' })(s)
    expect(E.isLeft(r) && r.left.kind).toBe('duplicate_message')
    expect(E.isLeft(r) ? formatStoreFailure(r.left) : '').toBe('duplicate message id "m" in conversation "default"')
    expect(eventHistory(s)).toHaveLength(1)
  })
})

describe('scheduleEvent and the clock', () => {
  it('waits for the clock, then applies in time order (ties in submission order)', () => {
    let s = start()
    s = ok(scheduleEvent({ scheduled_time: '2024-03-15T10:30:00Z', data: { role: 'user', content: "What's the weather today?" } })(s)).simulator
    s = ok(scheduleEvent({ scheduled_time: '2024-03-15T10:10:00Z', data: { role: 'user', content: 'first' } })(s)).simulator
    s = ok(scheduleEvent({ scheduled_time: '2024-03-15T10:30:00Z', data: { role: 'assistant', content: 'same time, later' } })(s)).simulator
    expect(pendingEvents(s).map((e) => e.input.content)).toEqual(['first', "What's the weather today?", 'same time, later'])
    expect(texts(s)).toEqual([])

    const a = ok(advanceTo('2024-03-15T10:20:00Z')(s))
    expect(a.applied.map((e) => [e.input.content, e.status, e.applied_at])).toEqual([['first', 'applied', '2024-03-15T10:10:00.000Z']])
    expect(a.simulator.now).toBe('2024-03-15T10:20:00.000Z')

    const b = ok(advanceBy(600)(a.simulator))
    expect(b.applied.map((e) => e.input.content)).toEqual(["What's the weather today?", 'same time, later'])
    expect(texts(b.simulator)).toEqual(['first', "What's the weather today?", 'same time, later'])
    expect(pendingEvents(b.simulator)).toEqual([])
    expect(eventHistory(b.simulator).map((e) => e.input.content)).toEqual(['first', "What's the weather today?", 'same time, later'])
  })

  it('applies an event scheduled in the past at once, sorted into place by its own time', () => {
    let s = ok(submitEvent({ role: 'user', content: 'now' })(start())).simulator
    const step = ok(scheduleEvent({ scheduled_time: '2024-03-15T09:00:00Z', data: { role: 'user', content: 'earlier' } })(s))
    s = step.simulator
    expect(step.event.status).toBe('applied')
    expect(texts(s)).toEqual(['earlier', 'now'])
  })

  it('records an event the state refuses when it falls due as failed, and carries on', () => {
    let s = start()
    s = ok(scheduleEvent({ scheduled_time: '2024-03-15T10:05:00Z', data: { role: 'user', content: 'x', message_id: 'm' } })(s)).simulator
    s = ok(submitEvent({ role: 'user', content: 'y', message_id: 'm' })(s)).simulator
    s = ok(scheduleEvent({ scheduled_time: '2024-03-15T10:06:00Z', data: { role: 'user', content: 'z' } })(s)).simulator
    const a = ok(advanceBy(3600)(s))
    expect(a.applied.map((e) => e.status)).toEqual(['failed', 'applied'])
    expect(a.applied[0]?.error).toContain('duplicate message id "m"')
    expect(texts(a.simulator)).toEqual(['y', 'z'])
  })

  it('reports bad schedules by path: scheduled_time and data', () => {
    const r = scheduleEvent({ scheduled_time: 'soon', data: { role: 'bot', content: 'x' } })(start())
    expect(E.isLeft(r) && r.left.kind === 'invalid_input' ? r.left.failure.map((i) => i.path) : []).toEqual(['scheduled_time', 'data.role'])
  })

  it('never goes back in time', () => {
    const s = start()
    expect(E.isLeft(advanceTo('2024-03-15T09:59:59Z')(s))).toBe(true)
    expect(E.isLeft(advanceTo('not a time')(s))).toBe(true)
    expect(E.isLeft(advanceBy(-1)(s))).toBe(true)
    expect(E.isLeft(advanceBy(Number.NaN)(s))).toBe(true)
    expect(E.isLeft(advanceBy(1e20)(s))).toBe(true)
    expect(ok(advanceBy(0)(s)).simulator.now).toBe(s.now)
  })

  it('leaves every earlier simulator value intact', () => {
    const s0 = start()
    const s1 = ok(scheduleEvent({ scheduled_time: '2024-03-15T10:05:00Z', data: { role: 'user', content: 'x' } })(s0)).simulator
    const s2 = ok(advanceBy(3600)(s1)).simulator
    expect(pendingEvents(s1)).toHaveLength(1)
    expect(texts(s1)).toEqual([])
    expect(texts(s2)).toEqual(['x'])
    expect(pendingEvents(s0)).toEqual([])
  })
})

describe('an event decoded once (decodeEventData, decodeScheduledEvent, submitDecodedEvent)', () => {
  const image = { type: 'image', source: 'base64', data: 'AAEC', media_type: 'image/png' } as const
  const datas: ReadonlyArray<unknown> = [
    { role: 'user', content: 'Hi' },
    { role: 'assistant', content: [{ type: 'text', text: 'look' }, image], conversation_id: 'c', message_id: 'm', metadata: { a: 1 } },
    { role: 'user', content: [{ ...image, extra: 'dropped' }], input_id: 'given', modality_type: 'chat' },
  ]

  it('steps the simulator exactly as submitEvent and scheduleEvent, now, due or later', () => {
    const s = ok(submitEvent({ role: 'user', content: 'before' })(start())).simulator
    for (const data of datas) {
      expect(submitDecodedEvent(ok(decodeEventData(data)))(s)).toEqual(submitEvent(data)(s))
      for (const scheduled_time of ['2024-03-15T09:00:00Z', '2024-03-15T10:00:00.000Z', '2024-03-15T11:00:00Z']) {
        expect(submitDecodedEvent(ok(decodeScheduledEvent({ scheduled_time, data })))(s)).toEqual(scheduleEvent({ scheduled_time, data })(s))
      }
    }
  })

  it('reports the same issues, by the same paths', () => {
    const bad = { role: 'bot', content: [{ type: 'image', source: 'ftp' }], timestamp: 'now', extra: 1 }
    const failure = (r: E.Either<unknown, unknown>) => (E.isLeft(r) ? r.left : undefined)
    const issues = failure(decodeEventData(bad))
    expect(issues).toEqual((failure(submitEvent(bad)(start())) as { failure: unknown }).failure)
    expect(issues).not.toBeUndefined()
    const scheduled = failure(decodeScheduledEvent({ scheduled_time: 'soon', data: bad }))
    expect(scheduled).toEqual((failure(scheduleEvent({ scheduled_time: 'soon', data: bad })(start())) as { failure: unknown }).failure)
    expect(decodeEventData('hello')).toEqual(E.left([{ path: '', expected: 'chat message data (an object with role and content)', actual: 'hello' }]))
  })

  it('keeps the data as sent, with unknown content block fields dropped', () => {
    const data = { role: 'user', content: [image] } as const
    expect(ok(decodeEventData(data)).data.content).toBe(data.content)
    expect(ok(decodeEventData(datas[2])).data).toEqual({ role: 'user', content: [image], input_id: 'given' })
  })

  it('checks the one thing it adds: an input id generated from a prefix too long to make an id', () => {
    const s = createSimulator({ startTime: '2024-03-15T10:00:00Z', idPrefix: 'p'.repeat(300) })
    const r = submitDecodedEvent(ok(decodeEventData({ role: 'user', content: 'x' })))(s)
    expect(E.isLeft(r) && r.left.kind === 'invalid_input' ? r.left.failure.map((i) => i.path) : []).toEqual(['input_id'])
    expect(r).toEqual(submitEvent({ role: 'user', content: 'x' })(s))
    expect(E.isRight(submitDecodedEvent(ok(decodeEventData({ role: 'user', content: 'x', input_id: 'mine' })))(s))).toBe(true)
  })
})
