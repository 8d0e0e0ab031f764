import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/Either'
import { decodeMessage, decodeMessages, encodeMessage, encodeMessages, makeMessage, textMessage } from '../../src/message/message.ts'
import { addPart, getMeta, setMeta, upsertToolCall } from '../../src/message/edit.ts'
import { deepFreeze, jsonArb, kindArb, messageArb, messagesArb, partArb, roleArb } from '../support/arbitraries.ts'
import * as O from 'fp-ts/Option'

describe('message laws', () => {
  it('decode ∘ encode = identity for messages and histories, also through JSON text', () => {
    fc.assert(
      fc.property(messageArb, (m) => {
        expect(decodeMessage(encodeMessage(m))).toEqual(E.right(m))
        expect(decodeMessage(JSON.parse(JSON.stringify(encodeMessage(m))))).toEqual(E.right(m))
      }),
      { numRuns: 200 },
    )
    fc.assert(fc.property(messagesArb, (ms) => void expect(decodeMessages(encodeMessages(ms))).toEqual(E.right(ms))), { numRuns: 100 })
  })

  it('constructors never produce what the decoder rejects', () => {
    fc.assert(
      fc.property(roleArb, kindArb, fc.array(partArb, { maxLength: 4 }), fc.string(), (role, kind, parts, s) => {
        expect(E.isRight(decodeMessage(encodeMessage(makeMessage({ role, kind, parts, sender: s }))))).toBe(true)
        expect(E.isRight(decodeMessage(encodeMessage(textMessage(role, s))))).toBe(true)
      }),
      { numRuns: 150 },
    )
  })

  it('setMeta/getMeta: what is set is got, for any key (frozen inputs are never mutated)', () => {
    fc.assert(
      fc.property(messageArb, fc.string(), jsonArb, (m, k, v) => {
        const before = JSON.stringify(encodeMessage(m))
        const m2 = setMeta(k, v)(m)
        expect(getMeta(k)(m2)).toEqual(O.some(v))
        expect(JSON.stringify(encodeMessage(m))).toBe(before)
        expect(E.isRight(decodeMessage(encodeMessage(m2)))).toBe(true)
      }),
      { numRuns: 150 },
    )
  })

  it('addPart and upsertToolCall never mutate their input', () => {
    fc.assert(
      fc.property(messageArb, partArb, (m, p) => {
        const frozen = deepFreeze(m)
        expect(addPart(p, '2026-01-01T00:00:00.000Z')(frozen).parts.length).toBe(m.parts.length + 1)
        if (p.type === 'tool_call') expect(upsertToolCall(p)(frozen).parts.length).toBeGreaterThanOrEqual(m.parts.length)
      }),
      { numRuns: 150 },
    )
  })
})
