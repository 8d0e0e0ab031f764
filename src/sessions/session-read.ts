/**
 * What every session reader gives and takes: the read (history, archive, notes, skipped lines), a
 * skipped line, and the option that says what a bad line does.
 *
 * @module
 */
import type { Messages } from '../message/message.ts'

/**
 * A line a reader left out with `badLines: 'skip'`: its 1-based number and why.
 *
 * @example
 * import type { SkippedLine } from 'chatfold/sessions'
 * const s: SkippedLine = { line: 4, reason: 'not JSON: Unexpected end of JSON input' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type SkippedLine = { readonly line: number; readonly reason: string }

/**
 * What reading a session file gave: the history as the tool would send it now; the archive, the
 * messages the file still holds that the history no longer has (what a recorded compaction replaced,
 * what a rewind dropped), oldest first; notes on what the file held that is not part of the history
 * (each says what and how many); and the lines skipped as bad.
 *
 * @example
 * import type { SessionRead } from 'chatfold/sessions'
 * const empty: SessionRead = { messages: [], archive: [], notes: [], skipped: [] }
 *
 * @since 0.1.0
 * @category adapters
 */
export type SessionRead = {
  readonly messages: Messages
  readonly archive: Messages
  readonly notes: ReadonlyArray<string>
  readonly skipped: ReadonlyArray<SkippedLine>
}

/**
 * Options of the JSONL session readers: `badLines: 'fail'` (the default) answers the first line that
 * is not JSON or not a record of the format as a failure naming it; `'skip'` reads the rest and lists
 * the lines it left out in `skipped`.
 *
 * @example
 * import type { SessionOptions } from 'chatfold/sessions'
 * const lenient: SessionOptions = { badLines: 'skip' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type SessionOptions = { readonly badLines?: 'fail' | 'skip' }
