/**
 * What a Claude Agent SDK session cost and what its compactions took out of the prompt, read from
 * its transcript: the cost ledger of every reply's recorded usage, and the receipt of the messages
 * the agent's compactions replaced.
 *
 * @module
 */
import type { Messages } from '../message/message.ts'
import { type CostLedger, costLedger } from '../cost/ledger.ts'
import type { PriceTable } from '../cost/price.ts'
import { artifactLedger } from '../history/ledger.ts'
import { ledgerMinus } from '../history/artifact-ledger.ts'
import { EMPTY_RECEIPT, type Receipt } from '../history/receipt.ts'
import type { ClaudeCodeSession } from '../sessions/claude-code.ts'

/**
 * A session's report: what it cost (`cost`, see `costLedger` of `chatfold/cost`: each reply priced
 * from the usage the transcript records, cache reads and writes apart, a reply repeated over
 * several records counted once, a model the price table lacks named in `failures`), how many
 * compactions the agent ran, and the receipt of what they took out of the prompt (`receipt`: the
 * messages before the last compaction boundary as `archived`, the tool calls among them, and the
 * artifacts, such as files read and failed commands, that only they held: what the agent's own
 * summary had to carry).
 *
 * @example
 * import type { SessionReport } from 'chatfold/claude-agent-sdk'
 * const line = (r: SessionReport) => `$${r.cost.total.toFixed(4)}, ${r.receipt.archived.length} messages compacted away`
 *
 * @since 0.1.0
 * @category integrations
 */
export type SessionReport = {
  readonly cost: CostLedger
  readonly compactions: number
  readonly receipt: Receipt
}

const toolCallsOf = (ms: Messages): Receipt['toolCalls'] =>
  ms.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_call' ? [{ id: p.id, name: p.name }] : [])))

/**
 * The report of a session read by `readClaudeCode` (what the store's `history` answers): its cost
 * over the archive and the messages, and the receipt of its archive.
 *
 * @example
 * import { sessionReportOf } from 'chatfold/claude-agent-sdk'
 * import { makeMessage, text } from 'chatfold/message'
 * const reply = makeMessage({ role: 'assistant', parts: [text('Done.')], model: 'claude-haiku-4-5', metadata: { usage: { input: 1_000_000, output: 0 } } })
 * const session = { messages: [reply], archive: [], compactions: [], branches: { abandoned: 0, read: 0 }, subagents: [], skipped: {}, notes: [] }
 * sessionReportOf({})(session).cost.total // 1
 *
 * @since 0.1.0
 * @category integrations
 */
export const sessionReportOf = (opts: { readonly prices?: PriceTable }) => (session: ClaudeCodeSession): SessionReport => {
  const cost = costLedger(opts.prices === undefined ? {} : { prices: opts.prices })([...session.archive, ...session.messages])
  const receipt: Receipt = session.archive.length === 0 ? EMPTY_RECEIPT : {
    ...EMPTY_RECEIPT,
    archived: session.archive.map((m) => m.id),
    toolCalls: toolCallsOf(session.archive),
    artifacts: ledgerMinus(artifactLedger(session.messages))(artifactLedger(session.archive)),
  }
  return { cost, compactions: session.compactions.length, receipt }
}
