/**
 * The Durable Streams held in memory, rebuilt from the streams log: each stream's content type,
 * expiry, closure, producers and data (in chunks addressed by byte position), what part of it is
 * durable (readers see only that), and the readers waiting for more.
 *
 * @module
 */
import type { StreamProducer, StreamRecord } from './log.ts'

/** A piece of a stream: bytes at `[start, end)` (for JSON streams, one message), and the append it came in. */
export type Chunk = { readonly start: number; readonly end: number; readonly bytes: Uint8Array; readonly append: number }

/** A stream as held in memory. */
export type Stream = {
  readonly id: number
  readonly path: string
  readonly contentType: string
  readonly json: boolean
  readonly createdAt: number
  readonly ttl: number | undefined
  readonly expiresAt: number | undefined
  readonly fork: { readonly from: string; readonly offset: number } | undefined
  /** When the stream was last read or written: a TTL counts from it (a sliding window). */
  touched: number
  /** Appends so far (the chunks of one append share its number). */
  appends: number
  /** Kept by the handler's owner (a conversation of the chat store), not by the log: read-only over HTTP. */
  derived: boolean
  /** Forks of this stream still held: while any is, a deleted or expired stream is only marked gone. */
  forks: number
  /** Deleted or expired while forks of it live: answered 410, its path not to be taken again. */
  gone: boolean
  closed: boolean
  /** Whether the closure is durable (readers are told only then). */
  closedDurable: boolean
  readonly chunks: Chunk[]
  /** The end of the data accepted (the next append's start). */
  end: number
  /** The end of the data kept durably: what readers see. */
  durableEnd: number
  streamSeq: string | undefined
  readonly producers: Map<string, { epoch: number; seq: number }>
  /** Readers waiting for data, closure or deletion. */
  readonly waiters: Set<() => void>
  lastProducer: StreamProducer | undefined
}

/** The streams by path. */
export type Streams = { readonly byPath: Map<string, Stream>; nextId: number }

export const emptyStreams = (): Streams => ({ byPath: new Map(), nextId: 1 })

/** The runtime's own base64 of byte arrays (`Uint8Array.fromBase64`, `toBase64()`), where it has them: many times faster. */
const nativeFrom: unknown = Reflect.get(Uint8Array, 'fromBase64')
const nativeTo: unknown = Reflect.get(Uint8Array.prototype, 'toBase64')

/** Bytes of base64: the runtime's decoder where it has one. */
export const fromBase64 = (s: string): Uint8Array => {
  if (typeof nativeFrom === 'function') return nativeFrom.call(Uint8Array, s)
  const bin = atob(s)
  const out = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i)
  return out
}

const ALPHABET = new TextEncoder().encode('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')
const PAD = 61 // '='

/** Base64 of bytes: the runtime's, or the ASCII codes written into an array and decoded once (a large append is one pass). */
export const toBase64 = (bytes: Uint8Array): string => {
  if (typeof nativeTo === 'function') return nativeTo.call(bytes)
  const a = ALPHABET
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4)
  let o = 0
  let i = 0
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number)
    out[o++] = a[n >>> 18] as number
    out[o++] = a[(n >>> 12) & 63] as number
    out[o++] = a[(n >>> 6) & 63] as number
    out[o++] = a[n & 63] as number
  }
  const left = bytes.length - i
  if (left > 0) {
    const n = ((bytes[i] as number) << 16) | (left === 2 ? (bytes[i + 1] as number) << 8 : 0)
    out[o++] = a[n >>> 18] as number
    out[o++] = a[(n >>> 12) & 63] as number
    out[o++] = left === 2 ? (a[(n >>> 6) & 63] as number) : PAD
    out[o++] = PAD
  }
  return new TextDecoder().decode(out)
}

/** Whether a content type is JSON mode (`application/json`, parameters and case aside). */
export const isJsonType = (contentType: string): boolean => baseType(contentType) === 'application/json'

/** The media type of a content type, lower case, without its parameters. */
export const baseType = (contentType: string): string => (contentType.split(';')[0] ?? '').trim().toLowerCase()

/** Adds the chunks of one append at the end of a stream. */
export const pushAppend = (s: Stream, pieces: ReadonlyArray<Uint8Array>): void => {
  if (pieces.length === 0) return
  const append = s.appends++
  for (const bytes of pieces) {
    s.chunks.push({ start: s.end, end: s.end + bytes.length, bytes, append })
    s.end += bytes.length
  }
}

