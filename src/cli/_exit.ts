/**
 * How a command of `chatfold` ends: its exit codes, and the failure that carries one. The program
 * loads it up front, so it is light on purpose.
 *
 * @module
 */

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
