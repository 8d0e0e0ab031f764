/**
 * Repairing a file-backed store whose log cannot be replayed (what `chatfold repair-store` runs):
 * damaged lines (a corrupt record, a torn or zero-filled tail), and whole records out of place
 * (numbers used twice or skipped, as two processes writing one log leave them).
 *
 * The log is rebuilt from every whole record it holds after the latest snapshot, in the order they
 * were written (segment by segment, line by line): each is replayed on the state before it and
 * kept if it applies, whatever its number. Two writers that both acknowledged a record numbered 5
 * thus both keep theirs, the later-written one as the next number ("renumbered"). A record is set
 * aside when its line is damaged, when it is not a command, or when it does not apply after the
 * records kept before it (a second `create`, a message id already taken): each set-aside line is
 * kept as it was in a quarantine file beside the log, with where it was and why. A kept record that
 * named no message id gets its id and time from the rebuilt store, as on every replay: after two
 * writers these may differ from what its writer answered (its content and order are kept).
 *
 * The result is written as a new snapshot (flushed, renamed) numbered at least as high as any
 * record or segment found, then the old segments are removed: a repair cut short by a crash leaves
 * either the old files or a snapshot that covers them all, and running it again is safe.
 *
 * @module
 */
import { open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import * as E from 'fp-ts/Either'
import type { StoredSnapshot } from '../store/durable.ts'
import { StoreError } from '../store/failure.ts'
import { applyCommand, decodeStoreCommand, encodeSimulator, restoreSimulator } from '../store/log.ts'
import type { Simulator } from '../store/simulator.ts'
import { decodeSnapshot, describeRecordText, encodeSnapshot, parseLine, SEGMENT, SNAPSHOT, snapshotName, syncDir, zeroTail } from './_log-segments.ts'
import { lockStore } from './_store-lock.ts'

/**
 * A record set aside: where it was, what was wrong, and what it held (in a few words).
 *
 * @since 0.1.0
 * @category model
 */
export type MovedRecord = { readonly file: string; readonly line: number; readonly byte: number; readonly problem: string; readonly what: string }

/**
 * What `repairFileStore` did: the quarantine file written (none when nothing was set aside), the
 * records set aside into it, the last record the store now holds, how many records after the
 * snapshot were kept, and how many of those were renumbered (their number used twice or out of
 * place).
 *
 * @since 0.1.0
 * @category model
 */
export type StoreRepair = {
  readonly quarantine: string | undefined
  readonly moved: ReadonlyArray<MovedRecord>
  readonly lastRecord: number
  readonly kept: number
  readonly renumbered: number
}

/** The lines of `bytes` from `byte` on, each with its line number, offset, and whether it has a line end. */
const linesOf = (bytes: Uint8Array): Array<{ line: number; byte: number; text: string; ended: boolean }> => {
  const out: Array<{ line: number; byte: number; text: string; ended: boolean }> = []
  const decoder = new TextDecoder()
  let byte = 0
  let line = 1
  while (byte < bytes.length) {
    const end = bytes.indexOf(10, byte)
    const stop = end < 0 ? bytes.length : end
    out.push({ line, byte, text: decoder.decode(bytes.subarray(byte, stop)), ended: end >= 0 })
    byte = stop + 1
    line += 1
  }
  return out
}

const writeDurably = async (file: string, text: string): Promise<void> => {
  const tmp = `${file}.tmp`
  const h = await open(tmp, 'wx')
  try {
    await h.writeFile(text)
    await h.sync()
  } finally {
    await h.close()
  }
  await rename(tmp, file)
}

/**
 * Rebuilds the log of the store in `dir` (see the module), holding the store's lock meanwhile: a
 * store a live server holds is refused (`StoreError`, `locked`). A log that replays as it is
 * is left alone.
 *
 * @example
 * import { mkdirSync } from 'node:fs'
 * import { repairFileStore } from 'chatfold/node'
 * mkdirSync('./repair-example', { recursive: true })
 * const r = await repairFileStore('./repair-example')
 * // nothing to move from a whole log
 * r.moved.length // 0
 *
 * @since 0.1.0
 * @category fs
 */
export const repairFileStore = async (dir: string): Promise<StoreRepair> => {
  const lock = lockStore(dir)
  if (!('release' in lock)) throw new StoreError('read-only', `Cannot repair the store: ${lock.readOnly}`)
  try {
    const names = await readdir(dir)
    const latest = names.filter((n) => SNAPSHOT.test(n)).sort().pop()
    let snapshot: StoredSnapshot | undefined
    let sim: Simulator | undefined
    if (latest !== undefined) {
      snapshot = decodeSnapshot(await readFile(join(dir, latest), 'utf8'))
      const restored = snapshot === undefined ? E.left('checksum mismatch') : restoreSimulator(snapshot.simulator)
      if (E.isLeft(restored))
        throw new StoreError(
          'corrupt',
          `Cannot repair the store: its snapshot ${join(dir, latest)} is corrupt (${restored.left}); the log is rebuilt on a snapshot, not without one`,
        )
      sim = restored.right
    }
    const from = snapshot?.seq ?? 0
    const segments = names.filter((n) => SEGMENT.test(n)).sort()
    const moved: MovedRecord[] = []
    const texts: string[] = []
    const aside = (file: string, l: { line: number; byte: number; text: string }, problem: string) => {
      moved.push({ file, line: l.line, byte: l.byte, problem, what: describeRecordText(l.text) })
      texts.push(l.text)
    }
    let kept = 0
    let renumbered = 0
    /** The highest record number or segment start found: the rebuilt store ends at least there, so that a leftover file is covered. */
    let highest = from
    for (const [si, name] of segments.entries()) {
      const first = Number(SEGMENT.exec(name)?.[1])
      highest = Math.max(highest, first)
      const bytes = await readFile(join(dir, name))
      const last = si === segments.length - 1
      for (const l of linesOf(bytes)) {
        const r = parseLine(l.text)
        if (typeof r === 'string') {
          if (last && zeroTail(bytes, l.byte)) {
            aside(
              name,
              { ...l, text: new TextDecoder().decode(bytes.subarray(l.byte)) },
              'torn: zero bytes to the end of the file (a write lost with the power)',
            )
            break
          }
          aside(name, l, last && !l.ended ? `torn: ${r}` : r)
          continue
        }
        highest = Math.max(highest, r.seq)
        // a segment the snapshot covers (a crash before it was removed) holds records up to it
        if (first <= from && r.seq <= from) continue
        const command = decodeStoreCommand(r.command)
        if (E.isLeft(command)) {
          aside(name, l, `not a command: ${command.left}`)
          continue
        }
        const next = applyCommand(command.right)(sim)
        if (E.isLeft(next)) {
          aside(name, l, `does not apply after the records kept before it: ${next.left}`)
          continue
        }
        sim = next.right
        kept += 1
        if (r.seq !== from + kept) renumbered += 1
      }
    }
    if (moved.length === 0 && renumbered === 0) return { quarantine: undefined, moved: [], lastRecord: from + kept, kept, renumbered }

    let quarantine: string | undefined
    if (moved.length > 0) {
      quarantine = join(dir, `quarantine-${new Date().toISOString().replace(/[-:.]/g, '')}.jsonl`)
      await writeDurably(
        quarantine,
        moved.map((m, i) => `${JSON.stringify({ file: m.file, line: m.line, byte: m.byte, problem: m.problem, text: texts[i] })}\n`).join(''),
      )
      await syncDir(dir)
    }
    // set aside first, then the store rebuilt as a snapshot covering every file found, then the old files removed
    const lastRecord = sim === undefined ? 0 : Math.max(from + kept, highest)
    const name = snapshotName(lastRecord)
    if (sim !== undefined) {
      await rm(join(dir, `${name}.tmp`), { force: true })
      await writeDurably(join(dir, name), encodeSnapshot({ seq: lastRecord, simulator: encodeSimulator(sim) }))
      await syncDir(dir)
    }
    for (const n of await readdir(dir)) if (SEGMENT.test(n) || (SNAPSHOT.test(n) && n !== name)) await rm(join(dir, n), { force: true })
    await syncDir(dir)
    return { quarantine, moved, lastRecord, kept, renumbered }
  } finally {
    lock.release()
  }
}
