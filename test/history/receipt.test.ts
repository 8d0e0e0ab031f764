import { describe, expect, it } from 'vitest'
import { makeMessage, type Message, type Messages, textMessage } from '../../src/message/message.ts'
import { toolCall, toolResult } from '../../src/message/part-make.ts'
import { pruneToolResultsWithReceipt, pruneToolResultsWithReport } from '../../src/history/prune.ts'
import { createPruner } from '../../src/history/prune-incremental.ts'
import { EMPTY_RECEIPT } from '../../src/history/receipt.ts'

const step = (i: number, size: number): Messages => [
  makeMessage({
    id: `a${i}`,
    role: 'assistant',
    parts: [
      toolCall({
        id: `c${i}`,
        name: i % 2 === 0 ? 'Read' : 'Bash',
        arguments: JSON.stringify(i % 2 === 0 ? { file_path: `/p/f${i}.ts` } : { command: `run ${i}` }),
      }),
    ],
  }),
  makeMessage({ id: `r${i}`, role: 'tool', parts: [toolResult({ toolCallId: `c${i}`, content: `line ${i}\n`.repeat(size), isError: i === 3 })] }),
]
const history: Messages = [textMessage('user', 'Go.', { id: 'u' }), ...[0, 1, 2, 3, 4, 5].flatMap((i) => step(i, 800))]
const opts = { protectTokens: 3_000, minimumSavings: 0 }

describe('the receipt of a prune', () => {
  it('lists every tool result cleared, with its tool and tokens before and after', () => {
    const r = pruneToolResultsWithReceipt(opts)(history)
    expect(r.messages).toEqual(pruneToolResultsWithReport(opts)(history).messages)
    const cleared = history.flatMap((m, i) => (m === r.messages[i] ? [] : [m.id]))
    expect(cleared.length).toBeGreaterThan(0)
    expect(r.receipt.cleared.map((c) => c.messageId)).toEqual(cleared)
    for (const c of r.receipt.cleared) {
      expect(c.part).toBe('result')
      expect(c.tool).toBe(Number(c.toolCallId.slice(1)) % 2 === 0 ? 'Read' : 'Bash')
      expect(c.tokensBefore).toBeGreaterThan(c.tokensAfter)
    }
    expect(r.receipt.summarised).toEqual([])
    // the error stays marked, the call and its path stay: no artifact is only in what was cleared
    expect(r.receipt.artifacts.read).toEqual([])
  })

  it('is empty when nothing is pruned', () => {
    expect(pruneToolResultsWithReceipt({ protectTokens: 1_000_000 })(history).receipt).toEqual(EMPTY_RECEIPT)
  })

  it("createPruner's answers give the same receipt as the pure prune, for both policies", () => {
    const pure = pruneToolResultsWithReceipt(opts)(history).receipt
    expect(createPruner({ ...opts, policy: 'fresh' }).prune(history).receipt()).toEqual(pure)
    const answer = createPruner(opts).prune(history)
    expect(answer.receipt().cleared.map((c) => c.toolCallId)).toEqual(
      answer.changes.flatMap((c) => (c.message as Message).parts.flatMap((p) => (p.type === 'tool_result' ? [p.toolCallId] : []))),
    )
  })
})
