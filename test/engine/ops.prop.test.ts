/**
 * A session prune's changes come from the pruners' own changes, not from a walk over the history:
 * whatever prunes, appends and options came before (and whichever of them were undone, as a
 * cancelled call is), they are what `diffHistories` finds between the resident history before and
 * after, with the same token delta, and the resident history is the pure prune of what was appended.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { type Context, type Resident, sessionHandlers } from '../../src/engine/_ops.ts'
import { diffHistories } from '../support/engine-diff.ts'
import { applyChanges, type EnginePruneOptions } from '../../src/engine/types.ts'
import { pruneToolResultsWithReceipt } from '../../src/history/prune.ts'
import { countMessage } from '../../src/tokens/count.ts'
import { heuristic } from '../../src/tokens/heuristic.ts'
import type { Message, Messages } from '../../src/message/message.ts'
import { deepFreeze } from '../support/arbitraries.ts'

/** Coding-agent turns whose results (0–3,000 chars) and arguments are worth pruning, frozen. */
const turnsArb: fc.Arbitrary<Messages> = fc
  .array(fc.array(fc.tuple(fc.constantFrom('read', 'grep', 'bash'), fc.nat({ max: 3000 }), fc.nat({ max: 900 }), fc.boolean()), { maxLength: 3 }), {
    minLength: 1,
    maxLength: 14,
  })
  .map((turns) => {
    const out: Message[] = [{ id: 'sys', role: 'system', kind: 'normal', parts: [{ type: 'text', text: 'Be careful.' }] }]
    turns.forEach((calls, t) => {
      out.push({ id: `u${t}`, role: 'user', kind: 'normal', parts: [{ type: 'text', text: `question ${t}` }] })
      out.push({
        id: `a${t}`,
        role: 'assistant',
        kind: 'normal',
        parts: calls.map(([name, , arg], i) => ({
          type: 'tool_call',
          id: `c${t}_${i}`,
          name,
          arguments: JSON.stringify({ path: 'a.ts', body: 'b'.repeat(arg) }),
          status: 'complete',
        })),
      })
      calls.forEach(([name, size, , named], i) =>
        out.push({
          id: `r${t}_${i}`,
          role: 'tool',
          kind: 'normal',
          parts: [{ type: 'tool_result', toolCallId: `c${t}_${i}`, content: `${t}.${i}:`.padEnd(size, 'r'), isError: false, ...(named ? { name } : {}) }],
        })
      )
    })
    return deepFreeze(out)
  })

const optionsArb: fc.Arbitrary<EnginePruneOptions> = fc.record(
  {
    protectTokens: fc.constantFrom(0, 300, 1_000, 3_000),
    minimumSavings: fc.constantFrom(0, 200, 2_000),
    argThreshold: fc.constantFrom(50, 2_000),
    protectedTools: fc.subarray(['read', 'grep']),
    policy: fc.constantFrom('cached' as const, 'fresh' as const),
  },
  { requiredKeys: ['protectTokens', 'minimumSavings'] },
)

/** A session's life: messages appended in slices, prunes with options of a few kinds, some calls undone. */
const stepArb = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('append' as const), n: fc.integer({ min: 1, max: 12 }) }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('prune' as const), options: fc.nat({ max: 2 }), undo: fc.boolean() }), weight: 3 },
)

const counted = countMessage(heuristic)
const count = (m: Message): number => counted(m).total
const total = (ms: Messages): number => ms.reduce((n, m) => n + count(m), 0)

describe('a session prune', () => {
  it('answers what diffHistories finds between the resident history before and after, across option changes, appends and undone calls', async () => {
    await fc.assert(
      fc.asyncProperty(
        turnsArb,
        fc.array(optionsArb, { minLength: 3, maxLength: 3 }),
        fc.array(stepArb, { minLength: 1, maxLength: 14 }),
        async (history, options, steps) => {
          let state: Resident = { messages: [], appended: [], pruned: [], tokens: 0, pruners: new Map() }
          let at = 0
          const context = (
            added: Messages,
          ): Context & { readonly state: Resident; readonly load: () => Promise<{ readonly messages: Messages; readonly tokens: number }> } => ({
            signal: new AbortController().signal,
            estimate: heuristic,
            count: counted,
            summarize: undefined,
            onProgress: undefined,
            state,
            load: () => Promise.resolve({ messages: added, tokens: total(added) }),
          })
          for (const step of [{ op: 'append' as const, n: 4 }, ...steps]) {
            if (step.op === 'append') {
              const added = history.slice(at, at += step.n)
              state = (await sessionHandlers.append({}, context(added))).next ?? state
              continue
            }
            const o = options[step.options] as EnginePruneOptions
            const before = state
            const { result, next } = await sessionHandlers.prune({ ...o, receipt: true }, context([]))
            const after = next?.messages ?? before.messages
            const expected = diffHistories(before.messages, after, count)
            expect(result.changes).toEqual(expected.changes)
            expect(result.length).toBe(expected.length)
            expect(result.tokens).toBe(before.tokens + expected.delta)
            expect(result.tokens).toBe(total(after))
            expect(applyChanges(result)(before.messages)).toEqual(after)
            // with the fresh policy, the resident history is the pure prune of the history as appended
            // (the cached one, the default, keeps its last answer and prunes in batches)
            if (o.policy === 'fresh') {
              const pure = pruneToolResultsWithReceipt({ ...o, estimate: heuristic, count })(before.appended)
              expect(after).toEqual(pure.messages)
              expect(result.receipt).toEqual(pure.receipt)
            }
            // an undone call leaves the session as it was (the service puts the state before back)
            if (!step.undo && next !== undefined) state = next
          }
        },
      ),
      { numRuns: 150 },
    )
  })
})
