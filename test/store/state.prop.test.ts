import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/Either'
import { textContent } from '../../src/message/accessors.ts'
import type { ChatInput } from '../../src/store/input.ts'
import { applyInput, emptyState, validateState } from '../../src/store/state.ts'
import { type ChatQuery, query } from '../../src/store/query.ts'
import { fromSnapshot, toSnapshot } from '../../src/store/snapshot.ts'
import { fromStoreMessages, toStoreMessages } from '../../src/store/persist.ts'
import { fromJSONL, toJSONL } from '../../src/history/codec.ts'
import { deepFreeze } from '../support/arbitraries.ts'
import { type ContentBlock, fromChatContent } from '../../src/store/content.ts'
import { getMessageById } from '../../src/store/query.ts'
import { encodeBase64 } from '../../src/internal/base64.ts'
import { applyAll } from './helpers.ts'

// few distinct minutes and seconds, so that ties are common
const timestampArb = fc
  .tuple(fc.integer({ min: 0, max: 5 }), fc.constantFrom(0, 30), fc.constantFrom('Z', '+01:00', '.000000500Z'))
  .map(([m, s, z]) => {
    const base = new Date(Date.UTC(2024, 2, 15, z === '+01:00' ? 11 : 10, m, s)).toISOString().slice(0, 19)
    return `${base}${z}`
  })

const contentArb = fc.oneof(
  fc.constantFrom('rain today', 'Sunny', 'no RAIN', 'hello', 'é Ça va'),
  fc.constant([{ type: 'text' as const, text: 'Is this rain?' }, { type: 'image' as const, source: 'url' as const, url: 'https://e.x/a.png' }]),
)

/** Chat inputs with unique input ids (so unique message ids), in random conversations. */
const inputsArb: fc.Arbitrary<ReadonlyArray<ChatInput>> = fc
  .uniqueArray(fc.stringMatching(/^[a-f0-9]{1,4}$/), { maxLength: 40 })
  .chain((ids) =>
    fc.tuple(
      ...ids.map((id) =>
        fc.record({
          timestamp: timestampArb,
          role: fc.constantFrom('user' as const, 'assistant' as const),
          content: contentArb,
          conv: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }),
        }).map(({ timestamp, role, content, conv }): ChatInput =>
          deepFreeze({ modality_type: 'chat', timestamp, input_id: id, role, content, ...(conv === undefined ? {} : { conversation_id: conv }) })
        )
      ),
    )
  )

const limitArb = fc.oneof(fc.constant(Infinity), fc.integer({ min: 0, max: 6 }))

const queryArb: fc.Arbitrary<ChatQuery> = fc.record(
  {
    conversation_id: fc.constantFrom('a', 'b', 'c', 'default', 'zzz'),
    role: fc.constantFrom('user' as const, 'assistant' as const),
    since: timestampArb,
    until: timestampArb,
    limit: fc.integer({ min: 0, max: 8 }),
    search: fc.constantFrom('rain', 'RAIN', 'sun', '', 'x'),
  },
  { requiredKeys: [] },
)

const instant = (iso: string): [number, number] => {
  const frac = /T[^.]*\.(\d+)/.exec(iso)?.[1] ?? ''
  return [Date.parse(iso), frac.length > 3 ? Number(frac.slice(3, 9).padEnd(6, '0')) : 0]
}
const cmpInstant = (a: string, b: string) => {
  const [x, y] = [instant(a), instant(b)]
  return x[0] - y[0] || x[1] - y[1]
}

