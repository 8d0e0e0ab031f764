/**
 * The file backend of the durable chat store (Node, and Deno through its `node:` modules): a
 * directory holding an append-only log in segments (`log-<first record>.jsonl`, one record a line,
 * each line its JSON and a checksum) and the latest snapshot (`snapshot-<record>.json`, written to
 * a temporary file with its checksum, flushed and renamed). Appends are flushed to disk (`fdatasync`) before they
 * resolve, and only once the file written is still the one the directory holds (a log whose
 * directory was removed is an unlinked file: nothing written to it would be read back). A full disk
 * undoes the part of a batch it let through, so the log stays whole. On load, a torn last line (a
 * crash mid-append: no line end, never acknowledged) is cut off; a complete line that is not a
 * record with its checksum is corruption, anywhere: an error naming the file, line and record, the
 * file kept for `repairFileStore`. Each snapshot starts a new segment and removes the older ones,
 * so neither the log nor recovery grows without bound.
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { mkdir, open, readdir, readFile, rename, rm, stat, truncate, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import type { LogEntry, StoredLog, StoredSnapshot, StoreStorage } from '../store/durable.ts'
import { StoreFailure } from '../store/failure.ts'
import { encodeLine, type Parsed, scanSegment, SEGMENT, segmentName, SNAPSHOT, snapshotName, syncDir } from './log-segments.ts'
import { lockStore } from './store-lock.ts'

const codeOf = (e: unknown): string => String((e as { code?: unknown }).code ?? '')

/** Whether an error is a full disk or quota: the write may succeed once space returns. */
const isFull = (e: unknown): boolean => codeOf(e) === 'ENOSPC' || codeOf(e) === 'EDQUOT'

const fullFailure = (dir: string, e: unknown): StoreFailure =>
  new StoreFailure('full', `No space left for the store in ${dir} (${codeOf(e)}): writes are refused until there is; reads go on`, { cause: e })

/**
 * A store storage in a directory (created if missing). One process at a time: a `LOCK` file names
 * the holder, and a lock left by a process that died (or naming a live process that is not the one
 * that wrote it) is taken over. A directory that cannot be written (a read-only mount) is loaded
 * read-only: `StoredLog.readOnly` says why, and every append is refused (`StoreFailure`, `read-only`).
 *
 * @example
 * import { openDurableStore } from 'chatfold/store'
 * import { fileStorage } from 'chatfold/node'
 * const store = await openDurableStore(fileStorage('./chat-data'))()
 *
 * @since 0.1.0
 * @category constructors
 */
