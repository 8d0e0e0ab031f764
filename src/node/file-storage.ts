/**
 * The file backend of the durable chat store (Node, and Deno through its `node:` modules): a
 * directory holding an append-only log in segments (`log-<first record>.jsonl`, one record a line,
 * each line its JSON and a checksum) and the latest snapshot (`snapshot-<record>.json`, written to
 * a temporary file with its checksum, flushed and renamed). Appends are flushed to disk (`fdatasync`) before they
 * resolve. Before and after each, the log is checked to be the file the directory holds and of the
 * length this process wrote, and the LOCK still its own: a log removed, replaced, truncated (a
 * `copytruncate` rotation) or appended to by another program, or a store another process took,
 * refuses every later write (`StoreError`, `lost`, saying which), since what is written would not
 * be read back as written. A full disk
 * undoes the part of a batch it let through, so the log stays whole. On load, a torn last line (a
 * crash mid-append: no line end, never acknowledged) is cut off; a complete line that is not a
 * record with its checksum is corruption, anywhere: an error naming the file, line and record, the
 * file kept for `repairFileStore`. Each snapshot starts a new segment and removes the older ones,
 * so neither the log nor recovery grows without bound.
 *
 * @module
 */
import { type FileHandle, mkdir, open, readdir, readFile, rename, rm, stat, truncate } from 'node:fs/promises'
import { join } from 'node:path'
import type { LogEntry, StoredLog, StoredSnapshot, StoreStorage } from '../store/durable.ts'
import { StoreError } from '../store/failure.ts'
import { decodeSnapshot, encodeLine, encodeSnapshot, type Parsed, scanSegment, SEGMENT, segmentName, SNAPSHOT, snapshotName, syncDir } from './_log-segments.ts'
import { lockStore } from './_store-lock.ts'

const codeOf = (e: unknown): string => String((e as { code?: unknown }).code ?? '')

/** Whether an error is a full disk, a quota or the largest file allowed (EFBIG): the write may succeed once space returns. */
const isFull = (e: unknown): boolean => codeOf(e) === 'ENOSPC' || codeOf(e) === 'EDQUOT' || codeOf(e) === 'EFBIG'

const fullFailure = (dir: string, e: unknown): StoreError =>
  new StoreError(
    'full',
    `${codeOf(e) === 'EFBIG' ? "The store's log file has reached the largest size allowed" : 'No space left for the store'} in ${dir} (${
      codeOf(e)
    }): writes are refused until there is room; reads go on`,
    { cause: e },
  )

/** Whether a write was refused by the medium or its permissions (a read-only remount, an immutable file): no later write will do better. */
const isWriteRefused = (e: unknown): boolean => codeOf(e) === 'EROFS' || codeOf(e) === 'EACCES' || codeOf(e) === 'EPERM'

const refusedFailure = (dir: string, e: unknown): StoreError =>
  new StoreError('read-only', `The store in ${dir} can no longer be written (${codeOf(e)}): writes are refused until a restart; reads go on`, { cause: e })

/** The segment appended to: its handle, path, identity (device, inode) and the length of its whole records. */
type Segment = { readonly handle: FileHandle; readonly path: string; readonly dev: number; readonly ino: number; size: number }

/** The latest snapshot among the file names `names` of `dir`, read and checked, if there is one. */
const latestSnapshot = async (dir: string, names: ReadonlyArray<string>): Promise<StoredSnapshot | undefined> => {
  const snapshots = names.flatMap((n) => (SNAPSHOT.test(n) ? [n] : [])).sort()
  const latest = snapshots[snapshots.length - 1]
  if (latest === undefined) return undefined
  const file = join(dir, latest)
  const snapshot = decodeSnapshot(await readFile(file, 'utf8'))
  if (snapshot === undefined) throw new StoreError('corrupt', `Cannot recover the store: the snapshot ${file} is corrupt (checksum mismatch)`)
  return snapshot
}

/**
 * The records of the segments `segments` (sorted) of `dir` after record `snapSeq`, each checked to
 * follow the one before; a torn last record of the last segment is cut off (left, and said so, when
 * the store is read-only), any other bad line is corruption.
 */
