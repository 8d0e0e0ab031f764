/**
 * What every command of `chatfold` shares and the program loads up front: the exit codes, the
 * failure that ends a command, the options every command has, and the reading notes. Light on
 * purpose: a command's own modules are imported only when it runs.
 *
 * @module
 */
import type { CliIO } from './progress.ts'

/**
 * The exit codes of `chatfold`:
 * 0 done; 1 the history has problems the command reports (tool-pair problems in `stats`, a
 * conversion the target refuses); 2 bad usage (unknown command, option or value); 3 a file (or the output) that
 * cannot be read or written; 4 input that is not a history in a known format; 5 a store whose log
 * or snapshot is damaged (`repair-store` moves damaged log records aside); 6 a store another live
 * server holds; 7 an address the server cannot listen on; 70 a failure chatfold did not foresee.
 */
export const EXIT = { ok: 0, problems: 1, usage: 2, io: 3, input: 4, damaged: 5, locked: 6, listen: 7, internal: 70 } as const

/** A failure that ends the command with an exit code and a message. */
export class CliError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
    this.name = 'CliError'
  }
}

/**
 * Options every command has: the input format, JSON output for scripts, the progress bar, the output
 * file, bad lines skipped, and for a Claude Code session every branch and its sub-agent runs.
 */
export type Common = {
  readonly from?: string
  readonly json?: boolean
  readonly progress?: boolean
  readonly output?: string
  readonly skipBadLines?: boolean
  readonly allBranches?: boolean
  readonly subagents?: 'inline' | 'omit'
}

/** Whether to draw the progress bar: asked for, or stderr is a terminal. */
export const showProgress = (io: CliIO, o: Common): boolean => o.progress === true || io.errIsTTY

// thousands grouped without loading the locale data; the core's helper
export { grouped } from '../internal/number.ts'
