import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { compact } from '../../src/compaction/compact.ts'
import { planCompaction } from '../../src/compaction/plan.ts'
import { artifactLedger } from '../../src/history/ledger.ts'
import { EMPTY_LEDGER, ledgerMinus } from '../../src/history/artifact-ledger.ts'
import { heuristic } from '../../src/tokens/heuristic.ts'
import { makeMessage, type Message, type Messages, textMessage } from '../../src/message/message.ts'
import { toolCall, toolResult } from '../../src/message/part-make.ts'

/** One step of a coding agent: a user turn, or a file tool or shell call and its result (an error or not). */
const stepArb = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), text: fc.string({ minLength: 1, maxLength: 40 }) }),
  fc.record({
    kind: fc.constantFrom('Read' as const, 'Write' as const, 'Edit' as const, 'Bash' as const),
    arg: fc.stringMatching(/^[a-z]{1,8}(\/[a-z]{1,8}){0,2}$/),
    output: fc.string({ maxLength: 400 }),
    error: fc.boolean(),
  }),
)

const historyArb: fc.Arbitrary<Messages> = fc.array(stepArb, { minLength: 1, maxLength: 30 }).map((steps) =>
  steps.flatMap((s, i): Message[] => {
    if (s.kind === 'user') return [textMessage('user', s.text, { id: `u${i}` })]
    const args = s.kind === 'Bash' ? { command: s.arg } : { file_path: s.arg }
    return [
      makeMessage({ id: `a${i}`, role: 'assistant', parts: [toolCall({ id: `c${i}`, name: s.kind, arguments: JSON.stringify(args) })] }),
      makeMessage({ id: `t${i}`, role: 'tool', parts: [toolResult({ toolCallId: `c${i}`, content: s.output, isError: s.error })] }),
    ]
  })
)

const forgetful = async (): Promise<string> => '## Goal\nGo on.'

describe('the artifact ledger across compactions', () => {
  it('ledger(compact(compact(h))) holds the ledger of everything either compaction dropped', async () => {
    await fc.assert(
      fc.asyncProperty(historyArb, fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 300 }), async (h, k1, k2) => {
        const first = await compact({ summarize: forgetful, keepRecentTokens: k1, estimate: heuristic })(h)
        const second = await compact({ summarize: forgetful, keepRecentTokens: k2, estimate: heuristic })(first.messages)
        const dropped = artifactLedger([...first.archive, ...second.archive])
        expect(ledgerMinus(artifactLedger(second.messages))(dropped)).toEqual(EMPTY_LEDGER)
        // and nothing of the whole history is lost either
        expect(ledgerMinus(artifactLedger(second.messages))(artifactLedger(h))).toEqual(EMPTY_LEDGER)
      }),
      { numRuns: 150 },
    )
  })

  it("a plan's receipt is the compaction's, and lists every message and tool call that left", async () => {
    await fc.assert(
      fc.asyncProperty(historyArb, fc.integer({ min: 0, max: 300 }), async (h, k) => {
        const plan = planCompaction({ keepRecentTokens: k, estimate: heuristic })(h)
        const r = await compact({ summarize: forgetful, keepRecentTokens: k, estimate: heuristic })(h)
        if (!r.report.compacted) return
        expect(r.report.receipt).toEqual(plan.receipt)
        const after = new Set(r.messages.map((m) => m.id))
        const left = h.filter((m) => !after.has(m.id))
        expect([...plan.receipt.summarised, ...plan.receipt.archived]).toEqual(left.map((m) => m.id))
        const calls = left.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_call' ? [p.id] : [])))
        expect(plan.receipt.toolCalls.map((c) => c.id)).toEqual(calls)
      }),
      { numRuns: 150 },
    )
  })
})
