/**
 * The artifact ledger: the files a conversation's tools read, wrote and edited, the commands they
 * ran with their exit status, the errors they reported and the user's instructions, as plain JSON
 * data with its codec, and the set operations (merge, difference) that carry it across compactions.
 *
 * @module
 */
import * as t from 'io-ts'

// --- model ---

/**
 * The codec of a command in the ledger: the tool call that ran it, its command line, and its
 * status (`ok`, `failed`, or `unknown` while no result says), with the exit code when the result
 * gives one.
 *
 * @since 0.1.0
 * @category codecs
 */
export const LedgerCommandC: t.Type<LedgerCommand, LedgerCommand, unknown> = t.intersection([
  t.type({ toolCallId: t.string, tool: t.string, command: t.string, status: t.keyof({ ok: null, failed: null, unknown: null }) }),
  t.partial({ exitCode: t.number }),
], 'LedgerCommand')

/**
 * The codec of an artifact ledger (see `ArtifactLedger`), by which a summary's `metadata.ledger`
 * is read back.
 *
 * @example
 * import { ArtifactLedgerC, EMPTY_LEDGER } from 'chatfold/history'
 * ArtifactLedgerC.is(EMPTY_LEDGER) // true
 *
 * @since 0.1.0
 * @category codecs
 */
export const ArtifactLedgerC: t.Type<ArtifactLedger, ArtifactLedger, unknown> = t.type({
  read: t.readonlyArray(t.string),
  written: t.readonlyArray(t.string),
  edited: t.readonlyArray(t.string),
  commands: t.readonlyArray(LedgerCommandC),
  errors: t.readonlyArray(t.type({ toolCallId: t.string, tool: t.string, preview: t.string })),
  instructions: t.readonlyArray(t.type({ messageId: t.string, text: t.string })),
}, 'ArtifactLedger')

/**
 * A command a tool ran (see `LedgerCommandC`).
 *
 * @example
 * import type { LedgerCommand } from 'chatfold/history'
 * const failed: LedgerCommand = { toolCallId: 'call_1', tool: 'Bash', command: 'npm test', status: 'failed', exitCode: 1 }
 *
 * @since 0.1.0
 * @category model
 */
export type LedgerCommand = {
  readonly toolCallId: string
  readonly tool: string
  readonly command: string
  readonly status: 'ok' | 'failed' | 'unknown'
  readonly exitCode?: number
}

/**
 * The artifact trail of a stretch of history, read from its tool calls and results alone (no
 * model): the paths read, written and edited (each once, in the order first seen, as the tool was
 * given them), the commands run, the tool results marked as errors (the call, the tool, the first
 * 200 characters of the result as `preview`), and the user's text turns (whole). Plain JSON: it
 * is kept in a compaction summary's `metadata.ledger`.
 *
 * @example
 * import type { ArtifactLedger } from 'chatfold/history'
 * const ledger: ArtifactLedger = {
 *   read: ['src/cart.ts'], written: [], edited: ['src/cart.ts'],
 *   commands: [{ toolCallId: 'call_1', tool: 'Bash', command: 'npm test', status: 'failed', exitCode: 1 }],
 *   errors: [], instructions: [{ messageId: 'u1', text: 'Fix the rounding in the cart total.' }],
 * }
 *
 * @since 0.1.0
 * @category model
 */
export type ArtifactLedger = {
  readonly read: ReadonlyArray<string>
  readonly written: ReadonlyArray<string>
  readonly edited: ReadonlyArray<string>
  readonly commands: ReadonlyArray<LedgerCommand>
  readonly errors: ReadonlyArray<{ readonly toolCallId: string; readonly tool: string; readonly preview: string }>
  readonly instructions: ReadonlyArray<{ readonly messageId: string; readonly text: string }>
}

/**
 * The ledger with nothing in it.
 *
 * @example
 * import { EMPTY_LEDGER, mergeLedgers } from 'chatfold/history'
 * mergeLedgers(EMPTY_LEDGER)(EMPTY_LEDGER).read.length // 0
 *
 * @since 0.1.0
 * @category model
 */
