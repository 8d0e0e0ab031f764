import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { pruneToolResults } from '../../src/history/prune.ts'
import { pointersOf } from '../../src/history/pointer.ts'
import { toPointerRef } from '../../src/readback/pointer-ref.ts'
import { formatReadBackFailure, readBack, type ReadBackPage } from '../../src/readback/read-back.ts'
import { searchHistory } from '../../src/readback/search-history.ts'
import { readBackFromJSONL } from '../../src/readback/read-back-jsonl.ts'
import { toJSONL } from '../../src/history/codec.ts'
import { compact } from '../../src/compaction/compact.ts'
import { extractiveSummarize } from '../../src/compaction/extractive.ts'
import type { Message, Messages } from '../../src/message/message.ts'
import type { ToolCallPart, ToolResultPart } from '../../src/message/part-model.ts'
import { readBackHistory } from '../support/read-back-history.ts'

/** The original text of a pointer's output, read from the history by hand. */
const originalOf = (ms: Messages, messageId: string, toolCallId: string, part: 'result' | 'arguments'): string => {
  const m = ms.find((x) => x.id === messageId) as Message
  const p = m.parts.find((x) => (part === 'result' ? x.type === 'tool_result' && x.toolCallId === toolCallId : x.type === 'tool_call' && x.id === toolCallId))
  return part === 'result' ? (p as ToolResultPart).content as string : (p as ToolCallPart).arguments
}

/** Every page of an output, from offset 0 to the last. */
const allPages = (ref: string, maxBytes: number, source: Messages): ReadBackPage[] => {
  const pages: ReadBackPage[] = []
  let offset: number | undefined = 0
  while (offset !== undefined) {
    const r = readBack(ref, { maxBytes, offset })(source)
    if (E.isLeft(r)) throw new Error(formatReadBackFailure(r.left))
    pages.push(r.right)
    offset = r.right.next
  }
  return pages
}

describe('readBack', () => {
  const history = readBackHistory(20_000)
  const pruned = pruneToolResults({ protectTokens: 20_000, minimumSavings: 0 })(history)
  const pointers = pruned.flatMap(pointersOf)

  it('reads every pruned result and cut argument of a 20,000-message history back byte for byte through its pointer', () => {
    expect(pointers.length).toBeGreaterThan(6_000)
    expect(pointers.some((p) => p.part === 'arguments')).toBe(true)
    const encoder = new TextEncoder()
    for (const p of pointers) {
      const original = originalOf(history, p.messageId, p.toolCallId, p.part)
      const r = readBack(p)(history)
      if (E.isLeft(r)) throw new Error(formatReadBackFailure(r.left))
      expect(r.right.text).toBe(original)
      expect(r.right.totalBytes).toBe(encoder.encode(original).length)
      expect(r.right.next).toBeUndefined()
    }
  }, 60_000)

  it('pages within the byte budget, never inside a character, and the pages put together are the original', () => {
    const encoder = new TextEncoder()
    for (const p of pointers.slice(0, 100)) {
      const original = originalOf(history, p.messageId, p.toolCallId, p.part)
      // by the reference the model sees, without the message id
      const pages = allPages(toPointerRef(p), 301, history)
      expect(pages.every((page) => page.bytes <= 301 && encoder.encode(page.text).length === page.bytes)).toBe(true)
      expect(pages.map((page) => page.text).join('')).toBe(original)
    }
    // a budget below one character still gives that character
    const emoji = readBackHistory(3)
    const one = readBack({
      toolCallId: 'call_0',
      part: 'result',
      hash: pointersOf(pruneToolResults({ protectTokens: 0, minimumSavings: 0 })(emoji)[2]!)[0]!.hash,
    }, { maxBytes: 1 })(emoji)
    expect(E.isRight(one) && one.right.bytes >= 1).toBe(true)
  }, 60_000)

  it('reads back from the archive a compaction returns', async () => {
    const small = history.slice(0, 600)
    const { archive } = await compact({ summarize: extractiveSummarize, keepRecentTokens: 2_000 })(small)
    const smallPruned = pruneToolResults({ protectTokens: 2_000, minimumSavings: 0 })(small)
    const archived = new Set(archive.map((m) => m.id))
    const inArchive = smallPruned.flatMap(pointersOf).filter((p) => archived.has(p.messageId))
    expect(inArchive.length).toBeGreaterThan(100)
    for (const p of inArchive)
      expect(E.map((page: ReadBackPage) => page.text)(readBack(p)(archive))).toEqual(E.right(originalOf(small, p.messageId, p.toolCallId, p.part)))
  })

  it('fails clearly for a pointer into content that is no longer there', () => {
    const [p] = pointers
    // the source is itself pruned: only the placeholder is left
    const gone = readBack(p!)(pruned)
    expect(gone).toEqual(E.left({ kind: 'changed', ref: toPointerRef(p!), found: [{ messageId: p!.messageId, state: 'pruned' }] }))
    expect(E.isLeft(gone) && formatReadBackFailure(gone.left)).toMatch(/no longer there .*holds a placeholder/)
    // the output under that id was replaced
    const edited = history.map((
      m,
    ) => (m.id === p!.messageId ? { ...m, parts: m.parts.map((x) => (x.type === 'tool_result' ? { ...x, content: 'other' } : x)) } : m))
    expect(E.isLeft(readBack(p!)(edited)) && (readBack(p!)(edited) as E.Left<{ kind: string }>).left.kind).toBe('changed')
    // the message left the history
    expect(readBack(p!)(history.filter((m) => m.id !== p!.messageId))).toEqual(E.left({ kind: 'not_found', ref: toPointerRef(p!) }))
    expect(readBack('not a ref')(history)).toEqual(E.left({ kind: 'bad_ref', ref: 'not a ref' }))
    expect(readBack(p!, { offset: 10_000_000 })(history)).toMatchObject(E.left({ kind: 'bad_offset' }))
  })
})