/** Forgets a stream, and the gone streams it was the last fork of. */
export const forget = (streams: Streams, s: Stream): void => {
  if (streams.byPath.get(s.path) === s) streams.byPath.delete(s.path)
  for (const w of s.waiters) w()
  if (s.fork === undefined) return
  const source = streams.byPath.get(s.fork.from)
  if (source === undefined) return
  source.forks = Math.max(0, source.forks - 1)
  if (source.gone && source.forks === 0) forget(streams, source)
}

/** Deletes a stream: forgotten, or marked gone while forks of it live. */
export const remove = (streams: Streams, s: Stream): void => {
  if (s.forks > 0) {
    s.gone = true
    for (const w of s.waiters) w()
  } else forget(streams, s)
}

/** The chunks of a stream that overlap `[from, to)`, the first cut to start at `from` (not for JSON). */
export const chunksFrom = (s: Stream, from: number, to: number): ReadonlyArray<Chunk> => {
  let lo = 0
  let hi = s.chunks.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((s.chunks[mid] as Chunk).end <= from) lo = mid + 1
    else hi = mid
  }
  const out: Chunk[] = []
  for (let i = lo; i < s.chunks.length; i++) {
    const c = s.chunks[i] as Chunk
    if (c.start >= to) break
    out.push(c.start < from ? { start: from, end: c.end, bytes: c.bytes.subarray(from - c.start), append: c.append } : c)
  }
  return out
}

/** Applies one record to the streams (replay, and the handler as it accepts). */
export const applyRecord = (streams: Streams, r: StreamRecord, durable: boolean): void => {
  if (r.t === 'create') {
    const s: Stream = {
      id: streams.nextId++,
      path: r.path,
      contentType: r.contentType,
      json: isJsonType(r.contentType),
      createdAt: r.at,
      ttl: r.ttl,
      expiresAt: r.expiresAt,
      fork: r.fork,
      // replayed, a stream's window starts again at the load: nothing alive before a restart expires at it
      touched: durable ? Math.max(r.at, Date.now()) : r.at,
      appends: 0,
      derived: r.derived === true,
      forks: 0,
      gone: false,
      closed: r.closed === true,
      closedDurable: durable && r.closed === true,
      chunks: [],
      end: 0,
      durableEnd: 0,
      streamSeq: undefined,
      producers: new Map(),
      waiters: new Set(),
      lastProducer: undefined,
    }
    if (r.fork !== undefined) {
      const source = streams.byPath.get(r.fork.from)
      if (source !== undefined) {
        source.forks++
        let append = -1
        for (const c of chunksFrom(source, 0, r.fork.offset)) {
          const bytes = c.end > r.fork.offset ? c.bytes.subarray(0, r.fork.offset - c.start) : c.bytes
          if (c.append !== append) {
            append = c.append
            pushAppend(s, [bytes])
          } else {
            s.chunks.push({ start: s.end, end: s.end + bytes.length, bytes, append: s.appends - 1 })
            s.end += bytes.length
          }
        }
      }
    }
    pushAppend(s, r.data.map(fromBase64))
    if (durable) s.durableEnd = s.end
    streams.byPath.set(r.path, s)
    return
  }
  const s = streams.byPath.get(r.path)
  if (s === undefined) return
  if (r.t === 'delete') {
    remove(streams, s)
    return
  }
  if (r.t === 'append') {
    pushAppend(s, r.data.map(fromBase64))
    if (r.streamSeq !== undefined) s.streamSeq = r.streamSeq
    if (r.close === true) s.closed = true
  } else s.closed = true
  if (r.producer !== undefined) {
    s.producers.set(r.producer.id, { epoch: r.producer.epoch, seq: r.producer.seq })
    s.lastProducer = r.producer
  }
  if (durable) {
    s.durableEnd = s.end
    s.closedDurable = s.closed
  }
}

/** Marks what a record wrote as durable and wakes the readers waiting on its stream. */
export const markDurable = (streams: Streams, r: StreamRecord, end: number, stream: Stream | undefined): void => {
  const s = stream ?? streams.byPath.get(r.path)
  if (s === undefined) return
  if (end > s.durableEnd) s.durableEnd = end
  if ((r.t === 'close' || (r.t === 'append' && r.close === true) || (r.t === 'create' && r.closed === true)) && s.closed) s.closedDurable = true
  for (const w of [...s.waiters]) w()
}

/** Whether a stream has expired at `now`. */
export const expired = (s: Stream, now: number): boolean =>
  (s.expiresAt !== undefined && now >= s.expiresAt) || (s.ttl !== undefined && now >= s.touched + s.ttl * 1000)
