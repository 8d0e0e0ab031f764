import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { pruneToolResults } from '../../src/history/prune.ts'
import { pointersOf } from '../../src/history/pointer.ts'
import { contentHash, toPointerRef } from '../../src/readback/pointer-ref.ts'
import { readBack } from '../../src/readback/read-back.ts'
import { searchHistory } from '../../src/readback/search-history.ts'
import { indexHistory } from '../../src/readback/history-index.ts'
import { readBackTools } from '../../src/readback/tools.ts'
import type { Message, Messages } from '../../src/message/message.ts'
import type { Part } from '../../src/message/part-model.ts'
import { conversationArb, messagesArb } from '../support/arbitraries.ts'

// letters whose case the regular expressions and `toLowerCase` treat differently, beside plain ones
const CHARS = ['a', 'A', 'b', 'B', 'k', 'K', '\u212a', 's', 'S', '\u017f', '\u03c3', '\u03c2', '\u03a3', 'i', 'I', '\u0130', '\u0131', '\u00df', ' ', '.', '(']
// and Latin-1 letters (in the one-byte texts of an index), a digit, an underscore
const MORE_CHARS = ['\u00e9', '\u00c9', '\u00b5', '\u00ff', '_', '1']
const textArb = fc.array(fc.constantFrom(...CHARS, ...MORE_CHARS), { maxLength: 12 }).map((cs) => cs.join(''))
// few ids, so that call ids and message ids repeat
const idArb = fc.constantFrom('c1', 'c2', 'c3')
const partArb: fc.Arbitrary<Part> = fc.oneof(
  textArb.map((text): Part => ({ type: 'text', text })),
  fc.tuple(idArb, textArb).map(([id, args]): Part => ({ type: 'tool_call', id, name: 'bash', arguments: args, status: 'complete' })),
  fc.tuple(idArb, textArb, fc.option(fc.constantFrom('read', 'grep'), { nil: undefined })).map(([toolCallId, content, name]): Part => ({
    type: 'tool_result',
    toolCallId,
    content,
    isError: false,
    ...(name === undefined ? {} : { name }),
  })),
)
const historyArb: fc.Arbitrary<Messages> = fc.array(
  fc.tuple(fc.constantFrom('m1', 'm2', 'm3', 'm4'), fc.constantFrom('assistant', 'tool', 'user'), fc.array(partArb, { maxLength: 3 })).map((
    [id, role, parts],
  ): Message => ({ id, role: role as Message['role'], kind: 'normal', parts })),
  { maxLength: 10 },
)
/** A history as generated, or pruned so that some of its outputs are placeholders with pointers. */
const sourceArb: fc.Arbitrary<Messages> = fc.oneof(historyArb, messagesArb, conversationArb).chain((ms) =>
  fc.boolean().map((prune) => (prune ? pruneToolResults({ protectTokens: 0, minimumSavings: 0 })(ms) : ms))
)

/** Every reference a reader could give for `ms`: each output's own, a wrong one, with and without each message id. */
const refsOf = (ms: Messages): string[] => {
  const refs: string[] = ['not a ref', 'zz@0123abcd']
  for (const m of ms) {
    for (const p of pointersOf(m)) refs.push(toPointerRef(p), toPointerRef({ ...p, messageId: m.id }))
    for (const p of m.parts) {
      const out = p.type === 'tool_result'
        ? { id: p.toolCallId, part: 'result' as const, text: typeof p.content === 'string' ? p.content : '' }
        : p.type === 'tool_call'
        ? { id: p.id, part: 'arguments' as const, text: p.arguments }
        : undefined
      if (out === undefined) continue
      for (const hash of [contentHash(out.text), '0000000000000000']) {
        refs.push(toPointerRef({ toolCallId: out.id, part: out.part, hash }))
        for (const messageId of ['m1', 'm2', m.id]) refs.push(toPointerRef({ toolCallId: out.id, part: out.part, hash, messageId }))
      }
    }
  }
  return refs
}