export const fileStorage = (dir: string): StoreStorage => {
  /** The segment appended to: its handle, path, identity (device, inode) and the length of its whole records. */
  let segment: { readonly handle: FileHandle; readonly path: string; readonly dev: number; readonly ino: number; size: number } | undefined
  let unlock: (() => void) | undefined
  let readOnly: string | undefined

  const openSegment = async (first: number): Promise<void> => {
    const path = join(dir, segmentName(first))
    const handle = await open(path, 'a')
    const s = await handle.stat()
    await syncDir(dir)
    // the new segment first, then the old one closed: a failure leaves the old one in use
    await segment?.handle.close()
    segment = { handle, path, dev: s.dev, ino: s.ino, size: s.size }
  }

  const load = async (): Promise<StoredLog> => {
    try {
      await mkdir(dir, { recursive: true })
    } catch (e) {
      // a read-only medium holding the store already: read it
      if (codeOf(e) !== 'EROFS' && codeOf(e) !== 'EACCES') throw e
    }
    if (unlock === undefined && readOnly === undefined) {
      const lock = lockStore(dir)
      if ('release' in lock) unlock = lock.release
      else readOnly = lock.readOnly
    }
    try {
      return await recover()
    } catch (e) {
      await close()
      throw e
    }
  }

  const recover = async (): Promise<StoredLog> => {
    const names = await readdir(dir)
    if (readOnly === undefined) for (const n of names) if (n.endsWith('.tmp')) await rm(join(dir, n), { force: true })
    const snapshots = names.flatMap((n) => (SNAPSHOT.test(n) ? [n] : [])).sort()
    const latest = snapshots[snapshots.length - 1]
    let snapshot: StoredSnapshot | undefined
    if (latest !== undefined) {
      const file = join(dir, latest)
      const text = await readFile(file, 'utf8')
      const at = text.lastIndexOf('\nsha256:')
      const body = at < 0 ? '' : text.slice(0, at)
      if (at < 0 || createHash('sha256').update(body).digest('hex') !== text.slice(at + 8).trim()) {
        throw new StoreFailure('corrupt', `Cannot recover the store: the snapshot ${file} is corrupt (checksum mismatch)`)
      }
      snapshot = JSON.parse(body) as StoredSnapshot
    }
    const segments = names.flatMap((n) => (SEGMENT.test(n) ? [n] : [])).sort()
    const tail: Parsed[] = []
    const repaired: string[] = []
    for (const [si, name] of segments.entries()) {
      const file = join(dir, name)
      const scanned = scanSegment(await readFile(file))
      tail.push(...scanned.records)
      const bad = scanned.bad
      if (bad === undefined) continue
      const expected = (tail[tail.length - 1]?.seq ?? snapshot?.seq ?? 0) + 1
      if (!bad.torn || si !== segments.length - 1) {
        throw new StoreFailure('corrupt', `Cannot recover the store: record ${expected} (${file}, line ${bad.line}, byte ${bad.byte}) is corrupt: ${bad.problem}`)
      }
      const what = `a torn last record (${file}, line ${bad.line}, ${Buffer.byteLength(bad.text)} bytes: ${bad.problem}); it was never acknowledged`
      if (readOnly === undefined) {
        await truncate(file, bad.byte)
        repaired.push(`cut ${what}`)
      } else repaired.push(`left ${what}, not cut: the store is read-only`)
    }
    const snapSeq = snapshot?.seq ?? 0
    if (readOnly === undefined) {
      const lastSegment = segments[segments.length - 1]
      const lastFirst = lastSegment === undefined ? undefined : Number(SEGMENT.exec(lastSegment)?.[1])
      // the last segment goes on, unless a snapshot covers it (a crash between snapshot and rotation)
      await openSegment(lastFirst !== undefined && lastFirst > snapSeq ? lastFirst : snapSeq + 1)
    }
    return { snapshot, tail: tail.filter((r) => r.seq > snapSeq), repaired, ...(readOnly === undefined ? {} : { readOnly }) }
  }

  /** Whether the segment written is still the one the directory holds under its name: linked, same device and inode. */
  const checkKept = async (s: NonNullable<typeof segment>): Promise<void> => {
    const open_ = await s.handle.stat()
    const named = await stat(s.path).catch(() => undefined)
    const same = named !== undefined && named.dev === s.dev && named.ino === s.ino && open_.nlink !== 0
    if (!same) {
      throw new StoreFailure(
        'lost',
        `The store's log ${s.path} is no longer in its directory (${named === undefined ? 'removed' : 'replaced'}): what is written to it would not be read back, so writes are refused until a restart; reads go on`,
      )
    }
  }

  const append = async (entries: ReadonlyArray<LogEntry>): Promise<void> => {
    if (readOnly !== undefined) throw new StoreFailure('read-only', readOnly)
    const s = segment
    if (s === undefined) throw new Error('The file storage is not loaded')
    const data = Buffer.from(entries.map(encodeLine).join(''))
    try {
      await s.handle.appendFile(data)
      await s.handle.datasync()
    } catch (e) {
      if (!isFull(e)) throw e
      // undo the part of the batch the disk let through, so that the log ends with a whole record
      await s.handle.truncate(s.size)
      await s.handle.datasync()
      throw fullFailure(dir, e)
    }
    await checkKept(s)
    s.size += data.length
  }

  const writeSnapshot = async (snap: StoredSnapshot): Promise<void> => {
    const name = snapshotName(snap.seq)
    const tmp = join(dir, `${name}.tmp`)
    try {
      const h = await open(tmp, 'w')
      try {
        const body = JSON.stringify(snap)
        await h.writeFile(`${body}\nsha256:${createHash('sha256').update(body).digest('hex')}\n`)
        await h.sync()
      } finally {
        await h.close()
      }
      await rename(tmp, join(dir, name))
      await syncDir(dir)
      // the snapshot covers every record so far: a new segment, and the old files go
      await openSegment(snap.seq + 1)
    } catch (e) {
      await rm(tmp, { force: true }).catch(() => undefined)
      throw isFull(e) ? fullFailure(dir, e) : e
    }
    for (const n of await readdir(dir)) {
      const seg = SEGMENT.exec(n)
      const old = SNAPSHOT.exec(n)
      if ((seg !== null && Number(seg[1]) <= snap.seq) || (old !== null && Number(old[1]) < snap.seq)) {
        await rm(join(dir, n), { force: true })
      }
    }
    await syncDir(dir)
  }

  const close = async (): Promise<void> => {
    await segment?.handle.close()
    segment = undefined
    unlock?.()
    unlock = undefined
  }

  return { load, append, writeSnapshot, close }
}
