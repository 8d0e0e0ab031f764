/**
 * The receipt of a prune or a compaction: which messages left the prompt, which tool calls went
 * with them, which tool outputs were cleared in place (with their tokens before and after), and
 * the artifacts that appear only in what was dropped.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import { type Estimator, partTokens } from '../tokens/message-tokens.ts'
import { type ArtifactLedger, EMPTY_LEDGER, ledgerMinus } from './artifact-ledger.ts'
import { artifactLedger } from './ledger.ts'
import { pointersOf, refOf } from './pointer.ts'

/**
 * A tool output a prune or a compaction cleared in place: the message and tool call it belongs
 * to, the tool's name, whether the call's `arguments` were cut or its `result` replaced, the
 * tokens of that text (by the estimator of the operation) before and after, and `ref`, the reference
 * of the pointer its placeholder carries (what `readBack` of `chatfold/readback` takes), when it
 * carries one.
 *
 * @example
 * import type { ClearedOutput } from 'chatfold/history'
 * const c: ClearedOutput = { messageId: 'm7', toolCallId: 'call_1', tool: 'Read', part: 'result', tokensBefore: 5_120, tokensAfter: 48 }
 *
 * @since 0.1.0
 * @category model
 */
export type ClearedOutput = {
  readonly messageId: string
  readonly toolCallId: string
  readonly tool: string
  readonly part: 'result' | 'arguments'
  readonly tokensBefore: number
  readonly tokensAfter: number
  readonly ref?: string
}

/**
 * An itemised receipt: the ids of the messages summarised (a compaction's head), the ids of the
 * other messages that left the history (what precedes a provider's compaction boundary, what the
 * kept tail leaves out), the tool calls in the messages that left (id and name), the tool outputs
 * cleared in place, and the artifacts (see `artifactLedger`) that appear only in what was dropped.
 * A prune summarises and drops no message: only `cleared` and `artifacts` are filled.
 *
 * @example
 * import { pruneToolResultsWithReceipt } from 'chatfold/history'
 * declare const history: import('chatfold').Messages
 * const { receipt } = pruneToolResultsWithReceipt({ protectTokens: 40_000 })(history)
 * for (const c of receipt.cleared) console.log(`${c.tool} ${c.toolCallId}: ${c.tokensBefore} → ${c.tokensAfter}`)
 *
 * @since 0.1.0
 * @category model
 */
export type Receipt = {
  readonly summarised: ReadonlyArray<string>
  readonly archived: ReadonlyArray<string>
  readonly toolCalls: ReadonlyArray<{ readonly id: string; readonly name: string }>
  readonly cleared: ReadonlyArray<ClearedOutput>
  readonly artifacts: ArtifactLedger
}

/**
 * The receipt of an operation that changed nothing.
 *
 * @example
 * import { EMPTY_RECEIPT } from 'chatfold/history'
 * EMPTY_RECEIPT.cleared.length // 0
 *
 * @since 0.1.0
 * @category model
 */
export const EMPTY_RECEIPT: Receipt = { summarised: [], archived: [], toolCalls: [], cleared: [], artifacts: EMPTY_LEDGER }

/**
 * The tool outputs of `before` that `after` (the same message, rewritten) cleared: its parts
 * compared by position, a tool result whose content changed or a tool call whose arguments changed
 * (not public: a compaction plan's receipt reads it too).
 */
export const clearedOutputs = (estimate: Estimator) => (before: Message, after: Message): ReadonlyArray<ClearedOutput> => {
  const out: ClearedOutput[] = []
  const pointers = pointersOf(after)
  const refFor = (toolCallId: string, part: ClearedOutput['part']): { readonly ref?: string } => {
    const p = pointers.find((q) => q.toolCallId === toolCallId && q.part === part)
    return p === undefined ? {} : { ref: refOf(p) }
  }
  before.parts.forEach((p, i) => {
    const q = after.parts[i]
    if (q === undefined || q.type !== p.type) return
    if (p.type === 'tool_result' && q.type === 'tool_result' && p.content !== q.content) {
      out.push({
        messageId: before.id,
        toolCallId: p.toolCallId,
        tool: p.name ?? '',
        part: 'result',
        tokensBefore: partTokens(estimate, p),
        tokensAfter: partTokens(estimate, q),
        ...refFor(p.toolCallId, 'result'),
      })
    } else if (p.type === 'tool_call' && q.type === 'tool_call' && p.arguments !== q.arguments) {
      out.push({
        messageId: before.id,
        toolCallId: p.id,
        tool: p.name,
        part: 'arguments',
        tokensBefore: estimate(p.arguments),
        tokensAfter: estimate(q.arguments),
        ...refFor(p.id, 'arguments'),
      })
    }
  })
  return out
}

/** Tool names by call id, for results that do not carry their tool's name. */
const namesIn = (ms: Messages): Map<string, string> => {
  const names = new Map<string, string>()
  for (const m of ms) for (const p of m.parts) if (p.type === 'tool_call') names.set(p.id, p.name)
  return names
}

/** `cleared` with every blank tool name filled in from the calls of `ms`. */
export const named = (cleared: ReadonlyArray<ClearedOutput>, ms: Messages): ReadonlyArray<ClearedOutput> => {
  if (cleared.every((c) => c.tool !== '')) return cleared
  const names = namesIn(ms)
  return cleared.map((c) => (c.tool !== '' ? c : { ...c, tool: names.get(c.toolCallId) ?? '' }))
}

/**
 * The receipt of a rewrite that keeps every message in place (a prune): `before` and `after` have
 * the same length, and `changed` lists the indices whose message differs (all indices whose
 * message is not the same object, when not given).
 *
 * @example
 * import { pruneToolResults, rewriteReceipt } from 'chatfold/history'
 * import { heuristic } from 'chatfold/tokens'
 * declare const history: import('chatfold').Messages
 * const pruned = pruneToolResults({ protectTokens: 40_000 })(history)
 * const receipt = rewriteReceipt(heuristic)(history, pruned)
 *
 * @since 0.1.0
 * @category receipts
 */
export const rewriteReceipt = (estimate: Estimator) => (before: Messages, after: Messages, changed?: ReadonlyArray<number>): Receipt => {
  if (before === after) return EMPTY_RECEIPT
  const at = changed ?? before.flatMap((m, i) => (m === after[i] ? [] : [i]))
  if (at.length === 0) return EMPTY_RECEIPT
  const originals = at.map((i) => before[i] as Message)
  const cleared = at.flatMap((i) => (after[i] === undefined ? [] : clearedOutputs(estimate)(before[i] as Message, after[i] as Message)))
  return { ...EMPTY_RECEIPT, cleared: named(cleared, before), artifacts: ledgerMinus(artifactLedger(after))(artifactLedger(originals)) }
}
