import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as edit from '../../src/history/edit.ts'
import * as lookup from '../../src/history/lookup.ts'
import { validateToolPairs } from '../../src/history/pairs.ts'
import { conversationArb, messageArb, messagesArb } from '../support/arbitraries.ts'
import type { Messages } from '../../src/message/message.ts'

const edits: ReadonlyArray<readonly [string, (ms: Messages) => Messages]> = [
  ['append(valid turn)', edit.append([{ id: 'x', role: 'user', kind: 'normal', parts: [{ type: 'text', text: 'more' }] }])],
  ['clear', edit.clear],
  ['dropN(1)', edit.dropN(1)],
  ['dropN(4)', edit.dropN(4)],
  ['keepFirstByRole(user)', edit.keepFirstByRole('user')],
  ['keepFirstByRole(assistant)', edit.keepFirstByRole('assistant')],
  ['keepFirstByRole(tool)', edit.keepFirstByRole('tool')],
  ['deduplicateSystem', edit.deduplicateSystem],
  ['pruneEmptyAssistant', edit.pruneEmptyAssistant],
  ['trimDuplicateSynthetics', edit.trimDuplicateSynthetics],
  ['truncateResults(20)', edit.truncateResults(20)],
  ['truncated(20)', edit.truncated(20)],
]

describe('edit laws', () => {
  it.each(edits)('%s keeps a valid history valid', (_, f) => {
    fc.assert(
      fc.property(conversationArb, (h) => {
        expect(validateToolPairs(f(h)).issues).toEqual([])
      }),
      { numRuns: 100 },
    )
  })

  it.each(edits)('%s never throws on any history (inputs are frozen: no mutation)', (_, f) => {
    fc.assert(
      fc.property(messagesArb, (h) => {
        const before = JSON.stringify(h)
        f(h)
        expect(JSON.stringify(h)).toBe(before)
      }),
      { numRuns: 100 },
    )
  })

  it('truncated(n) leaves every tool result at most n characters, and no ephemeral message', () => {
    fc.assert(
      fc.property(messagesArb, fc.nat({ max: 80 }), (h, n) => {
        const out = edit.truncated(n)(h)
        for (const m of out) {
          expect(m.kind).not.toBe('ephemeral')
          for (const p of m.parts) if (p.type === 'tool_result') expect(p.content.length).toBeLessThanOrEqual(n)
        }
      }),
      { numRuns: 200 },
    )
  })

  it('dropN(n) keeps at most length − n messages, all from the front', () => {
    fc.assert(
      fc.property(messagesArb, fc.integer({ min: -3, max: 15 }), (h, n) => {
        const out = edit.dropN(n)(h)
        expect(out.length).toBeLessThanOrEqual(Math.max(0, h.length - Math.max(0, n)))
        const keptIds = new Set(h.slice(0, h.length - Math.max(0, n)).map((m) => m.id))
        for (const m of out) expect(keptIds.has(m.id)).toBe(true)
      }),
      { numRuns: 150 },
    )
  })

  it('append then last gives the appended message', () => {
    fc.assert(
      fc.property(messagesArb, messageArb, (h, m) => {
        const out = edit.append([m])(h)
        expect(lookup.last(out)).toEqual({ _tag: 'Some', value: m })
        expect(lookup.at(h.length)(out)).toEqual({ _tag: 'Some', value: m })
      }),
      { numRuns: 100 },
    )
  })
})