describe('ChatState properties', () => {
  it('the final state does not depend on the order inputs arrive in (limits included), and it is valid', () => {
    fc.assert(
      fc.property(inputsArb, limitArb, fc.infiniteStream(fc.nat()), (inputs, limit, seeds) => {
        const a = applyAll(emptyState({ maxHistorySize: limit }), inputs)
        const it = seeds[Symbol.iterator]()
        const shuffled = [...inputs].sort(() => ((it.next().value as number) % 3) - 1)
        const b = applyAll(emptyState({ maxHistorySize: limit }), shuffled)
        expect(toSnapshot(b)).toEqual(toSnapshot(a))
        expect(validateState(a)).toEqual(E.right(a))
      }),
      { numRuns: 150 },
    )
  })

  it('holds, per conversation, the maxHistorySize latest messages in (timestamp, input id) order', () => {
    fc.assert(
      fc.property(inputsArb, limitArb, (inputs, limit) => {
        const s = applyAll(emptyState({ maxHistorySize: limit }), inputs)
        const byConv = new Map<string, ChatInput[]>()
        for (const i of inputs) byConv.set(i.conversation_id ?? 'default', [...(byConv.get(i.conversation_id ?? 'default') ?? []), i])
        for (const [conv, list] of byConv) {
          const sorted = [...list].sort((x, y) => cmpInstant(x.timestamp, y.timestamp) || (x.input_id < y.input_id ? -1 : 1))
          const kept = limit === Infinity ? sorted : sorted.slice(Math.max(0, sorted.length - limit))
          expect(query({ conversation_id: conv })(s).map((m) => m.id)).toEqual(kept.map((i) => i.input_id))
          expect(toSnapshot(s).conversations[conv]?.message_count).toBe(list.length)
        }
        expect(s.updateCount).toBe(inputs.length)
      }),
      { numRuns: 150 },
    )
  })

  it('query agrees with a naive filter over the held messages, for every combination of parameters', () => {
    fc.assert(
      fc.property(inputsArb, queryArb, (inputs, q) => {
        const s = applyAll(emptyState(), inputs)
        const all = query({})(s)
        let expected = all.filter(
          (m) =>
            (q.conversation_id === undefined || m.conversationId === q.conversation_id) &&
            (q.role === undefined || m.role === q.role) &&
            (q.since === undefined || cmpInstant(m.createdAt ?? '', q.since) >= 0) &&
            (q.until === undefined || cmpInstant(m.createdAt ?? '', q.until) <= 0) &&
            (q.search === undefined || textContent(m).toLowerCase().includes(q.search.toLowerCase())),
        )
        if (q.limit !== undefined) expected = q.limit === 0 ? [] : expected.slice(-q.limit)
        expect(query(q)(s)).toEqual(expected)
      }),
      { numRuns: 200 },
    )
  })

  it('applying never changes the state it was given', () => {
    fc.assert(
      fc.property(inputsArb, (inputs) => {
        const half = Math.floor(inputs.length / 2)
        const s = applyAll(emptyState({ maxHistorySize: 3 }), inputs.slice(0, half))
        const before = JSON.stringify(toSnapshot(s))
        for (const i of inputs.slice(half)) applyInput(i)(s)
        expect(JSON.stringify(toSnapshot(s))).toBe(before)
      }),
      { numRuns: 100 },
    )
  })

  it('a snapshot and a saved store round-trip', () => {
    fc.assert(
      fc.property(inputsArb, limitArb, (inputs, limit) => {
        const s = applyAll(emptyState({ maxHistorySize: limit }), inputs)
        const snap = toSnapshot(s)
        const back = fromSnapshot(JSON.parse(JSON.stringify(snap)))
        expect(E.isRight(back) ? toSnapshot(back.right) : back).toEqual(snap)
        const lines = fromJSONL(toJSONL(toStoreMessages(s)))
        const restored = E.isRight(lines) ? fromStoreMessages(lines.right) : lines
        expect(E.isRight(restored) ? toSnapshot(restored.right) : restored).toEqual(snap)
      }),
      { numRuns: 100 },
    )
  })

  it('a stored message has the parts fromChatContent makes of its content, its media bytes read from the content', () => {
    const mediaType = fc.option(fc.constantFrom('image/png', 'image/*', 'audio/*', 'audio/wav', 'video/mp4', 'text/plain'), { nil: undefined })
    const blockArb: fc.Arbitrary<ContentBlock> = fc.oneof(
      fc.string().map((text): ContentBlock => ({ type: 'text', text })),
      fc
        .tuple(
          fc.constantFrom('image' as const, 'audio' as const, 'video' as const),
          fc.oneof(fc.webUrl().map((url) => ({ url })), fc.uint8Array({ maxLength: 40 }).map((b) => ({ data: encodeBase64(b) }))),
          mediaType,
        )
        .map(([type, source, media_type]): ContentBlock =>
          ({
            type,
            ...('url' in source ? { source: 'url' as const, url: source.url } : { source: 'base64' as const, data: source.data }),
            ...(media_type === undefined ? {} : { media_type }),
          }) as ContentBlock
        ),
    )
    fc.assert(
      fc.property(fc.oneof(fc.string({ minLength: 1 }), fc.array(blockArb, { minLength: 1, maxLength: 5 })), (content) => {
        const input: ChatInput = deepFreeze({ modality_type: 'chat', timestamp: '2024-03-15T10:00:00Z', input_id: 'i', role: 'user', content })
        const s = applyAll(emptyState(), [input])
        const m = getMessageById('i')(s)
        expect(m._tag === 'Some' ? m.value.parts : undefined).toEqual(fromChatContent(content))
        expect(toSnapshot(s).messages[0]?.content).toBe(content)
      }),
      { numRuns: 200 },
    )
  })
})
