/**
 * The file backend of the durable chat store (Node, and Deno through its `node:` modules): a
 * directory holding an append-only log in segments (`log-<first record>.jsonl`, one record a line,
 * each line its JSON and a checksum) and the latest snapshot (`snapshot-<record>.json`, written to
 * a temporary file with its checksum, flushed and renamed). Appends are flushed to disk (`fdatasync`) before they
 * resolve. On load, a torn last line (a crash mid-append: never acknowledged) is cut off; a bad
 * line anywhere else is an error naming the file, line and record. Each snapshot starts a new
 * segment and removes the older ones, so neither the log nor recovery grows without bound.
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { mkdir, open, readdir, readFile, rename, rm, truncate, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import type { LogEntry, StoredLog, StoredSnapshot, StoreStorage } from '../store/durable.ts'

const SEGMENT = /^log-(\d{12})\.jsonl$/
const SNAPSHOT = /^snapshot-(\d{12})\.json$/
const pad = (n: number): string => String(n).padStart(12, '0')
const segmentName = (first: number): string => `log-${pad(first)}.jsonl`
const snapshotName = (seq: number): string => `snapshot-${pad(seq)}.json`

/** The checksum of a record's JSON: the first 16 hex digits of its SHA-256. */
const checksum = (json: string): string => createHash('sha256').update(json).digest('hex').slice(0, 16)

/** One log line: the record's JSON (which never holds a raw tab), a tab, its checksum. */
const encodeLine = (entry: LogEntry): string => {
  const json = JSON.stringify({ seq: entry.seq, command: entry.command })
  return `${json}\t${checksum(json)}\n`
}

type Parsed = { readonly seq: number; readonly command: unknown }

const parseLine = (line: string): Parsed | string => {
  const tab = line.lastIndexOf('\t')
  if (tab < 0) return 'no checksum'
  const json = line.slice(0, tab)
  if (checksum(json) !== line.slice(tab + 1)) return 'checksum mismatch'
  try {
    const r = JSON.parse(json) as { seq?: unknown; command?: unknown }
    if (typeof r.seq !== 'number' || !Number.isInteger(r.seq)) return 'no record number'
    return { seq: r.seq, command: r.command }
  } catch {
    return 'not JSON'
  }
}

/** Flushes a directory's entries (a new or renamed file) to disk; a no-op where directories cannot be opened. */
const syncDir = async (dir: string): Promise<void> => {
  let h: FileHandle | undefined
  try {
    h = await open(dir, 'r')
    await h.sync()
  } catch {
    // some platforms cannot fsync a directory
  } finally {
    await h?.close()
  }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as { code?: string }).code === 'EPERM'
  }
}

/** Directories this process holds. */
const held = new Set<string>()

/** Takes the directory's lock file, or says which live process holds it. A lock left by a dead process is taken over. */
const lock = (dir: string): (() => void) => {
  const file = join(dir, 'LOCK')
  if (held.has(file)) throw new Error(`Cannot open the store in ${dir}: this process holds it already`)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx')
      writeSync(fd, String(process.pid))
      closeSync(fd)
      held.add(file)
      return () => {
        held.delete(file)
        try {
          if (readFileSync(file, 'utf8') === String(process.pid)) rmSync(file, { force: true })
        } catch {
          // already gone
        }
      }
    } catch (e) {
      if ((e as { code?: string }).code !== 'EEXIST') throw e
      const holder = Number(readFileSync(file, 'utf8'))
      if (Number.isInteger(holder) && holder > 0 && (holder !== process.pid || held.has(file)) && isAlive(holder)) {
        throw new Error(`Cannot open the store in ${dir}: process ${holder} holds it (${file})`)
      }
      rmSync(file, { force: true })
      try {
        const fd = openSync(file, 'w')
        writeSync(fd, String(process.pid))
        closeSync(fd)
        held.add(file)
        return () => {
          held.delete(file)
          rmSync(file, { force: true })
        }
      } catch {
        // try again from the top
      }
    }
  }
  throw new Error(`Cannot lock the store in ${dir}`)
}

/**
 * A store storage in a directory (created if missing). One process at a time: a `LOCK` file names
 * the holder, and a lock left by a process that died is taken over.
 *
 * @example
 * import { openDurableStore } from 'chatfold'
 * import { fileStorage } from 'chatfold/node'
 * const store = await openDurableStore(fileStorage('./chat-data'))()
 *
 * @since 0.2.0
 * @category constructors
 */
