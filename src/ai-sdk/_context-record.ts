/**
 * What a call of the context keeper did, as its answer carries it: the `ContextRecord` (limit,
 * tokens before and after, what was pruned, summarised and noted, and the call's cost), and the
 * notes a conversion back to the framework's form adds to it.
 *
 * @module
 */
import type { AdapterReport } from '../adapters/types.ts'
import { formatAdapterNote } from '../adapters/types.ts'
import type { CallCostLine } from '../cost/call-cost.ts'
import type { RecordReceipt } from './_receipt-record.ts'

/**
 * What a call did to keep its request within the window (a JSON object: it goes in the response's
 * `providerMetadata.chatfold`). Indices are those of the messages the framework sent (its prompt;
 * for `contextPrepareStep`, the step's messages after the `system` prompt it was given).
 *
 * @example
 * import type { ContextRecord } from 'chatfold/ai-sdk'
 * const record: ContextRecord = { limit: 183_616, tokensBefore: 402_113, tokensAfter: 61_200, prunedResults: 0, prunedArgs: 0, summarisedUpTo: 240, compaction: null }
 *
 * @since 0.1.0
 * @category compaction
 */
export type ContextRecord = {
  /** `contextWindow − reserveTokens`. */
  readonly limit: number
  /** The request as the framework sent it, and as it went to the model. */
  readonly tokensBefore: number
  readonly tokensAfter: number
  /** Tool results and arguments the pruner shortened in this request. */
  readonly prunedResults: number
  readonly prunedArgs: number
  /** The messages before this index (but the system prompt and the last user request) are replaced by the summary; 0 when none is. */
  readonly summarisedUpTo: number
  /** What the history sent could not carry in the framework's form (`formatAdapterNote`), when anything (a plain array: provider metadata is JSON). */
  readonly notes?: Array<string>
  /**
   * What left this call's prompt, itemised (see `Receipt` of `chatfold/history`), each message by
   * its index in the messages sent: the messages summarised, the tool calls that left with them,
   * each tool output pruned (message, call id, tool, tokens before and after) and the artifacts
   * found only in what was dropped.
   */
  readonly receipt?: RecordReceipt
  /** The modelled cost of this call, from the usage its answer reported (cache reads and writes priced apart); set once the model has answered. */
  readonly cost?: CallCostLine
  /** The compaction this call made, if it made one. */
  readonly compaction: {
    /** The messages summarised: `from` (inclusive) to `to` (exclusive), the previous summary with them when `from` is past the system prompt. */
    readonly from: number
    readonly to: number
    readonly messages: number
    readonly tokensBefore: number
    readonly tokensAfter: number
    readonly summaryTokens: number
    readonly summary: string
    /** The cost of each model call the summariser made for this compaction (an offline summariser makes none). */
    readonly calls?: Array<CallCostLine>
  } | null
}

/** What a conversion back to the framework's form could not carry or had to repair, for a record's `notes`. */
export const notesOf = (report: AdapterReport): Array<string> => {
  const out = report.notes.map(formatAdapterNote)
  const r = report.repair
  if (r?.changed === true) {
    const list = (what: string, ids: ReadonlyArray<string> | undefined) => (ids === undefined || ids.length === 0 ? [] : [`${what}: ${ids.join(', ')}`])
    out.push(
      ...list('tool pairs repaired, calls given an interrupted result', r.addedResults),
      ...list('tool pairs repaired, results without their call dropped', r.droppedResults),
      ...list('messages dropped (reasoning alone, or emptied by the repair)', r.droppedMessages),
      ...list('results moved back next to their call', r.movedResults),
    )
  }
  return out
}
