import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { compact } from '../../src/compaction/compact.ts'
import { extractiveSummarize } from '../../src/compaction/extractive.ts'
import { planCompaction } from '../../src/compaction/plan.ts'
import { rebuildAfterCompaction } from '../../src/compaction/rebuild.ts'
import { validateSummary } from '../../src/compaction/summary.ts'
import { isCompactionSummary } from '../../src/message/compaction-mark.ts'
import { heuristic } from '../../src/tokens/heuristic.ts'
import { validateToolPairs } from '../../src/history/pairs.ts'
import { forPreservation } from '../../src/history/views.ts'
import type { Messages } from '../../src/message/message.ts'
import { conversationArb, messagesArb } from '../support/arbitraries.ts'

const budgetArb = fc.integer({ min: 0, max: 400 })
const boundaryArb = fc.constantFrom('turn' as const, 'message' as const)

/** Every input message is in exactly one of `kept` and `archive` (by identity), apart from changed copies. */
const nothingLost = (input: Messages, kept: Messages, archive: Messages): void => {
  const k = new Set(kept)
  const a = new Set(archive)
  for (const m of input) expect(k.has(m) !== a.has(m)).toBe(true)
  const inputs = new Set(input)
  const archivedIds = new Set(archive.map((m) => m.id))
  // what the new history has beyond the input: the summary, and changed copies of archived messages
  for (const m of kept) if (!inputs.has(m)) expect(isCompactionSummary(m) || archivedIds.has(m.id)).toBe(true)
  expect(archive.every((m) => inputs.has(m))).toBe(true)
}

describe('compaction laws', () => {
  it('a plan partitions the history, and its tail is the suffix, as forPreservation keeps it', () => {
    fc.assert(
      fc.property(fc.oneof(conversationArb, messagesArb), budgetArb, boundaryArb, (ms, keepRecentTokens, boundary) => {
        const plan = planCompaction({ keepRecentTokens, boundary, estimate: heuristic })(ms)
        expect([...plan.system, ...plan.head, ...ms.slice(plan.cut)]).toEqual(ms)
        if (plan.truncatedResults.length === 0) expect(plan.preserved).toEqual(forPreservation(ms.slice(plan.cut)))
        else expect(plan.preserved.map((m) => m.id)).toEqual(forPreservation(ms.slice(plan.cut)).map((m) => m.id))
      }),
      { numRuns: 200 },
    )
  })
  it('rebuilt + archive = input, apart from the summary: nothing is lost', () => {
    fc.assert(
      fc.property(fc.oneof(conversationArb, messagesArb), budgetArb, (ms, keepRecentTokens) => {
        const plan = planCompaction({ keepRecentTokens, estimate: heuristic })(ms)
        const { messages, archive } = rebuildAfterCompaction('## Goal\nx', 3, plan.preserved)(ms)
        nothingLost(ms, messages, archive)
        expect(messages.filter(isCompactionSummary).length).toBeGreaterThanOrEqual(1)
        if (plan.truncatedResults.length === 0) {
          // as multisets: rebuilt minus the summary, plus the archive, is the input
          const back = [...messages.filter((m) => !(isCompactionSummary(m) && !ms.includes(m))), ...archive]
          expect(back.length).toBe(ms.length)
          expect(ms.every((m) => back.includes(m)) && back.every((m) => ms.includes(m))).toBe(true)
        }
      }),
      { numRuns: 200 },
    )
  })
  it('a valid conversation stays valid: no orphan call or result after compaction', async () => {
    await fc.assert(
      fc.asyncProperty(conversationArb, budgetArb, boundaryArb, async (ms, keepRecentTokens, boundary) => {
        expect(validateToolPairs(ms).valid).toBe(true)
        const { messages, archive, report } = await compact({ summarize: extractiveSummarize, keepRecentTokens, boundary, estimate: heuristic })(ms)
        expect(validateToolPairs(messages).valid).toBe(true)
        nothingLost(ms, messages, archive)
        if (report.compacted) expect(messages[0]).toBe(ms[0])
      }),
      { numRuns: 100 },
    )
  })
  it('the extractive summary always has every section', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(conversationArb, messagesArb), async (ms) => {
        expect(validateSummary(await extractiveSummarize(ms))._tag).toBe('Right')
      }),
      { numRuns: 100 },
    )
  })
})
