import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createPruner } from '../../src/history/prune-incremental.ts'
import { type PruneOptions } from '../../src/history/prune-options.ts'
import { pruneToolResults, pruneToolResultsWithReport } from '../../src/history/prune.ts'
import { messageTokens } from '../../src/tokens/message-tokens.ts'
import { validateToolPairs } from '../../src/history/pairs.ts'
import { conversationArb, deepFreeze, messagesArb } from '../support/arbitraries.ts'
import type { Message, Messages } from '../../src/message/message.ts'

const optsArb: fc.Arbitrary<PruneOptions> = fc.record(
  {
    protectTokens: fc.nat({ max: 3000 }),
    argThreshold: fc.nat({ max: 200 }),
    minimumSavings: fc.nat({ max: 1000 }),
    protectedTools: fc.subarray(['read', 'grep', 'bash']),
  },
  { requiredKeys: ['protectTokens', 'minimumSavings'] },
)

/** The same count the pruner uses by default: the one definition of a message's tokens, with its default estimator. */
const count = messageTokens((s) => Math.ceil(s.length / 4))

const protectedFrom = (h: Messages, protect: number): number => {
  let after = 0
  let boundary = h.length
  for (let i = h.length - 1; i >= 0 && after < protect; i--) {
    boundary = i
    after += count(h[i] as Message)
  }
  return boundary
}

/** Valid coding-agent turns whose results (0–3,000 chars) and arguments (some with long strings) are worth pruning. */
const bulkyArb: fc.Arbitrary<Messages> = fc
  .array(
    fc.tuple(
      fc.array(fc.tuple(fc.constantFrom('read', 'grep', 'bash'), fc.nat({ max: 3000 }), fc.nat({ max: 600 }), fc.constantFrom('normal', 'ephemeral')), {
        maxLength: 3,
      }),
      fc.boolean(),
    ),
    { maxLength: 10 },
  )
  .map((turns) => {
    const out: Message[] = [{ id: 'sys', role: 'system', kind: 'normal', parts: [{ type: 'text', text: 'Be careful.' }] }]
    turns.forEach(([calls, named], t) => {
      out.push({ id: `u${t}`, role: 'user', kind: 'normal', parts: [{ type: 'text', text: `question ${t}` }] })
      out.push({
        id: `a${t}`,
        role: 'assistant',
        kind: 'normal',
        parts: calls.map(([name, , argLen], i) => ({
          type: 'tool_call',
          id: `c${t}_${i}`,
          name,
          arguments: JSON.stringify({ path: 'a.ts', body: 'b'.repeat(argLen), n: [1, { deep: 'd'.repeat(argLen) }] }),
          status: 'complete',
        })),
      })
      calls.forEach(([name, size, , kind], i) =>
        out.push({
          id: `r${t}_${i}`,
          role: 'tool',
          kind,
          parts: [{ type: 'tool_result', toolCallId: `c${t}_${i}`, content: `${t}${i}`.padEnd(size, 'r'), isError: false, ...(named ? { name } : {}) }],
        })
      )
    })
    return deepFreeze(out)
  })

const historyArb = fc.oneof(conversationArb, messagesArb, bulkyArb, bulkyArb)

