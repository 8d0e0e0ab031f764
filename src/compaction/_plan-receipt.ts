/**
 * A compaction plan's receipt and ledger: what leaves the history when the plan is carried out,
 * read from the plan alone, before any summariser runs.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import type { Estimator } from '../tokens/message-tokens.ts'
import { type ArtifactLedger, EMPTY_LEDGER, ledgerMinus } from '../history/artifact-ledger.ts'
import { artifactLedger } from '../history/ledger.ts'
import type { Receipt } from '../history/receipt.ts'
import { type ClearedOutput, clearedOutputs } from '../history/receipt.ts'

/** What a plan's receipt is made from. */
export type PlanParts = {
  readonly input: Messages
  /** Where the history after the system prompt starts for the provider (a compaction boundary), and where the kept tail starts. */
  readonly sys: number
  readonly start: number
  readonly cut: number
  readonly preserved: Messages
}

/**
 * The receipt of a plan (see `Receipt`) and the ledger of every message that leaves the history
 * (what the summary carries): the head summarised, the other messages archived (before a provider's
 * boundary, or left out of the tail), the tool calls among them, the results the tail has cut to
 * fit, and the artifacts the kept tail does not hold.
 */
export const planReceipt = (estimate: Estimator, p: PlanParts): { readonly receipt: Receipt; readonly ledger: ArtifactLedger } => {
  const kept = new Set<Message>(p.preserved)
  const keptById = new Map<string, Message>()
  for (const m of p.preserved) keptById.set(m.id, m)
  const summarised: string[] = []
  const archived: string[] = []
  const left: Message[] = []
  const cleared: ClearedOutput[] = []
  for (let i = p.sys; i < p.input.length; i++) {
    const m = p.input[i] as Message
    if (i >= p.cut && kept.has(m)) continue
    const rewritten = i >= p.cut ? keptById.get(m.id) : undefined
    if (rewritten !== undefined) {
      cleared.push(...clearedOutputs(estimate)(m, rewritten))
      continue
    }
    left.push(m)
    if (i >= p.start && i < p.cut) summarised.push(m.id)
    else archived.push(m.id)
  }
  if (summarised.length === 0) return { receipt: { summarised, archived: [], toolCalls: [], cleared: [], artifacts: EMPTY_LEDGER }, ledger: EMPTY_LEDGER }
  const toolCalls = left.flatMap((m) => m.parts.flatMap((q) => (q.type === 'tool_call' ? [{ id: q.id, name: q.name }] : [])))
  const ledger = artifactLedger(left)
  const artifacts = ledgerMinus(artifactLedger(p.preserved))(ledger)
  return { receipt: { summarised, archived, toolCalls, cleared, artifacts }, ledger }
}
