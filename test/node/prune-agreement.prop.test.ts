/**
 * One definition of a message's tokens, one answer: on generated histories (images, files, large
 * results and arguments included), the pure prune, the incremental pruner, the builder, the
 * engine inline and the engine in a `worker_threads` worker prune identically for the same
 * options and estimator, and the pure planner and both engines plan identically.
 */
import { afterAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createPruner } from '../../src/history/prune-incremental.ts'
import { type PruneOptions } from '../../src/history/prune-options.ts'
import { pruneToolResultsWithReceipt, pruneToolResultsWithReport } from '../../src/history/prune.ts'
import { planCompaction } from '../../src/compaction/plan.ts'
import { createBuilder } from '../../src/builder/builder.ts'
import { type Engine } from '../../src/engine/api.ts'
import { createEngine } from '../../src/engine/client.ts'
import { applyChanges } from '../../src/engine/types.ts'
import { createNodeEngine } from '../../src/node/engine.ts'
import { countMessage } from '../../src/tokens/count.ts'
import { heuristic } from '../../src/tokens/heuristic.ts'
import type { Message, Messages } from '../../src/message/message.ts'
import type { Part } from '../../src/message/part-model.ts'
import { deepFreeze } from '../support/arbitraries.ts'

/** Coding-agent turns: a user question (sometimes with an image or a file), tool calls with arguments of any size, their results. */
const historyArb: fc.Arbitrary<Messages> = fc
  .array(
    fc.record({
      attach: fc.constantFrom('none', 'image', 'file', 'text-file'),
      calls: fc.array(
        fc.record({ tool: fc.constantFrom('read', 'grep', 'todo'), result: fc.nat({ max: 4000 }), arg: fc.nat({ max: 3000 }), named: fc.boolean() }),
        { maxLength: 3 },
      ),
      thinking: fc.nat({ max: 400 }),
    }),
    { maxLength: 14 },
  )
  .map((turns) => {
    const out: Message[] = [{ id: 'sys', role: 'system', kind: 'normal', parts: [{ type: 'text', text: 'You are careful.' }] }]
    turns.forEach(({ attach, calls, thinking }, t) => {
      const extra: Part[] = attach === 'image'
        ? [{ type: 'image', data: new Uint8Array([1, 2, 3, t]), mediaType: 'image/png' }]
        : attach === 'file'
        ? [{ type: 'file', mediaType: 'application/pdf', data: new Uint8Array([37, 80, 68, 70]), filename: 'spec.pdf' }]
        : attach === 'text-file'
        ? [{ type: 'file', mediaType: 'text/plain', data: new TextEncoder().encode('notes '.repeat(50 + t)), filename: 'notes.txt' }]
        : []
      out.push({ id: `u${t}`, role: 'user', kind: 'normal', parts: [{ type: 'text', text: `question ${t}` }, ...extra] })
      out.push({
        id: `a${t}`,
        role: 'assistant',
        kind: 'normal',
        parts: [
          ...(thinking > 0 ? [{ type: 'reasoning' as const, text: 'h'.repeat(thinking) }] : []),
          ...calls.map((c, i): Part => ({
            type: 'tool_call',
            id: `c${t}_${i}`,
            name: c.tool,
            arguments: JSON.stringify({ path: 'a.ts', body: 'b'.repeat(c.arg) }),
            status: 'complete',
          })),
        ],
      })
      calls.forEach((c, i) =>
        out.push({
          id: `r${t}_${i}`,
          role: 'tool',
          kind: 'normal',
          parts: [{
            type: 'tool_result',
            toolCallId: `c${t}_${i}`,
            content: `${t}.${i}:`.padEnd(c.result, 'r'),
            isError: false,
            ...(c.named ? { name: c.tool } : {}),
          }],
        })
      )
    })
    return deepFreeze(out)
  })

const optionsArb: fc.Arbitrary<Omit<PruneOptions, 'estimate' | 'count' | 'placeholder'>> = fc.record(
  {
    protectTokens: fc.nat({ max: 6000 }),
    minimumSavings: fc.nat({ max: 2000 }),
    argThreshold: fc.nat({ max: 800 }),
    protectedTools: fc.subarray(['read', 'todo']),
  },
  { requiredKeys: ['protectTokens', 'minimumSavings'] },
)

const engines: ReadonlyArray<readonly [string, Engine]> = [
  ['inline', createEngine({ mode: 'inline', encoding: 'heuristic' })],
  ['worker_threads', createNodeEngine({ encoding: 'heuristic' })],
]
afterAll(() => {
  for (const [, e] of engines) e.dispose()
})

let sessions = 0

describe('one token definition, one answer everywhere', () => {
  it('the pure prune, the pruner, the builder and the engine (inline and in a worker) prune identically', async () => {
    let pruned = 0
    await fc.assert(
      fc.asyncProperty(historyArb, optionsArb, async (h, o) => {
        const pure = pruneToolResultsWithReport({ ...o, estimate: heuristic })(h)
        if (pure.messages !== h) pruned++

        // the report counts by the one definition, as `countMessage` does
        const total = (ms: Messages) => ms.reduce((s, m) => s + countMessage(heuristic)(m).total, 0)
        expect(pure.report.tokensBefore).toBe(total(h))
        expect(pure.report.tokensAfter).toBe(total(pure.messages))

        const pruner = createPruner({ ...o, estimate: heuristic }).prune(h)
        expect({ messages: pruner.messages, report: pruner.report }).toEqual(pure)

        let report: unknown
        const b = createBuilder({ estimate: heuristic, sink: (e) => void (e.type === 'toolResultsPruned' ? (report = e.report) : undefined) })
        b.restore(h)
        b.pruneToolResults(o)
        expect(b.history()).toEqual(pure.messages)
        if (pure.messages !== h) expect(report).toEqual(pure.report)

        for (const [, engine] of engines) {
          expect(await engine.pruneToolResults(h, o)).toEqual(pruneToolResultsWithReceipt({ ...o, estimate: heuristic })(h))
          const session = await engine.open(`s${sessions++}`, h)
          const r = await session.prune(o)
          expect(r.report).toEqual(pure.report)
          expect(applyChanges(r)(h)).toEqual(pure.messages)
          await session.close()
        }
      }),
      { numRuns: 60 },
    )
    expect(pruned).toBeGreaterThan(10) // the law is not vacuous
  }, 120_000)

  it('the pure planner and the engine (inline and in a worker) plan identically', async () => {
    await fc.assert(
      fc.asyncProperty(historyArb, fc.nat({ max: 8000 }), fc.constantFrom('turn' as const, 'message' as const), async (h, keep, boundary) => {
        const pure = planCompaction({ keepRecentTokens: keep, boundary, estimate: heuristic })(h)
        for (const [, engine] of engines) expect(await engine.planCompaction(h, { keepRecentTokens: keep, boundary })).toEqual(pure)
      }),
      { numRuns: 60 },
    )
  }, 120_000)
})