describe('pruning laws', () => {
  it('is idempotent', () => {
    fc.assert(
      fc.property(historyArb, optsArb, (h, o) => {
        const once = pruneToolResults(o)(h)
        expect(pruneToolResults(o)(once)).toBe(once)
      }),
      { numRuns: 200 },
    )
  })

  it('never touches the protected tail', () => {
    fc.assert(
      fc.property(historyArb, optsArb, (h, o) => {
        const out = pruneToolResults(o)(h)
        expect(out.length).toBe(h.length)
        for (let i = protectedFrom(h, o.protectTokens ?? 40_000); i < h.length; i++) expect(out[i]).toBe(h[i])
      }),
      { numRuns: 200 },
    )
  })

  it('never orphans a call or a result', () => {
    fc.assert(
      fc.property(fc.oneof(conversationArb, bulkyArb), optsArb, (h, o) => {
        expect(validateToolPairs(pruneToolResults(o)(h)).issues).toEqual([])
      }),
      { numRuns: 150 },
    )
  })

  it('reports tokens by count, and frees at least minimumSavings when it prunes', () => {
    fc.assert(
      fc.property(historyArb, optsArb, (h, o) => {
        const { messages, report } = pruneToolResultsWithReport(o)(h)
        const total = (ms: Messages) => ms.reduce((s, m) => s + count(m), 0)
        expect(report.tokensBefore).toBe(total(h))
        expect(report.tokensAfter).toBe(total(messages))
        if (messages !== h) expect(report.tokensBefore - report.tokensAfter).toBeGreaterThanOrEqual(o.minimumSavings ?? 0)
        else expect(report.prunedResults + report.prunedArgs).toBe(0)
      }),
      { numRuns: 150 },
    )
  })

  it('a pruner answers as the pure prune on histories with a provider compaction boundary, turn after turn', () => {
    // an assistant message holding a provider's compaction block starts what the provider reads:
    // what precedes it is neither pruned nor counted, by a kept pruner as by the pure prune
    const boundary = (id: string): Message => ({
      id,
      role: 'assistant',
      kind: 'normal',
      parts: [{ type: 'provider', provider: 'anthropic', kind: 'compaction', data: { type: 'compaction', content: 'summary' } }],
    })
    fc.assert(
      fc.property(bulkyArb, bulkyArb, optsArb, fc.nat({ max: 12 }), (before, after, o, cut) => {
        const h = deepFreeze([...before, boundary('b1'), ...after.slice(1)])
        const later = deepFreeze([...h, boundary('b2'), ...before.slice(1)])
        // the fresh policy answers each call as the pure prune does (the cached one batches its edits)
        const kept = createPruner({ ...o, policy: 'fresh' })
        const edited = deepFreeze(h.map((m, i) => (i === 1 ? { ...m } : m)))
        for (const step of [h.slice(0, Math.min(h.length, before.length + cut)), h, later, h, edited, later]) {
          const a = kept.prune(step)
          expect({ messages: a.messages, report: a.report }).toEqual(pruneToolResultsWithReport(o)(step))
          const changed = step.flatMap((m, i) => (a.messages[i] === m ? [] : [{ index: i, message: a.messages[i] }]))
          expect(a.changes.map((c) => ({ index: c.index, message: c.message }))).toEqual(changed)
        }
      }),
      { numRuns: 150 },
    )
  })

  it('a kept pruner gives what a fresh one gives, turn after turn (memo and prefix reuse are invisible)', () => {
    fc.assert(
      fc.property(bulkyArb, optsArb, fc.nat({ max: 12 }), fc.nat({ max: 12 }), (h, o, cut, edit) => {
        const kept = createPruner({ ...o, policy: 'fresh' })
        const start = h.slice(0, Math.min(cut, h.length))
        const steps: Messages[] = [start, h, h.map((m, i) => (i === edit ? { ...m } : m)), h.slice(0, Math.max(0, h.length - 2)), h]
        let previous: ReadonlyArray<unknown> = []
        for (const step of steps) {
          const a = kept.prune(step)
          // the changes it says it carried over are the previous answer's own records
          expect(a.carried).toBeLessThanOrEqual(Math.min(a.changes.length, previous.length))
          for (let k = 0; k < a.carried; k++) expect(a.changes[k]).toBe(previous[k])
          previous = a.changes
          const b = createPruner({ ...o, policy: 'fresh' }).prune(step)
          const pure = pruneToolResultsWithReport(o)(step)
          expect(a.report).toEqual(b.report)
          expect(a.messages).toEqual(b.messages)
          expect(a.changes).toEqual(b.changes)
          expect({ messages: a.messages, report: a.report }).toEqual(pure)
          // the changes are exactly the messages of the result that are not the input's own
          const changed = step.flatMap((m, i) => (a.messages[i] === m ? [] : [{ index: i, message: a.messages[i] }]))
          expect(a.changes.map((c) => ({ index: c.index, message: c.message }))).toEqual(changed)
          for (const c of a.changes) expect(c.message).toBe(a.messages[c.index])
          if (a.messages === step) expect(a.changes).toEqual([])
        }
      }),
      { numRuns: 150 },
    )
  })

  it("the pure walk (one pass from the newest) and the pruner's (forward) agree, with counts of any sign", () => {
    fc.assert(
      fc.property(bulkyArb, optsArb, fc.integer({ min: -300, max: 300 }), (h, o, shift) => {
        // a count of the caller that can be negative for some messages
        const odd = { ...o, count: (m: Message) => count(m) + (m.id.length % 2 === 0 ? shift : 0) }
        const pure = pruneToolResultsWithReport(odd)(h)
        const forward = createPruner({ ...odd, policy: 'fresh' }).prune(h)
        expect({ messages: forward.messages, report: forward.report }).toEqual(pure)
      }),
      { numRuns: 200 },
    )
  })

  it("the pure walk with derived counts agrees with the pruner's, with estimates of any sign and fractional ones", () => {
    fc.assert(
      fc.property(bulkyArb, optsArb, fc.integer({ min: -40, max: 40 }), fc.nat({ max: 3000 }), fc.constantFrom(1, 3.7), (h, o, shift, pull, per) => {
        // an estimator (so counts are derived) that gives some texts a negative or fractional count,
        // and the questions one that can bring the tail back under its budget past rewritten results
        const estimate = (t: string): number => (t.startsWith('question') ? -pull : t.length / per - (t.length % 3 === 0 ? shift : 0))
        const pure = pruneToolResultsWithReport({ ...o, estimate })(h)
        const forward = createPruner({ ...o, estimate, policy: 'fresh' }).prune(h)
        expect({ messages: forward.messages, report: forward.report }).toEqual(pure)
      }),
      { numRuns: 200 },
    )
  })

  it('keeps nothing between calls: a prune used before gives what a new one gives', () => {
    fc.assert(
      fc.property(bulkyArb, bulkyArb, optsArb, (h1, h2, o) => {
        const used = pruneToolResultsWithReport(o)
        used(h1)
        used(h2.slice(0, 3))
        expect(used(h2)).toEqual(pruneToolResultsWithReport(o)(h2))
      }),
      { numRuns: 100 },
    )
  })

  it('the generated histories do get pruned (the laws above are not vacuous)', () => {
    let results = 0
    let args = 0
    fc.assert(
      fc.property(bulkyArb, optsArb, (h, o) => {
        const { report } = pruneToolResultsWithReport(o)(h)
        if (report.prunedResults > 0) results++
        if (report.prunedArgs > 0) args++
      }),
      { numRuns: 200, seed: 7 },
    )
    expect(results).toBeGreaterThan(20)
    expect(args).toBeGreaterThan(5)
  })

  it('skips protected tools', () => {
    fc.assert(
      fc.property(bulkyArb, optsArb, (h, o) => {
        const out = pruneToolResults(o)(h)
        const keep = new Set(o.protectedTools ?? [])
        h.forEach((m, i) => {
          m.parts.forEach((p, j) => {
            if (p.type === 'tool_result' && p.name !== undefined && keep.has(p.name)) expect(out[i]?.parts[j]).toBe(p)
          })
        })
      }),
      { numRuns: 150 },
    )
  })
})
