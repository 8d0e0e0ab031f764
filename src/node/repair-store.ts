/**
 * Repairing a file-backed store whose log is damaged (what `chatfold repair-store` runs): the first
 * record that is not whole (a corrupt line, or a torn last one) and every record after it are moved
 * into a quarantine file beside the log, and the log is cut before them. The records after a
 * damaged one are moved too, since the store is the fold of its log in order: replaying them
 * without the one before would build another store. What was moved is told, record by record, and
 * kept in the quarantine file as it was.
 *
 * @module
 */
import { open, readdir, readFile, rename, rm, truncate } from 'node:fs/promises'
import { join } from 'node:path'
import { StoreFailure } from '../store/failure.ts'
import { describeRecordText, scanSegment, SEGMENT, SNAPSHOT, syncDir } from './log-segments.ts'
import { lockStore } from './store-lock.ts'

/**
 * A record moved aside: where it was, what was wrong, and what it held (in a few words).
 *
 * @since 0.1.0
 * @category model
 */
export type MovedRecord = { readonly file: string; readonly line: number; readonly byte: number; readonly problem: string; readonly what: string }

/**
 * What `repairFileStore` did: the quarantine file written (none when nothing was damaged), the
 * records moved into it, and the last record the log now holds.
 *
 * @since 0.1.0
 * @category model
 */
export type StoreRepair = { readonly quarantine: string | undefined; readonly moved: ReadonlyArray<MovedRecord>; readonly lastRecord: number }

/** The lines of `bytes` from `byte` on, each with its line number and offset (a last line with no line end counts). */
const linesFrom = (bytes: Uint8Array, byte: number, line: number): Array<{ line: number; byte: number; text: string }> => {
  const out: Array<{ line: number; byte: number; text: string }> = []
  const decoder = new TextDecoder()
  while (byte < bytes.length) {
    const end = bytes.indexOf(10, byte)
    const stop = end < 0 ? bytes.length : end
    out.push({ line, byte, text: decoder.decode(bytes.subarray(byte, stop)) })
    byte = stop + 1
    line += 1
  }
  return out
}

/**
 * Moves the damaged records of the store in `dir` aside (see the module), holding the store's lock
 * meanwhile: a store a live server holds is refused (`StoreFailure`, `locked`).
 *
 * @example
 * import { mkdirSync } from 'node:fs'
 * import { repairFileStore } from 'chatfold/node'
 * mkdirSync('./repair-example', { recursive: true })
 * const r = await repairFileStore('./repair-example')
 * r.moved.length // 0 when the log was whole
 *
 * @since 0.1.0
 * @category fs
 */
export const repairFileStore = async (dir: string): Promise<StoreRepair> => {
  const lock = lockStore(dir)
  if (!('release' in lock)) throw new StoreFailure('read-only', `Cannot repair the store: ${lock.readOnly}`)
  try {
    const names = await readdir(dir)
    const segments = names.filter((n) => SEGMENT.test(n)).sort()
    // the records a snapshot covers are not in the log any more
    let lastRecord = names.reduce((most, n) => Math.max(most, Number(SNAPSHOT.exec(n)?.[1] ?? 0)), 0)
    for (const [si, name] of segments.entries()) {
      const file = join(dir, name)
      const bytes = await readFile(file)
      const { records, bad } = scanSegment(bytes)
      lastRecord = records[records.length - 1]?.seq ?? lastRecord
      if (bad === undefined) continue
      const lines = linesFrom(bytes, bad.byte, bad.line)
      const moved: MovedRecord[] = lines.map((l, i) => ({
        file: name,
        line: l.line,
        byte: l.byte,
        problem: i === 0 ? (bad.torn ? `torn: ${bad.problem}` : bad.problem) : 'follows the damaged record',
        what: describeRecordText(l.text),
      }))
      const texts = lines.map((l) => l.text)
      for (const later of segments.slice(si + 1)) {
        const b = await readFile(join(dir, later))
        for (const l of linesFrom(b, 0, 1)) {
          moved.push({ file: later, line: l.line, byte: l.byte, problem: 'follows the damaged record', what: describeRecordText(l.text) })
          texts.push(l.text)
        }
      }
      const quarantine = join(dir, `quarantine-${new Date().toISOString().replace(/[-:.]/g, '')}-${name}`)
      const tmp = `${quarantine}.tmp`
      const h = await open(tmp, 'wx')
      try {
        await h.writeFile(moved.map((m, i) => `${JSON.stringify({ file: m.file, line: m.line, byte: m.byte, problem: m.problem, text: texts[i] })}\n`).join(''))
        await h.sync()
      } finally {
        await h.close()
      }
      await rename(tmp, quarantine)
      await syncDir(dir)
      // kept aside first, then cut from the log
      await truncate(file, bad.byte)
      const fh = await open(file, 'r+')
      try {
        await fh.sync()
      } finally {
        await fh.close()
      }
      for (const later of segments.slice(si + 1)) await rm(join(dir, later), { force: true })
      await syncDir(dir)
      return { quarantine, moved, lastRecord }
    }
    return { quarantine: undefined, moved: [], lastRecord }
  } finally {
    lock.release()
  }
}
