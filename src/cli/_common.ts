/**
 * The options every command of `chatfold` takes, and what they decide for all of them (whether
 * to draw the progress bar).
 *
 * @module
 */
import type { CliIO } from './_progress.ts'

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
