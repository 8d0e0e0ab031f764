/**
 * The files of a file-backed store: log segments (`log-<first record>.jsonl`, one record a line,
 * each line its JSON, a tab and a checksum) and snapshots (`snapshot-<record>.json`). Reading a
 * segment tells each line apart: a record, a torn line (the last line of the last segment, with no
 * line end: an append cut short, never acknowledged), or a corrupt one (a complete line that is not
 * a record with its checksum: damage, never cut silently).
 *
 * @module
 */
import { createHash } from 'node:crypto'
import { type FileHandle, open } from 'node:fs/promises'
import type { LogEntry, StoredSnapshot } from '../store/durable.ts'

/**
 * A log segment's file name; group 1 is its first record.
 *
 * @example
 * import { SEGMENT } from './_log-segments.ts'
 * SEGMENT.exec('log-000000000091.jsonl')?.[1] // '000000000091'
 */
export const SEGMENT = /^log-(\d{12})\.jsonl$/

/**
 * A snapshot's file name; group 1 is the record it was taken after.
 *
 * @example
 * import { SNAPSHOT } from './_log-segments.ts'
 * SNAPSHOT.test('snapshot-000000000090.json') // true
 */
export const SNAPSHOT = /^snapshot-(\d{12})\.json$/

const pad = (n: number): string => String(n).padStart(12, '0')

/**
 * The file name of the segment whose first record is `first`.
 *
 * @example
 * import { segmentName } from './_log-segments.ts'
 * segmentName(91) // 'log-000000000091.jsonl'
 */
export const segmentName = (first: number): string => `log-${pad(first)}.jsonl`

/**
 * The file name of the snapshot taken after record `seq`.
 *
 * @example
 * import { snapshotName } from './_log-segments.ts'
 * snapshotName(90) // 'snapshot-000000000090.json'
 */
export const snapshotName = (seq: number): string => `snapshot-${pad(seq)}.json`

/**
 * A snapshot file's text: its JSON, a line end, `sha256:` and the JSON's checksum.
 *
 * @example
 * import { encodeSnapshot } from './_log-segments.ts'
 * encodeSnapshot({ seq: 3, simulator: {} }).startsWith('{"seq":3') // true
 */
export const encodeSnapshot = (snap: StoredSnapshot): string => {
  const body = JSON.stringify(snap)
  return `${body}\nsha256:${createHash('sha256').update(body).digest('hex')}\n`
}

/**
 * A snapshot file's snapshot, or `undefined` when its checksum does not match.
 *
 * @example
 * import { decodeSnapshot, encodeSnapshot } from './_log-segments.ts'
 * decodeSnapshot(encodeSnapshot({ seq: 3, simulator: {} }))?.seq // 3
 */
export const decodeSnapshot = (text: string): StoredSnapshot | undefined => {
  const at = text.lastIndexOf('\nsha256:')
  const body = at < 0 ? '' : text.slice(0, at)
  if (at < 0 || createHash('sha256').update(body).digest('hex') !== text.slice(at + 8).trim()) return undefined
  return JSON.parse(body) as StoredSnapshot
}

/** The checksum of a record's JSON: the first 16 hex digits of its SHA-256. */
const checksum = (json: string): string => createHash('sha256').update(json).digest('hex').slice(0, 16)

/**
 * One log line: the record's JSON (which never holds a raw tab), a tab, its checksum.
 *
 * @example
 * import { encodeLine } from './_log-segments.ts'
 * encodeLine({ seq: 2, command: { op: 'advance', until: '2024-03-15T11:00:00Z' } }).endsWith('\n') // true
 */
export const encodeLine = (entry: LogEntry): string => {
  const json = JSON.stringify({ seq: entry.seq, command: entry.command })
  return `${json}\t${checksum(json)}\n`
}

/** A record read from a line. */
export type Parsed = { readonly seq: number; readonly command: unknown }

/**
 * A line's record, or what is wrong with it.
 *
 * @example
 * import { parseLine } from './_log-segments.ts'
 * parseLine('{"seq":1}\t0000000000000000') // 'checksum mismatch'
 */
