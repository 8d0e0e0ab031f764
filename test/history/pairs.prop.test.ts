import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { repairToolPairs, validateToolPairs } from '../../src/history/pairs.ts'
import { conversationArb, messagesArb } from '../support/arbitraries.ts'
import type { Message } from '../../src/message/message.ts'

/** Histories that are nearly conversations: tool calls and results with a few colliding ids. */
const tangledArb: fc.Arbitrary<ReadonlyArray<Message>> = fc
  .array(
    fc.tuple(
      fc.constantFrom('system', 'user', 'assistant', 'tool', 'tool', 'assistant'),
      fc.array(
        fc.oneof(
          fc.constantFrom('a', 'b', 'c').map((id) => ({ type: 'tool_call' as const, id, name: 'read', arguments: '{}', status: 'complete' as const })),
          fc.constantFrom('a', 'b', 'c', 'd').map((id) => ({ type: 'tool_result' as const, toolCallId: id, content: 'r', isError: false })),
          fc.constantFrom('', 'x').map((text) => ({ type: 'text' as const, text })),
          fc.constant({ type: 'reasoning' as const, text: 'hmm' }),
        ),
        { maxLength: 3 },
      ),
    ),
    { maxLength: 12 },
  )
  .map((rows) => Object.freeze(rows.map(([role, parts], i) => Object.freeze({ id: `m${i}`, role, kind: 'normal' as const, parts: Object.freeze(parts) }))))

describe('tool pairing laws', () => {
  it('a generated conversation is valid', () => {
    fc.assert(fc.property(conversationArb, (h) => validateToolPairs(h).valid), { numRuns: 150 })
  })

  it('repair makes any history valid', () => {
    fc.assert(
      fc.property(fc.oneof(messagesArb, tangledArb), (h) => {
        const { messages, report } = repairToolPairs(h)
        expect(validateToolPairs(messages).issues).toEqual([])
        expect(report.changed).toBe(!validateToolPairs(h).valid)
      }),
      { numRuns: 200 },
    )
  })

  it('repair is the identity on valid histories, and idempotent', () => {
    fc.assert(
      fc.property(fc.oneof(conversationArb, tangledArb), (h) => {
        const once = repairToolPairs(h).messages
        if (validateToolPairs(h).valid) expect(once).toBe(h)
        expect(repairToolPairs(once).messages).toBe(once)
      }),
      { numRuns: 200 },
    )
  })

  it('repair never adds a message it does not report', () => {
    fc.assert(
      fc.property(tangledArb, (h) => {
        const { messages, report } = repairToolPairs(h)
        expect(messages.length).toBe(h.length + report.addedResults.length - report.droppedMessages.length)
      }),
      { numRuns: 200 },
    )
  })
})
