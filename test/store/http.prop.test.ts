import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/Either'
import { createChatHandler } from '../../src/store/http.ts'
import { createChatStore } from '../../src/store/store.ts'
import { validateState } from '../../src/store/state.ts'

const routes = [
  '/events',
  '/events/immediate',
  '/modalities/chat/submit',
  '/environment/modalities/chat/query',
  '/environment/modalities/chat',
  '/simulator/advance',
  '/simulator',
  '/nope',
]

// mostly valid data (so that requests change the store), some of it broken in one field, some random
const validDataArb = fc.record(
  {
    role: fc.constantFrom('user', 'assistant'),
    content: fc.oneof(
      fc.string({ minLength: 1 }),
      fc.array(
        fc.oneof(
          fc.record({ type: fc.constant('text'), text: fc.string() }),
          fc.record({ type: fc.constant('image'), source: fc.constant('url'), url: fc.webUrl() }),
        ),
        { minLength: 1, maxLength: 3 },
      ),
    ),
    conversation_id: fc.constantFrom('a', 'b', '__proto__'),
    message_id: fc.constantFrom('m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8'),
    metadata: fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
  },
  { requiredKeys: ['role', 'content'] },
)

const brokenDataArb = fc
  .tuple(validDataArb, fc.constantFrom('role', 'content', 'conversation_id', 'message_id', 'metadata', 'timestamp', 'extra'), fc.jsonValue())
  .map(([d, k, v]) => ({ ...d, [k]: v }))

const dataArb = fc.oneof({ weight: 6, arbitrary: validDataArb }, { weight: 2, arbitrary: brokenDataArb }, { weight: 1, arbitrary: fc.jsonValue() })

const timeArb = fc.oneof(
  { weight: 5, arbitrary: fc.date({ min: new Date('2024-03-01'), max: new Date('2024-04-01'), noInvalidDate: true }).map((d) => d.toISOString()) },
  { weight: 1, arbitrary: fc.string() },
)

const bodies: Record<string, fc.Arbitrary<unknown>> = {
  '/modalities/chat/submit': dataArb,
  '/events': fc.record({ scheduled_time: timeArb, modality: fc.constantFrom('chat', 'chat', 'email'), data: dataArb }, { requiredKeys: ['data'] }),
  '/events/immediate': fc.record({ modality: fc.constantFrom('chat', 'chat', 'email'), data: dataArb }, { requiredKeys: ['data'] }),
  '/environment/modalities/chat/query': fc.record(
    {
      conversation_id: fc.constantFrom('a', 'b', 7),
      role: fc.constantFrom('user', 'bot'),
      limit: fc.integer({ min: -1, max: 5 }),
      search: fc.string(),
      since: timeArb,
      until: timeArb,
    },
    { requiredKeys: [] },
  ),
  '/simulator/advance': fc.oneof(
    fc.record({ seconds: fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.double()) }),
    fc.record({ until: timeArb }),
    fc.jsonValue(),
  ),
}

const routed = fc.constantFrom(
  ['POST', '/modalities/chat/submit'],
  ['POST', '/events'],
  ['POST', '/events/immediate'],
  ['POST', '/environment/modalities/chat/query'],
  ['POST', '/simulator/advance'],
  ['GET', '/environment/modalities/chat'],
  ['GET', '/events'],
  ['GET', '/simulator'],
)

const requestArb = fc.record({
  target: fc.oneof({ weight: 6, arbitrary: routed }, {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), fc.constantFrom(...routes)),
  }),
  limited: fc.boolean(),
}).chain(({ target: [method, route], limited }) =>
  fc
    .oneof({ weight: 8, arbitrary: (bodies[route] ?? fc.jsonValue()).map((b) => JSON.stringify(b) ?? 'null') }, { weight: 1, arbitrary: fc.string() })
    .map((body) => ({ method, route, body, limited }))
)

describe('chat API under arbitrary requests', () => {
  it('never fails with a 500, a refused request changes nothing, and the state stays valid', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(requestArb, { minLength: 1, maxLength: 12 }), async (requests) => {
        const store = createChatStore({ startTime: '2024-03-15T10:00:00Z', maxHistorySize: 3 })
        const handler = createChatHandler(store, {
          maxBodyBytes: 2_000,
          authorize: (r) => (r.headers.get('x-limited') === '1' ? { type: 'allow', conversations: ['a'] } : { type: 'allow' }),
        })
        for (const r of requests) {
          const before = store.simulator()
          const init: RequestInit = { method: r.method, headers: r.limited ? { 'x-limited': '1' } : {} }
          if (r.method !== 'GET') init.body = r.body
          const res = await handler(new Request(`http://x${r.route}`, init))
          expect(res.status).not.toBe(500)
          expect(res.headers.get('content-type')).toContain('application/json')
          JSON.parse(await res.text())
          if (res.status >= 400) expect(store.simulator()).toBe(before)
        }
        expect(E.isRight(validateState(store.state()))).toBe(true)
      }),
      { numRuns: 150 },
    )
  })
})