describe('searchHistory', () => {
  const history = readBackHistory(3_000)

  it('finds text in tool results, ranks by matches then newest, and gives the reference that reads the output back', () => {
    const r = searchHistory({ query: 'enoent', limit: 5 })(history)
    expect(r.matched).toBeGreaterThan(5)
    expect(r.hits).toHaveLength(5)
    const counts = r.hits.map((h) => h.matches)
    expect(counts).toEqual(counts.slice().sort((a, b) => b - a))
    for (const h of r.hits) {
      expect(h.snippet.toLowerCase()).toContain('enoent')
      const back = readBack(h.ref!)(history)
      expect(E.isRight(back) && back.right.text.includes('ENOENT')).toBe(true)
    }
  })

  it('takes a regular expression, keeps to the byte budget, and says when the pattern is not one', () => {
    expect(searchHistory({ query: 'src/f\\d+\\.ts', match: 'regex' })(history).hits.some((h) => h.where === 'arguments')).toBe(true)
    const r = searchHistory({ query: 'cart', limit: 1_000, maxBytes: 2_000 })(history)
    expect(new TextEncoder().encode(JSON.stringify(r.hits)).length).toBeLessThanOrEqual(2_000 + r.hits.length)
    expect(r.hits.length).toBeLessThan(r.matched)
    expect(searchHistory({ query: '(', match: 'regex' })(history)).toMatchObject({
      hits: [],
      matched: 0,
      failure: expect.stringMatching(/^Cannot search for "\("/),
    })
  })

  it('does not search placeholders: what they stood for is not there', () => {
    const pruned = pruneToolResults({ protectTokens: 0, minimumSavings: 0 })(history)
    expect(searchHistory({ query: 'tool output pruned' })(pruned).matched).toBe(0)
  })
})

describe('readBackFromJSONL', () => {
  it('reads a pruned output back from a history kept as JSONL, decoding only the lines that name its call', () => {
    const history = readBackHistory(600)
    const file = toJSONL(history)
    const pointers = pruneToolResults({ protectTokens: 2_000, minimumSavings: 0 })(history).flatMap(pointersOf)
    expect(pointers.length).toBeGreaterThan(100)
    for (const p of pointers) {
      const r = readBackFromJSONL(toPointerRef(p))(file)
      expect(E.isRight(r) && r.right.text).toBe(originalOf(history, p.messageId, p.toolCallId, p.part))
    }
    expect(readBackFromJSONL(toPointerRef({ ...pointers[0]!, toolCallId: 'nowhere' }))(file)).toMatchObject(E.left({ kind: 'not_found' }))
  })
})