const readTail = async (
  dir: string,
  segments: ReadonlyArray<string>,
  snapSeq: number,
  readOnly: string | undefined,
): Promise<{ readonly tail: Parsed[]; readonly repaired: string[] }> => {
  const tail: Parsed[] = []
  const repaired: string[] = []
  /** The last record read after the snapshot: each next one must follow it (two processes writing one log number records twice). */
  let previous = snapSeq
  for (const [si, name] of segments.entries()) {
    const file = join(dir, name)
    const bytes = await readFile(file)
    const scanned = scanSegment(bytes)
    const covered = Number(SEGMENT.exec(name)?.[1]) <= snapSeq
    for (const r of scanned.records) {
      // a segment a snapshot covers (a crash before it was removed) holds records up to it
      if (covered && r.seq <= snapSeq) continue
      if (r.seq !== previous + 1) {
        throw new StoreError(
          'corrupt',
          `Cannot recover the store: record ${r.seq} (${file}, line ${r.line}, byte ${r.byte}) is out of place: it follows record ${previous}${
            r.seq <= previous ? ' (a number used twice: two processes wrote this log)' : ` (records ${previous + 1}–${r.seq - 1} are missing)`
          }`,
        )
      }
      previous = r.seq
    }
    tail.push(...scanned.records)
    const bad = scanned.bad
    if (bad === undefined) continue
    const expected = previous + 1
    if (!bad.torn || si !== segments.length - 1) {
      throw new StoreError('corrupt', `Cannot recover the store: record ${expected} (${file}, line ${bad.line}, byte ${bad.byte}) is corrupt: ${bad.problem}`)
    }
    const what = `a torn last record (${file}, line ${bad.line}, ${bytes.length - bad.byte} bytes: ${bad.problem}); it was never acknowledged`
    if (readOnly === undefined) {
      await truncate(file, bad.byte)
      repaired.push(`cut ${what}`)
    } else repaired.push(`left ${what}, not cut: the store is read-only`)
  }
  return { tail, repaired }
}

/**
 * Why the segment may not be appended to, if it may not: this process no longer holds the LOCK
 * (`owner` says so), or the file is not the one it wrote (removed or replaced in the directory, or
 * of another length: truncated, or appended to by another program). `expected` is the length it
 * should have now.
 */
const segmentChange = async (s: Segment, expected: number, owner: (() => string | undefined) | undefined): Promise<string | undefined> => {
  const open_ = await s.handle.stat()
  const named = await stat(s.path).catch(() => undefined)
  if (named !== undefined && (named.dev !== s.dev || named.ino !== s.ino)) return `its log ${s.path} was replaced by another file`
  if (named === undefined || open_.nlink === 0) return `its log ${s.path} was removed`
  const lost = owner?.()
  if (lost !== undefined) return `${lost}: another process may be writing this store`
  if (open_.size < expected) return `its log ${s.path} was truncated (${open_.size} bytes where ${expected} were written)`
  if (open_.size > expected) return `its log ${s.path} was appended to by another program (${open_.size} bytes where ${expected} were written)`
  return undefined
}

/** Writes the snapshot `snap` of `dir` through a temporary file, flushed, renamed and its directory synced. */
const writeSnapshotFile = async (dir: string, snap: StoredSnapshot, tmp: string): Promise<void> => {
  const h = await open(tmp, 'w')
  try {
    await h.writeFile(encodeSnapshot(snap))
    await h.sync()
  } finally {
    await h.close()
  }
  await rename(tmp, join(dir, snapshotName(snap.seq)))
  await syncDir(dir)
}

/** Removes the segments and older snapshots of `dir` that the snapshot at record `seq` covers. */
const removeCovered = async (dir: string, seq: number): Promise<void> => {
  for (const n of await readdir(dir)) {
    const seg = SEGMENT.exec(n)
    const old = SNAPSHOT.exec(n)
    if ((seg !== null && Number(seg[1]) <= seq) || (old !== null && Number(old[1]) < seq)) {
      await rm(join(dir, n), { force: true })
    }
  }
  await syncDir(dir)
}

