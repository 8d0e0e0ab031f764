/**
 * A call's receipt as the middleware's record carries it: the receipt of what the call's prune and
 * compaction took out of the prompt, its messages named by their index in the messages the
 * framework sent (which have no ids of their own), in plain JSON arrays (provider metadata is
 * JSON), and its codec.
 *
 * @module
 */
import * as t from 'io-ts'
import type { Receipt } from '../history/receipt.ts'
import { type LedgerCommand, LedgerCommandC, mergeLedgers } from '../history/artifact-ledger.ts'

/**
 * A tool output cleared in place, its message named by its index in the messages the framework sent.
 *
 * @example
 * import type { RecordClearedOutput } from 'chatfold/ai-sdk'
 * const c: RecordClearedOutput = { message: 7, toolCallId: 'call_1', tool: 'read_file', part: 'result', tokensBefore: 5_120, tokensAfter: 48 }
 *
 * @since 0.1.0
 * @category ai-sdk
 */
export type RecordClearedOutput = {
  readonly message: number
  readonly toolCallId: string
  readonly tool: string
  readonly part: 'result' | 'arguments'
  readonly tokensBefore: number
  readonly tokensAfter: number
}

/**
 * What a call took out of the prompt (see `Receipt` of `chatfold/history`), in plain arrays, each
 * message named by its index in the messages the framework sent: the messages summarised and
 * archived (a summary chatfold made earlier, summarised again, is not one of them), the tool calls
 * that left with them, each tool output cleared in place (message, call id, tool, tokens before and
 * after), and the artifacts that appear only in what was dropped.
 *
 * @example
 * import { contextRecordOf } from 'chatfold/ai-sdk'
 * declare const answer: { readonly providerMetadata?: Readonly<Record<string, unknown>> } // a generateText result
 * const record = contextRecordOf(answer)
 * if (record._tag === 'Some') for (const c of record.value.receipt?.cleared ?? []) console.log(`${c.tool} ${c.toolCallId}: ${c.tokensBefore} → ${c.tokensAfter}`)
 *
 * @since 0.1.0
 * @category ai-sdk
 */
export type RecordReceipt = {
  readonly summarised: Array<number>
  readonly archived: Array<number>
  readonly toolCalls: Array<{ readonly id: string; readonly name: string }>
  readonly cleared: Array<RecordClearedOutput>
  readonly artifacts: {
    readonly read: Array<string>
    readonly written: Array<string>
    readonly edited: Array<string>
    readonly commands: Array<LedgerCommand>
    readonly errors: Array<{ readonly toolCallId: string; readonly tool: string; readonly preview: string }>
    readonly instructions: Array<{ readonly message: number; readonly text: string }>
  }
}

/** The codec of a record's receipt, as `contextRecordOf` reads it back. */
export const RecordReceiptC: t.Type<RecordReceipt, unknown, unknown> = t.type({
  summarised: t.array(t.number),
  archived: t.array(t.number),
  toolCalls: t.array(t.type({ id: t.string, name: t.string })),
  cleared: t.array(t.type({
    message: t.number,
    toolCallId: t.string,
    tool: t.string,
    part: t.keyof({ result: null, arguments: null }),
    tokensBefore: t.number,
    tokensAfter: t.number,
  })),
  artifacts: t.type({
    read: t.array(t.string),
    written: t.array(t.string),
    edited: t.array(t.string),
    commands: t.array(LedgerCommandC),
    errors: t.array(t.type({ toolCallId: t.string, tool: t.string, preview: t.string })),
    instructions: t.array(t.type({ message: t.number, text: t.string })),
  }),
})

/**
 * The receipt of a call: the prune's (what it cleared in the prompt sent) and, when the call
 * compacted, the compaction's (what it summarised and archived), the prune's cleared outputs of the
 * messages the compaction took out left to the compaction's lists, the artifacts of both; each
 * message id read as the index `indexOf` gives it (one it gives none, a summary of chatfold's, left out).
 */
export const recordReceiptOf = (prune: Receipt | undefined, compaction: Receipt | undefined, indexOf: (id: string) => number | undefined): RecordReceipt => {
  const gone = new Set([...(compaction?.summarised ?? []), ...(compaction?.archived ?? [])])
  const cleared = [...(prune?.cleared ?? []).filter((c) => !gone.has(c.messageId)), ...(compaction?.cleared ?? [])]
  const a = prune === undefined ? compaction?.artifacts : compaction === undefined ? prune.artifacts : mergeLedgers(compaction.artifacts)(prune.artifacts)
  const indices = (ids: ReadonlyArray<string>): Array<number> =>
    ids.flatMap((id) => {
      const i = indexOf(id)
      return i === undefined ? [] : [i]
    })
  return {
    summarised: indices(compaction?.summarised ?? []),
    archived: indices(compaction?.archived ?? []),
    toolCalls: (compaction?.toolCalls ?? []).map((c) => ({ id: c.id, name: c.name })),
    cleared: cleared.flatMap(({ messageId, ...c }) => {
      const message = indexOf(messageId)
      return message === undefined ? [] : [{ message, ...c }]
    }),
    artifacts: {
      read: [...(a?.read ?? [])],
      written: [...(a?.written ?? [])],
      edited: [...(a?.edited ?? [])],
      commands: (a?.commands ?? []).map((c) => ({ ...c })),
      errors: (a?.errors ?? []).map((e) => ({ ...e })),
      instructions: (a?.instructions ?? []).flatMap((i) => {
        const message = indexOf(i.messageId)
        return message === undefined ? [] : [{ message, text: i.text }]
      }),
    },
  }
}
