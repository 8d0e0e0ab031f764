import { describe, expect, it } from 'vitest'
import { toolResultText } from '../../src/message/tool-result-content.ts'
import { createPruner } from '../../src/history/prune-incremental.ts'
import { pruneToolResults, pruneToolResultsWithReport } from '../../src/history/prune.ts'
import { validateToolPairs } from '../../src/history/pairs.ts'
import { contentHash } from '../../src/readback/pointer-ref.ts'
import type { Message } from '../../src/message/message.ts'
import type { Part, ToolCallPart, ToolResultPart } from '../../src/message/part-model.ts'
import { call, msg, result, txt } from './fixtures.ts'
import { countMessage } from '../../src/tokens/count.ts'
import { definitionCount, totalOf } from '../../src/tokens/message-tokens.ts'

/** `turns` turns of: a user question, an assistant call, a tool result of `size` characters. */
const history = (turns: number, size = 4000, name = 'read'): Message[] => {
  const out: Message[] = [msg('sys', 'system', [txt('Be careful.')])]
  for (let t = 0; t < turns; t++) {
    out.push(msg(`u${t}`, 'user', [txt(`question ${t}`)]))
    out.push(msg(`a${t}`, 'assistant', [txt('Reading.'), call(`c${t}`, name, JSON.stringify({ path: `f${t}.ts` }))]))
    out.push(msg(`t${t}`, 'tool', [result(`c${t}`, `${t}:`.padEnd(size, 'x'), name)]))
  }
  return out
}
const contentOf = (m: Message | undefined): string => {
  const r = m?.parts.find((p) => p.type === 'tool_result') as ToolResultPart | undefined
  return r === undefined ? '' : toolResultText(r)
}
const small = { protectTokens: 3000, minimumSavings: 0 } // 1000 tokens per result: the newest three turns are protected