export const EMPTY_LEDGER: ArtifactLedger = { read: [], written: [], edited: [], commands: [], errors: [], instructions: [] }

// --- set operations ---

const unionBy = <A>(xs: ReadonlyArray<A>, ys: ReadonlyArray<A>, key: (a: A) => string): ReadonlyArray<A> => {
  if (ys.length === 0) return xs
  const seen = new Set(xs.map(key))
  const out = xs.slice()
  for (const y of ys) {
    const k = key(y)
    if (!seen.has(k)) (seen.add(k), out.push(y))
  }
  return out
}

const minusBy = <A>(xs: ReadonlyArray<A>, ys: ReadonlyArray<A>, key: (a: A) => string): ReadonlyArray<A> => {
  if (xs.length === 0 || ys.length === 0) return xs
  const drop = new Set(ys.map(key))
  return xs.filter((x) => !drop.has(key(x)))
}

const byPath = (s: string): string => s
const byCall = (x: { readonly toolCallId: string }): string => x.toolCallId
const byMessage = (x: { readonly messageId: string }): string => x.messageId

/**
 * Both ledgers in one: `earlier`'s entries first, then `later`'s that it lacks (a path once per
 * list, a command or an error once per tool call, an instruction once per message). A command
 * known to both keeps the later record when the earlier one had no status yet.
 *
 * @example
 * import { EMPTY_LEDGER, mergeLedgers } from 'chatfold/history'
 * const merged = mergeLedgers({ ...EMPTY_LEDGER, read: ['b.ts'] })({ ...EMPTY_LEDGER, read: ['a.ts'] })
 * merged.read // ['a.ts', 'b.ts']
 *
 * @since 0.1.0
 * @category ledger
 */
export const mergeLedgers = (later: ArtifactLedger) => (earlier: ArtifactLedger): ArtifactLedger => {
  const settled = new Map(later.commands.filter((c) => c.status !== 'unknown').map((c) => [c.toolCallId, c]))
  const commands = earlier.commands.map((c) => (c.status === 'unknown' ? (settled.get(c.toolCallId) ?? c) : c))
  return {
    read: unionBy(earlier.read, later.read, byPath),
    written: unionBy(earlier.written, later.written, byPath),
    edited: unionBy(earlier.edited, later.edited, byPath),
    commands: unionBy(commands, later.commands, byCall),
    errors: unionBy(earlier.errors, later.errors, byCall),
    instructions: unionBy(earlier.instructions, later.instructions, byMessage),
  }
}

/**
 * What `ledger` holds that `other` does not (by the same keys as `mergeLedgers`): the artifacts
 * that appear only in what a prune or a compaction dropped, when `other` is the ledger of what it kept.
 *
 * @example
 * import { EMPTY_LEDGER, ledgerMinus } from 'chatfold/history'
 * ledgerMinus({ ...EMPTY_LEDGER, read: ['a.ts'] })({ ...EMPTY_LEDGER, read: ['a.ts', 'b.ts'] }).read // ['b.ts']
 *
 * @since 0.1.0
 * @category ledger
 */
export const ledgerMinus = (other: ArtifactLedger) => (ledger: ArtifactLedger): ArtifactLedger => ({
  read: minusBy(ledger.read, other.read, byPath),
  written: minusBy(ledger.written, other.written, byPath),
  edited: minusBy(ledger.edited, other.edited, byPath),
  commands: minusBy(ledger.commands, other.commands, byCall),
  errors: minusBy(ledger.errors, other.errors, byCall),
  instructions: minusBy(ledger.instructions, other.instructions, byMessage),
})

/** Whether a ledger holds nothing (not public: `compact` asks it before it puts a ledger on a summary). */
export const isEmptyLedger = (l: ArtifactLedger): boolean =>
  l.read.length + l.written.length + l.edited.length + l.commands.length + l.errors.length + l.instructions.length === 0