export const parseLine = (line: string): Parsed | string => {
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

/** A line of a segment that is not a record: where it is and what is wrong. */
export type BadLine = {
  readonly line: number
  readonly byte: number
  readonly text: string
  readonly problem: string
  /** A torn line (the last, with no line end); otherwise the line is complete, and corrupt. */
  readonly torn: boolean
}

/** A segment read line by line: its records up to the first bad line, and that line. */
export type ScannedSegment = { readonly records: ReadonlyArray<Parsed & { readonly line: number; readonly byte: number }>; readonly bad: BadLine | undefined }

/**
 * Whether the bytes from `byte` on are a write lost with the power: a run of zero bytes (at least
 * two: one changed byte cannot make them, and a record never holds one, JSON escaping it) and
 * nothing after it but zero bytes and line ends, as a file system shows blocks that a crash left
 * allocated but unwritten.
 *
 * @example
 * import { zeroTail } from './_log-segments.ts'
 * zeroTail(new Uint8Array([123, 0, 0, 10, 0]), 0) // true
 */
export const zeroTail = (bytes: Uint8Array, byte: number): boolean => {
  const z = bytes.indexOf(0, byte)
  if (z < 0 || bytes[z + 1] !== 0 || bytes.subarray(byte, z).includes(10)) return false
  for (let i = z; i < bytes.length; i++) if (bytes[i] !== 0 && bytes[i] !== 10) return false
  return true
}

/**
 * Reads a segment's bytes: records until the first line that is not one. Only the last line, with
 * no line end, can be torn, and a tail of zero bytes (a write lost with the power, see `zeroTail`);
 * a line that ends is complete, and bad means corrupt.
 *
 * @example
 * import { encodeLine, scanSegment } from './_log-segments.ts'
 * const line = encodeLine({ seq: 1, command: { op: 'advance', until: '2024-03-15T11:00:00Z' } })
 * scanSegment(new TextEncoder().encode(line + '{"seq":2')).bad?.torn // true
 */
export const scanSegment = (bytes: Uint8Array): ScannedSegment => {
  const records: Array<Parsed & { line: number; byte: number }> = []
  let byte = 0
  let line = 1
  const decoder = new TextDecoder()
  while (byte < bytes.length) {
    const end = bytes.indexOf(10, byte)
    const torn = end < 0
    const text = decoder.decode(bytes.subarray(byte, torn ? bytes.length : end))
    const r = parseLine(text)
    if (typeof r === 'string' && zeroTail(bytes, byte))
      return { records, bad: { line, byte, text, problem: 'zero bytes to the end of the file (a write lost with the power)', torn: true } }
    if (torn) {
      // a whole record whose line end became another byte is damage, not an append cut short
      if (text.length > 1 && typeof parseLine(text.slice(0, -1)) !== 'string')
        return { records, bad: { line, byte, text, problem: 'line end damaged', torn: false } }
      return { records, bad: { line, byte, text, problem: typeof r === 'string' ? r : 'no line end', torn } }
    }
    if (typeof r === 'string') return { records, bad: { line, byte, text, problem: r, torn } }
    records.push({ ...r, line, byte })
    byte = end + 1
    line += 1
  }
  return { records, bad: undefined }
}

/**
 * What a record held, in a few words, for a person told it was lost: its number, step and message.
 *
 * @example
 * import { describeRecordText } from './_log-segments.ts'
 * describeRecordText('{"seq":4,"command":{"op":"submit","data":{"role":"user","content":"Hi"}}}\tx') // 'record 4, submit user message: "Hi"'
 */
export const describeRecordText = (text: string): string => {
  try {
    const r = JSON.parse(text.slice(0, text.lastIndexOf('\t') < 0 ? text.length : text.lastIndexOf('\t'))) as {
      seq?: unknown
      command?: { op?: unknown; data?: Record<string, unknown> }
    }
    const data = r.command?.data
    const content = typeof data?.['content'] === 'string'
      ? `: ${JSON.stringify(data['content'].length > 60 ? `${data['content'].slice(0, 60)}…` : data['content'])}`
      : ''
    const who = typeof data?.['role'] === 'string' ? ` ${data['role']}` : ''
    const id = typeof data?.['message_id'] === 'string' ? ` ${JSON.stringify(data['message_id'])}` : ''
    return `record ${String(r.seq ?? '?')}, ${String(r.command?.op ?? 'unknown step')}${who} message${id}${content}`
  } catch {
    return `${text.length} characters that are not JSON`
  }
}

/**
 * Flushes a directory's entries (a new or renamed file) to disk; a no-op where directories cannot be opened.
 *
 * @example
 * import { syncDir } from './_log-segments.ts'
 * await syncDir('.')
 */
export const syncDir = async (dir: string): Promise<void> => {
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