export const fileStorage = (dir: string): StoreStorage => {
  let segment: FileHandle | undefined
  let unlock: (() => void) | undefined

  const openSegment = async (first: number): Promise<void> => {
    await segment?.close()
    segment = await open(join(dir, segmentName(first)), 'a')
    await syncDir(dir)
  }

  const load = async (): Promise<StoredLog> => {
    await mkdir(dir, { recursive: true })
    unlock ??= lock(dir)
    try {
      return await recover()
    } catch (e) {
      await close()
      throw e
    }
  }

  const recover = async (): Promise<StoredLog> => {
    const names = await readdir(dir)
    for (const n of names) if (n.endsWith('.tmp')) await rm(join(dir, n), { force: true })
    const snapshots = names.flatMap((n) => (SNAPSHOT.test(n) ? [n] : [])).sort()
    const latest = snapshots[snapshots.length - 1]
    let snapshot: StoredSnapshot | undefined
    if (latest !== undefined) {
      const file = join(dir, latest)
      const text = await readFile(file, 'utf8')
      const at = text.lastIndexOf('\nsha256:')
      const body = at < 0 ? '' : text.slice(0, at)
      if (at < 0 || createHash('sha256').update(body).digest('hex') !== text.slice(at + 8).trim()) {
        throw new Error(`Cannot recover the store: the snapshot ${file} is corrupt (checksum mismatch)`)
      }
      snapshot = JSON.parse(body) as StoredSnapshot
    }
    const segments = names.flatMap((n) => (SEGMENT.test(n) ? [n] : [])).sort()
    const tail: Parsed[] = []
    const repaired: string[] = []
    for (const [si, name] of segments.entries()) {
      const file = join(dir, name)
      const text = await readFile(file, 'utf8')
      const lines = text.split('\n')
      let offset = 0
      for (const [li, line] of lines.entries()) {
        const last = li === lines.length - 1
        if (last && line === '') break
        const r = parseLine(line)
        if (typeof r === 'string') {
          const lastRecord = si === segments.length - 1 && (last || (li === lines.length - 2 && lines[li + 1] === ''))
          const expected = (tail[tail.length - 1]?.seq ?? snapshot?.seq ?? 0) + 1
          if (!lastRecord) throw new Error(`Cannot recover the store: record ${expected} (${file}, line ${li + 1}, byte ${offset}) is corrupt: ${r}`)
          await truncate(file, Buffer.byteLength(text.slice(0, offset)))
          repaired.push(`cut a torn last record (${file}, line ${li + 1}, ${Buffer.byteLength(line)} bytes: ${r}); it was never acknowledged`)
          break
        }
        tail.push(r)
        offset += line.length + 1
      }
    }
    const snapSeq = snapshot?.seq ?? 0
    const lastSegment = segments[segments.length - 1]
    const lastFirst = lastSegment === undefined ? undefined : Number(SEGMENT.exec(lastSegment)?.[1])
    // the last segment goes on, unless a snapshot covers it (a crash between snapshot and rotation)
    await openSegment(lastFirst !== undefined && lastFirst > snapSeq ? lastFirst : snapSeq + 1)
    return { snapshot, tail: tail.filter((r) => r.seq > snapSeq), repaired }
  }

  const append = async (entries: ReadonlyArray<LogEntry>): Promise<void> => {
    if (segment === undefined) throw new Error('The file storage is not loaded')
    await segment.appendFile(entries.map(encodeLine).join(''))
    await segment.datasync()
  }

  const writeSnapshot = async (s: StoredSnapshot): Promise<void> => {
    const name = snapshotName(s.seq)
    const tmp = join(dir, `${name}.tmp`)
    const h = await open(tmp, 'w')
    try {
      const body = JSON.stringify(s)
      await h.writeFile(`${body}\nsha256:${createHash('sha256').update(body).digest('hex')}\n`)
      await h.sync()
    } finally {
      await h.close()
    }
    await rename(tmp, join(dir, name))
    await syncDir(dir)
    // the snapshot covers every record so far: a new segment, and the old files go
    await openSegment(s.seq + 1)
    for (const n of await readdir(dir)) {
      const seg = SEGMENT.exec(n)
      const snap = SNAPSHOT.exec(n)
      if ((seg !== null && Number(seg[1]) <= s.seq) || (snap !== null && Number(snap[1]) < s.seq)) {
        await rm(join(dir, n), { force: true })
      }
    }
    await syncDir(dir)
  }

  const close = async (): Promise<void> => {
    await segment?.close()
    segment = undefined
    unlock?.()
    unlock = undefined
  }

  return { load, append, writeSnapshot, close }
}
