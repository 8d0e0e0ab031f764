/**
 * A progress bar on stderr, shown only where a person watches (stderr is a terminal) or when asked.
 *
 * @module
 */

/** Where the command line writes: stdout, stderr, and whether stderr is a terminal. */
export type CliIO = {
  readonly out: (s: string) => void
  readonly err: (s: string) => void
  readonly errIsTTY: boolean
}

/** A progress reporter: `update(done, total)`; `end()` finishes the line. */
export type Progress = { readonly update: (done: number, total: number, stage?: string) => void; readonly end: () => void }

const NONE: Progress = { update: () => undefined, end: () => undefined }

/** A bar labelled `label`, or one that does nothing when `on` is false. */
export const progressBar = (io: CliIO, label: string, on: boolean): Progress => {
  if (!on) return NONE
  let shown = -1
  let open = false
  return {
    update: (done, total, stage) => {
      const pct = total === 0 ? 100 : Math.min(100, Math.floor((100 * done) / total))
      if (pct === shown) return
      shown = pct
      const full = Math.round((30 * pct) / 100)
      const line = `${label.padEnd(8)} [${'#'.repeat(full)}${'.'.repeat(30 - full)}] ${String(pct).padStart(3)}%${stage === undefined ? '' : ` ${stage}`}`
      io.err(io.errIsTTY ? `\r${line}` : `${line}\n`)
      open = io.errIsTTY
    },
    end: () => {
      if (open) io.err('\n')
      open = false
    },
  }
}
