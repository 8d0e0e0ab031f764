import { describe, expect, it } from 'vitest'
import * as O from 'fp-ts/Option'
import { pointersOf } from '../../src/history/pointer.ts'
import { toPointerRef } from '../../src/readback/pointer-ref.ts'
import { contentHash, fromPointerRef } from '../../src/readback/pointer-ref.ts'
import { pruneToolResults } from '../../src/history/prune.ts'
import { createPruner } from '../../src/history/prune-incremental.ts'
import type { Message } from '../../src/message/message.ts'
import type { ToolCallPart, ToolResultPart } from '../../src/message/part-model.ts'
import { call, msg, result, txt } from './fixtures.ts'

const turn = (t: number, size = 4000): Message[] => [
  msg(`u${t}`, 'user', [txt(`question ${t}`)]),
  msg(`a${t}`, 'assistant', [call(`c${t}`, 'read', JSON.stringify({ path: `f${t}.ts` }))]),
  msg(`t${t}`, 'tool', [result(`c${t}`, `${t}:`.padEnd(size, 'é'), 'read')]),
]
const history = (n: number): Message[] => Array.from({ length: n }, (_, t) => turn(t)).flat()
const small = { protectTokens: 3000, minimumSavings: 0 }

describe('content pointers', () => {
  it('hash a text by its UTF-8 bytes: stable, 16 hex digits, and different for a changed text', () => {
    expect(contentHash('héllo')).toMatch(/^[0-9a-f]{16}$/)
    expect(contentHash('héllo')).toBe(contentHash('héllo'))
    expect(contentHash('héllo')).not.toBe(contentHash('hèllo'))
    expect(contentHash('')).not.toBe(contentHash('\u0000'))
    // every tail length of the word loop
    const seen = new Set(['a', 'ab', 'abc', 'abcd', 'abcde'].map(contentHash))
    expect(seen.size).toBe(5)
  })

  it('write a reference that reads back to the same pointer, escaping what separates its fields', () => {
    for (
      const p of [
        { toolCallId: 'toolu_01', part: 'result' as const, hash: contentHash('x') },
        { toolCallId: 'a b#c@d~e%f', part: 'arguments' as const, hash: contentHash('y') },
      ]
    ) {
      const ref = toPointerRef({ messageId: 'm', ...p })
      expect(ref).not.toMatch(/\s/)
      // a reference shows the hash's first 8 digits; the pointer keeps all 16
      expect(fromPointerRef(ref)).toEqual(O.some({ ...p, hash: p.hash.slice(0, 8) }))
      expect(fromPointerRef(` \`${ref}\` `)).toEqual(O.some({ ...p, hash: p.hash.slice(0, 8) }))
      expect(fromPointerRef(ref.slice(0, -8) + p.hash)).toEqual(O.some(p))
    }
    expect(fromPointerRef('c1@123')).toEqual(O.none)
    expect(fromPointerRef('')).toEqual(O.none)
  })

  it('every pruned result carries one: its reference in the placeholder, its pointer in the message metadata', () => {
    const h = history(10)
    const out = pruneToolResults(small)(h)
    let pruned = 0
    out.forEach((m, i) => {
      const r = m.parts.find((p): p is ToolResultPart => p.type === 'tool_result')
      if (r === undefined || r.content === (h[i]?.parts[0] as ToolResultPart).content) return
      pruned++
      const original = (h[i]?.parts[0] as ToolResultPart).content as string
      const [pointer] = pointersOf(m)
      expect(pointer).toEqual({ messageId: m.id, toolCallId: r.toolCallId, part: 'result', hash: contentHash(original) })
      expect(r.content).toContain(`ref ${toPointerRef(pointer!)}]`)
    })
    expect(pruned).toBeGreaterThan(3)
  })

  it('a cut argument shows the reference to the whole original arguments', () => {
    const big = JSON.stringify({ path: 'a.ts', content: 'y'.repeat(20_000) })
    const h = [msg('a', 'assistant', [call('c1', 'edit_file', big)]), msg('t', 'tool', [result('c1', 'ok', 'edit_file')]), ...history(5)]
    const out = pruneToolResults(small)(h)
    const [pointer] = pointersOf(out[0]!)
    expect(pointer).toEqual({ messageId: 'a', toolCallId: 'c1', part: 'arguments', hash: contentHash(big) })
    expect((out[0]?.parts[0] as ToolCallPart).arguments).toContain(toPointerRef(pointer!))
  })

  it('a placeholder does not depend on the message id, so a history decoded anew with new ids prunes to the same text', () => {
    const h = history(10)
    const again = h.map((m) => ({ ...m, id: `${m.id}-again` }))
    const texts = (ms: ReadonlyArray<Message>) => ms.map((m) => m.parts)
    expect(texts(pruneToolResults(small)(again))).toEqual(texts(pruneToolResults(small)(h)))
    expect(texts(createPruner({ ...small, policy: 'fresh' }).prune(again).messages)).toEqual(texts(pruneToolResults(small)(h)))
  })

  it('a custom placeholder is given the reference to show', () => {
    const refs: string[] = []
    const out = pruneToolResults({ ...small, placeholder: (i) => (refs.push(i.ref), `(elided, ref ${i.ref})`) })(history(10))
    expect(refs.length).toBeGreaterThan(0)
    expect(refs.every((r) => O.isSome(fromPointerRef(r)))).toBe(true)
    expect(out.flatMap(pointersOf).map(toPointerRef)).toEqual(refs.slice().reverse())
  })
})

describe('a receipt', () => {
  it('gives each cleared output the reference of its pointer', async () => {
    const { pruneToolResultsWithReceipt } = await import('../../src/history/prune.ts')
    const { messages, receipt } = pruneToolResultsWithReceipt(small)(history(10))
    expect(receipt.cleared.length).toBeGreaterThan(0)
    expect(receipt.cleared.map((c) => c.ref)).toEqual(messages.flatMap(pointersOf).map(toPointerRef))
  })
})