describe('indexHistory', () => {
  it('reads back the same page from the index as from the history, for every reference, offset and budget', () => {
    fc.assert(
      fc.property(sourceArb, fc.nat({ max: 6 }), fc.integer({ min: 1, max: 5 }), (ms, offset, maxBytes) => {
        const index = indexHistory(ms)
        for (const ref of refsOf(ms)) {
          expect(readBack(ref, { offset, maxBytes })(index)).toEqual(readBack(ref, { offset, maxBytes })(ms))
          expect(readBack(ref)(index)).toEqual(readBack(ref)(ms))
        }
      }),
      { numRuns: 300 },
    )
  })

  it('finds the same hits from the index as from the history, for texts in any case, exact case and patterns', () => {
    const queryArb = fc.oneof(textArb, fc.constantFrom('a', 'K', 'S', '\u03c3', 'I', 'SS', '(', 'a.', '[ab]+', 'k|s', '(', ''))
    fc.assert(
      fc.property(
        sourceArb,
        queryArb,
        fc.constantFrom('text', 'regex'),
        fc.constantFrom('insensitive', 'sensitive'),
        fc.integer({ min: 1, max: 30 }),
        (ms, query, match, kase, limit) => {
          const opts = { query, match, case: kase, limit } as const
          expect(searchHistory(opts)(indexHistory(ms))).toEqual(searchHistory(opts)(ms))
        },
      ),
      { numRuns: 500 },
    )
  })

  it('finds the same hits from the index as from the history in long texts, whose matches cross the blocks an index filters by', () => {
    // a few long texts of repeated pieces (a block is 2,048 characters), and queries cut from them
    const longArb = fc.tuple(fc.array(textArb, { minLength: 1, maxLength: 6 }), fc.integer({ min: 200, max: 7_000 })).map(([pieces, size]) => {
      let out = ''
      for (let i = 0; out.length < size; i++) out += pieces[i % pieces.length] + (i % 7 === 0 ? ' Cart total ' : '')
      return out
    })
    const caseArb = fc.array(fc.tuple(fc.constantFrom('user', 'tool'), longArb), { minLength: 1, maxLength: 5 }).chain((texts) => {
      const ms: Messages = texts.map(([role, text], i): Message =>
        role === 'user'
          ? { id: `m${i}`, role: 'user', kind: 'normal', parts: [{ type: 'text', text }] }
          : { id: `m${i}`, role: 'tool', kind: 'normal', parts: [{ type: 'tool_result', toolCallId: `c${i}`, content: text, isError: false }] }
      )
      const all = texts.map(([, t]) => t).join('\u0000')
      const cutArb = fc.tuple(fc.nat({ max: all.length - 1 }), fc.integer({ min: 1, max: 12 })).map(([at, n]) => all.slice(at, at + n).replaceAll('\u0000', ''))
      return fc.tuple(fc.constant(ms), fc.oneof(cutArb, cutArb.map((q) => q.toUpperCase()), fc.constantFrom('cart total', 'CART', 'rt t', 'ab', 'xyz')))
    })
    // a needle whose three-character runs are nowhere else, put anywhere in a long filler (across a block's end, among others)
    const planted = fc.tuple(
      fc.array(fc.tuple(fc.stringMatching(/^[ab ]{0,5000}$/), fc.stringMatching(/^[c-p]{3,8}$/), fc.nat({ max: 5000 })), { minLength: 1, maxLength: 4 }),
      fc.nat({ max: 3 }),
    ).map(([texts, pick]): [Messages, string] => {
      const ms = texts.map(([filler, needle, at], i): Message => {
        const cut = Math.min(at, filler.length)
        return { id: `m${i}`, role: 'user', kind: 'normal', parts: [{ type: 'text', text: filler.slice(0, cut) + needle + filler.slice(cut) }] }
      })
      return [ms, (texts[pick % texts.length] as [string, string, number])[1].toUpperCase()]
    })
    const blockEnd = fc.tuple(fc.integer({ min: 2_040, max: 2_050 }), fc.stringMatching(/^[c-p]{3,8}$/)).map(([at, needle]): [Messages, string] => [
      [{ id: 'm0', role: 'user', kind: 'normal', parts: [{ type: 'text', text: 'a'.repeat(at) + needle + 'b'.repeat(3_000) }] }],
      needle,
    ])
    fc.assert(
      fc.property(fc.oneof(caseArb, planted, blockEnd), fc.integer({ min: 1, max: 30 }), ([ms, query], limit) => {
        const opts = { query, limit, maxBytes: 100_000 } as const
        expect(searchHistory(opts)(indexHistory(ms))).toEqual(searchHistory(opts)(ms))
      }),
      { numRuns: 200 },
    )
  })

  it('gives the tools the same answers from a history as from its index', async () => {
    await fc.assert(
      fc.asyncProperty(sourceArb, textArb, async (ms, query) => {
        const fromHistory = readBackTools({ source: () => ms })
        const fromIndex = readBackTools({ source: () => indexHistory(ms) })
        for (const ref of refsOf(ms).slice(0, 6)) {
          expect(await fromIndex.read.run({ ref, offset: null })).toEqual(await fromHistory.read.run({ ref, offset: null }))
        }
        expect(await fromIndex.search.run({ query, match: null, limit: null })).toEqual(await fromHistory.search.run({ query, match: null, limit: null }))
      }),
      { numRuns: 100 },
    )
  })
})