describe('pruneToolResults', () => {
  it('replaces old results with a placeholder that says what went and keeps a preview', () => {
    const h = history(10)
    const { messages, report } = pruneToolResultsWithReport(small)(h)
    const old = contentOf(messages[3])
    expect(old).toMatch(/^\[tool output pruned — was ~1000 tokens, 4000 chars, ref c0@[0-9a-f]{8}\]\n0:xxx/)
    expect(old.length).toBeLessThan(200)
    expect(report.prunedResults).toBeGreaterThan(0)
    expect(report.tokensAfter).toBeLessThan(report.tokensBefore)
    expect(validateToolPairs(messages).valid).toBe(true)
  })

  it('never touches the protected tail, which holds protectTokens worth of the newest messages', () => {
    const h = history(10)
    const out = pruneToolResults(small)(h)
    let after = 0
    for (let i = h.length - 1; i >= 0 && after < 3000; i--) {
      expect(out[i]).toBe(h[i])
      after += Math.ceil(contentOf(h[i]).length / 4) + 5
    }
    expect(out[h.length - 1]).toBe(h[h.length - 1])
    expect(contentOf(out[h.length - 4])).toBe(contentOf(h[h.length - 4]))
  })

  it('prunes a result with an image as one unit, its placeholder naming the image', () => {
    const shot: Part = {
      type: 'tool_result',
      toolCallId: 'c0',
      name: 'screenshot',
      isError: false,
      content: [{ type: 'text', text: 'The page' }, { type: 'image', data: new Uint8Array([137, 80, 78, 71]), mediaType: 'image/png' }],
    }
    const h = history(10)
    h[3] = msg('t0', 'tool', [shot])
    const out = pruneToolResults(small)(h)
    const pruned = out[3]?.parts[0]
    expect(pruned?.type === 'tool_result' && pruned.content).toMatch(
      /^\[tool output pruned — was ~\d+ tokens, \d+ chars, ref \S+@[0-9a-f]{8}\]\nThe page\n\[image image\/png\]$/,
    )
    expect(validateToolPairs(out).valid).toBe(true)
  })

  it('returns the input itself when nothing is pruned', () => {
    const h = history(2)
    expect(pruneToolResults({})(h)).toBe(h) // all inside the default 40,000-token window
    const r = pruneToolResultsWithReport({ protectTokens: 0 })(h) // below the default 20,000 minimum savings
    expect(r.messages).toBe(h)
    expect(r.report).toEqual({ prunedResults: 0, prunedArgs: 0, tokensBefore: r.report.tokensBefore, tokensAfter: r.report.tokensBefore })
  })

  it('prunes only when minimumSavings would be freed', () => {
    const h = history(10)
    expect(pruneToolResults({ ...small, minimumSavings: 1_000_000 })(h)).toBe(h)
    expect(pruneToolResults({ ...small, minimumSavings: 1000 })(h)).not.toBe(h)
  })

  it('is idempotent', () => {
    const h = history(10)
    const prune = pruneToolResults(small)
    const once = prune(h)
    expect(pruneToolResults(small)(once)).toBe(once)
    expect(prune(once)).toBe(once)
  })

  it('skips protected tools, named on the result or on its call', () => {
    const h = history(10, 4000, 'todo')
    expect(pruneToolResults({ ...small, protectedTools: ['todo'] })(h)).toBe(h)
    const unnamed = h.map((
      m,
    ) => (m.role === 'tool'
      ? { ...m, parts: m.parts.map((p) => (p.type === 'tool_result' ? { type: p.type, toolCallId: p.toolCallId, content: p.content, isError: p.isError } : p)) }
      : m)
    )
    expect(pruneToolResults({ ...small, protectedTools: ['todo'] })(unnamed)).toBe(unnamed)
    expect(pruneToolResults({ ...small, protectedTools: ['other'] })(unnamed)).not.toBe(unnamed)
  })

  it('names a result by the latest call with its id before it, as the walk backwards looks it up', () => {
    // the call id `x` is used twice: a result between the two calls answers the first (`todo`,
    // protected), one before any call answers none (so no tool of its name is protected)
    const bare = (id: string, content: string): Message =>
      msg(`t-${id}-${content.length}`, 'tool', [{ type: 'tool_result', toolCallId: id, content, isError: false }])
    const h: Message[] = [
      msg('u0', 'user', [txt('start')]),
      bare('x', 'a'.repeat(4000)),
      msg('a1', 'assistant', [call('x', 'todo', '{}')]),
      bare('x', 'b'.repeat(4001)),
      msg('a2', 'assistant', [call('x', 'read', '{}')]),
      ...history(3),
    ]
    const opts = { ...small, protectedTools: ['todo'] }
    const out = pruneToolResults(opts)(h)
    expect(contentOf(out[1])).toMatch(/^\[tool output pruned/)
    expect(out[3]).toBe(h[3])
    expect(createPruner(opts).prune(h).messages).toEqual(out)
  })

  it('leaves small results alone (the placeholder would not be shorter)', () => {
    const h = history(10, 120)
    expect(pruneToolResults({ protectTokens: 30, minimumSavings: 0 })(h)).toBe(h)
  })

  it('uses a custom placeholder, and does not prune it again', () => {
    const h = history(10)
    const opts = { ...small, placeholder: (i: { readonly name: string; readonly chars: number }) => `(${i.name}: ${i.chars} chars elided)` }
    const once = pruneToolResults(opts)(h)
    expect(contentOf(once[3])).toBe('(read: 4000 chars elided)')
    expect(once[3]?.metadata).toEqual({ pruned: ['c0'], pointers: [{ toolCallId: 'c0', part: 'result', hash: contentHash(contentOf(h[3])) }] })
    expect(pruneToolResults(opts)(once)).toBe(once)
  })

  it('cuts large string argument values, keeping keys and valid JSON', () => {
    const big = JSON.stringify({ path: 'a.ts', content: 'y'.repeat(20_000), lines: [1, 2], nested: { note: 'z'.repeat(500) } })
    const h = [msg('a', 'assistant', [call('c1', 'edit_file', big)]), msg('t', 'tool', [result('c1', 'ok', 'edit_file')]), ...history(5)]
    const { messages, report } = pruneToolResultsWithReport(small)(h)
    const args = JSON.parse((messages[0]?.parts[0] as ToolCallPart).arguments) as Record<string, unknown>
    expect(Object.keys(args)).toEqual(['path', 'content', 'lines', 'nested'])
    expect(args['path']).toBe('a.ts')
    expect(args['content']).toMatch(/^\[truncated — was ~5000 tokens, ref c1~args@[0-9a-f]{8}\] yyy/)
    expect((args['nested'] as Record<string, string>)['note']).toMatch(/^\[truncated/)
    expect(args['lines']).toEqual([1, 2])
    expect(report.prunedArgs).toBe(1)
    expect(pruneToolResults(small)(messages)).toBe(messages)
  })

  it('leaves arguments that are not JSON alone', () => {
    const h = [msg('a', 'assistant', [call('c1', 'edit', `{"broken": "${'y'.repeat(20_000)}`)]), msg('t', 'tool', [result('c1')]), ...history(5)]
    const out = pruneToolResults(small)(h)
    expect(out[0]).toBe(h[0])
  })

  it('refreshes the tokens of a message that had them, from count', () => {
    const h = history(10).map((m) => ({ ...m, tokens: { total: 999_999 } }))
    const count = (m: Message) => m.tokens?.total ?? Math.ceil(contentOf(m).length / 4)
    const { messages } = pruneToolResultsWithReport({ protectTokens: 5_000_000, minimumSavings: 0, count })(h)
    expect(messages[3]?.tokens?.total).toBeLessThan(100)
  })

  it('counts rewritten messages with count when a custom estimator is given', () => {
    const h = history(10)
    const count = (m: Message) => 7 + Math.ceil(JSON.stringify(m.parts).length / 3) // not a sum over parts
    const { messages, report } = pruneToolResultsWithReport({ ...small, count, estimate: (s) => Math.ceil(s.length / 4) })(h)
    expect(messages).not.toBe(h)
    expect(report.tokensAfter).toBe(messages.reduce((s, m) => s + count(m), 0))
  })

  it('derives rewritten counts exactly for a count that adds up its parts the default way', () => {
    const h = [
      ...history(10),
      msg('a99', 'assistant', [txt('Two more.'), call('x1'), call('x2')]),
      msg('t99', 'tool', [result('x1', 'p'.repeat(5000)), result('x2', 'q'.repeat(7001))]),
      ...history(3),
    ]
    // a per-message overhead and a fixed price for images, as token counters have
    const count = (m: Message) =>
      4 +
      m.parts.reduce(
        (s, p) => s + (p.type === 'tool_result' ? Math.ceil(p.content.length / 4) : p.type === 'image' ? 85 : Math.ceil(JSON.stringify(p).length / 4)),
        0,
      )
    const { messages, report } = pruneToolResultsWithReport({ ...small, count })(h)
    expect(report.prunedResults).toBeGreaterThan(2)
    expect(report.tokensBefore).toBe(h.reduce((s, m) => s + count(m), 0))
    expect(report.tokensAfter).toBe(messages.reduce((s, m) => s + count(m), 0))
  })

  // (A pruneToolResults function keeps nothing between calls, so these two laws of identity, which
  // were once asserted on a kept pruneToolResults, are asserted on the pruner that keeps state.)
  it('remembers what it pruned when the next history is not an extension of the last', () => {
    const h = history(10)
    const pruner = createPruner(small)
    const first = pruner.prune(h).messages
    const edited = pruner.prune([msg('sys2', 'system', [txt('Be brief.')]), ...h.slice(1)]).messages
    expect(edited[3]).toBe(first[3])
    expect(pruner.prune(h).messages[3]).toBe(first[3])
  })

  it('gives the same pruned messages back on the next turn (remembered by identity)', () => {
    const h = history(10)
    const pruner = createPruner(small)
    const first = pruner.prune(h).messages
    const next = pruner.prune([...h, msg('u99', 'user', [txt('more')])]).messages
    expect(next[3]).toBe(first[3])
  })
})

describe('createPruner', () => {
  it('answers as the pure prune does, and lists the messages it replaced', () => {
    const h = history(10)
    const pruner = createPruner(small)
    const r = pruner.prune(h)
    expect({ messages: r.messages, report: r.report }).toEqual(pruneToolResultsWithReport(small)(h))
    expect(r.changes.map((c) => c.index)).toEqual(h.flatMap((m, i) => (r.messages[i] === m ? [] : [i])))
    expect(r.changes.length).toBe(r.report.prunedResults)
  })

  it('lists only what changed since the history it is given: none when that history is its last result', () => {
    const h = history(10)
    // the fresh policy: its protected tail moves one result a turn (the cached one batches)
    const pruner = createPruner({ ...small, policy: 'fresh' })
    const first = pruner.prune(h)
    const again = pruner.prune(first.messages)
    expect(again.messages).toBe(first.messages)
    expect(again.changes).toEqual([])
    // one turn later the newly unprotected result is the only change
    const later = [
      ...first.messages,
      msg('u10', 'user', [txt('question 10')]),
      msg('a10', 'assistant', [call('c10', 'read', '{}')]),
      msg('t10', 'tool', [result('c10', 'y'.repeat(4000), 'read')]),
    ]
    const next = pruner.prune(later)
    expect(next.changes.map((c) => c.message.id)).toEqual(['t7'])
  })
})

describe('pruneToolResultsWithReport with a count of the caller', () => {
  it('reports tokens after pruning as that count gives them, not as a quarter of the characters', () => {
    const big = 'x'.repeat(40_000)
    const history: Message[] = [
      { id: 's', role: 'system', kind: 'normal', parts: [{ type: 'text', text: 'sys' }] },
      { id: 'a', role: 'assistant', kind: 'normal', parts: [{ type: 'tool_call', id: 'c1', name: 'read', arguments: '{}', status: 'complete' }] },
      { id: 't', role: 'tool', kind: 'normal', parts: [{ type: 'tool_result', toolCallId: 'c1', name: 'read', content: big, isError: false }] },
      { id: 'u', role: 'user', kind: 'normal', parts: [{ type: 'text', text: 'a recent question, longer than the window' }] },
    ]
    // a counter unlike chars/4: one token per character of every part's text
    const count = (m: Message): number => m.parts.reduce((n, p) => n + (p.type === 'tool_result' ? p.content.length : p.type === 'text' ? p.text.length : 0), 0)
    const { messages, report } = pruneToolResultsWithReport({ protectTokens: 10, minimumSavings: 1, count })(history)
    expect(report.prunedResults).toBe(1)
    expect(report.tokensBefore).toBe(history.reduce((n, m) => n + count(m), 0))
    expect(report.tokensAfter).toBe(messages.reduce((n, m) => n + count(m), 0))
  })
})

describe('a count marked as the one definition', () => {
  // old tool results, then enough recent text to push them out of the protected tail
  const history: Message[] = []
  for (let i = 0; i < 20; i++)
    history.push(msg(`a${i}`, 'assistant', [call(`c${i}`, 'read')]), msg(`t${i}`, 'tool', [result(`c${i}`, 'x'.repeat(4_000), 'read')]))
  history.push(msg('u', 'user', [txt('y'.repeat(40_000))]))

  it('prunes as the default does, without estimating the replaced results again', () => {
    let calls = 0
    const estimate = (s: string): number => {
      calls++
      return Math.ceil(s.length / 4)
    }
    const counted = countMessage(estimate)
    const count = definitionCount(estimate, totalOf(counted))
    for (const m of history) count(m)
    calls = 0
    const marked = pruneToolResultsWithReport({ protectTokens: 1_000, minimumSavings: 0, estimate, count })(history)
    const withMarked = calls
    calls = 0
    const plain = pruneToolResultsWithReport({ protectTokens: 1_000, minimumSavings: 0, estimate, count: (m) => counted(m).total })(history)
    expect(marked).toEqual(plain)
    expect(marked.report.prunedResults).toBe(20)
    // unmarked, each replaced result is estimated again; marked, only the placeholders are
    expect(calls - withMarked).toBeGreaterThanOrEqual(20)
  })
})