/**
 * A store storage in a directory (created if missing). One process at a time: a `LOCK` file names
 * the holder, and a lock left by a process that died (or naming a live process that is not the one
 * that wrote it) is taken over. A directory that cannot be written (a read-only mount) is loaded
 * read-only: `StoredLog.readOnly` says why, and every append is refused (`StoreError`, `read-only`).
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
  /** The segment appended to. */
  let segment: Segment | undefined
  let unlock: (() => void) | undefined
  /** Why this process no longer holds the store's LOCK, if it does not. */
  let owner: (() => string | undefined) | undefined
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
      if ('release' in lock) {
        unlock = lock.release
        owner = lock.check
      } else readOnly = lock.readOnly
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
    if (readOnly === undefined) { for (const n of names) if (n.endsWith('.tmp')) await rm(join(dir, n), { force: true }) }
    const snapshot = await latestSnapshot(dir, names)
    const segments = names.flatMap((n) => (SEGMENT.test(n) ? [n] : [])).sort()
    const snapSeq = snapshot?.seq ?? 0
    const { tail, repaired } = await readTail(dir, segments, snapSeq, readOnly)
    if (readOnly === undefined) {
      const lastSegment = segments[segments.length - 1]
      const lastFirst = lastSegment === undefined ? undefined : Number(SEGMENT.exec(lastSegment)?.[1])
      // the last segment goes on, unless a snapshot covers it (a crash between snapshot and rotation)
      await openSegment(lastFirst !== undefined && lastFirst > snapSeq ? lastFirst : snapSeq + 1)
    }
    return { snapshot, tail: tail.filter((r) => r.seq > snapSeq), repaired, ...(readOnly === undefined ? {} : { readOnly }) }
  }

  /** A failure refusing every later write, saying why. */
  const lostFailure = (why: string): StoreError =>
    new StoreError(
      'lost',
      `The store in ${dir} takes no more writes: ${why}; what is written would not be read back as written, so writes are refused until a restart; reads go on`,
    )

  const append = async (entries: ReadonlyArray<LogEntry>): Promise<void> => {
    if (readOnly !== undefined) throw new StoreError('read-only', readOnly)
    const s = segment
    if (s === undefined) throw new Error('The file storage is not loaded')
    const data = Buffer.from(entries.map(encodeLine).join(''))
    const before = await segmentChange(s, s.size, owner)
    if (before !== undefined) throw lostFailure(before)
    try {
      await s.handle.appendFile(data)
      await s.handle.datasync()
    } catch (e) {
      if (isWriteRefused(e)) throw refusedFailure(dir, e)
      if (!isFull(e)) throw e
      // undo the part of the batch the disk let through, so that the log ends with a whole record
      await s.handle.truncate(s.size)
      await s.handle.datasync()
      throw fullFailure(dir, e)
    }
    const after = await segmentChange(s, s.size + data.length, owner)
    if (after !== undefined) throw lostFailure(after)
    s.size += data.length
  }

  const writeSnapshot = async (snap: StoredSnapshot): Promise<void> => {
    // a snapshot removes the older files: only the owner may
    const lost = owner?.()
    if (lost !== undefined) throw lostFailure(`${lost}: another process may be writing this store`)
    const tmp = join(dir, `${snapshotName(snap.seq)}.tmp`)
    try {
      await writeSnapshotFile(dir, snap, tmp)
      // the snapshot covers every record so far: a new segment, and the old files go
      await openSegment(snap.seq + 1)
    } catch (e) {
      await rm(tmp, { force: true }).catch(() => undefined)
      throw isFull(e) ? fullFailure(dir, e) : isWriteRefused(e) ? refusedFailure(dir, e) : e
    }
    await removeCovered(dir, snap.seq)
  }

  const close = async (): Promise<void> => {
    await segment?.handle.close()
    segment = undefined
    unlock?.()
    unlock = undefined
    owner = undefined
  }

  return { load, append, writeSnapshot, close }
}
