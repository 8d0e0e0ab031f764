/**
 * The Durable Streams protocol as a Web-standard fetch handler over a durable log
 * (`StreamsStorage`): create (`PUT`, forks included), append (`POST`, with `Stream-Seq` and
 * idempotent producers), close, delete, metadata (`HEAD`), reads from an offset (catch-up,
 * long-poll, SSE) and CORS preflights, under a base path, behind the same Host/Origin and token gate as the chat
 * handler. A write is answered only once the log keeps it; readers see only what it keeps.
 *
 * @module
 */
import { checkHostAndOrigin, checkToken } from '../store/http-guard.ts'
import type { StreamProducer, StreamRecord, StreamsStorage } from './log.ts'
import {
  applyRecord,
  baseType,
  chunksFrom,
  emptyStreams,
  expired,
  isJsonType,
  markDurable,
  pushAppend,
  remove as removeStream,
  type Stream,
  toBase64,
} from './_state.ts'
import { answer, isTrue, parseOffset, parseWhole, readBytes, refuse, showOffset } from './_http.ts'
import { catchUp, longPoll, nowAnswer, type ReadContext, sse, startOf } from './_read.ts'
import { preflight, withCors } from './_cors.ts'
import { sharedWrites } from './_shared.ts'

/**
 * Options of the streams handler: the base path it serves under (`/streams` by default), who may
 * call (`token` for everything, `readToken` for reads; `allowedHosts` for `Host`, any by default),
 * the largest append (16 MiB), how long a long-poll waits (20 s), when an SSE tail is closed for
 * the client to reconnect (60 s), the most bytes one read returns (1 MiB), and the clock.
 *
 * @since 0.1.0
 * @category streams
 */
export type StreamsHandlerOptions = {
  readonly basePath?: string
  readonly token?: string | undefined
  readonly readToken?: string | undefined
  readonly allowedHosts?: ReadonlyArray<string> | 'any'
  readonly maxBodyBytes?: number
  readonly longPollTimeoutMs?: number
  readonly sseCloseMs?: number
  readonly maxReadBytes?: number
  readonly now?: () => number
}

/**
 * Who may call a streams handler: its tokens and the hosts `Host` may name.
 *
 * @since 0.1.0
 * @category streams
 */
export type StreamsGate = Pick<StreamsHandlerOptions, 'token' | 'readToken' | 'allowedHosts'>

/**
 * A streams handler: `handle` answers a request (never rejects), `failure` tells why writes are
 * refused (the log could not be written), `close` releases the log.
 *
 * @since 0.1.0
 * @category streams
 */
export type StreamsHandler = {
  readonly handle: (request: Request) => Promise<Response>
  /** The same handler behind another gate (who may call), as a server decides once it listens. */
  readonly gated: (gate: StreamsGate) => (request: Request) => Promise<Response>
  readonly failure: () => string | undefined
  /**
   * Appends JSON messages to a read-only stream at `path` the caller keeps (made on first use):
   * for data already durable elsewhere, such as a conversation of the chat store. Readers see it
   * at once; HTTP writes to the path are refused (405).
   */
  readonly publish: (path: string, messages: ReadonlyArray<unknown>) => void
  readonly close: () => Promise<void>
}

const DECODER = new TextDecoder('utf-8', { fatal: true })

/** The messages of a JSON body (an array is flattened one level), each as its JSON text; or why not. */
const jsonMessages = (bytes: Uint8Array, allowEmpty: boolean): ReadonlyArray<Uint8Array> | string => {
  let value: unknown
  try {
    value = JSON.parse(DECODER.decode(bytes))
  } catch {
    return 'The body is not valid JSON'
  }
  const values = Array.isArray(value) ? value : [value]
  if (values.length === 0 && !allowEmpty) return 'An empty JSON array appends nothing'
  const enc = new TextEncoder()
  return values.map((v) => enc.encode(JSON.stringify(v)))
}

/** The producer headers of a request: none, all three valid, or why not. */
const producerOf = (request: Request): StreamProducer | undefined | string => {
  const id = request.headers.get('producer-id')
  const epoch = request.headers.get('producer-epoch')
  const seq = request.headers.get('producer-seq')
  if (id === null && epoch === null && seq === null) return undefined
  if (id === null || epoch === null || seq === null) return 'Producer-Id, Producer-Epoch and Producer-Seq go together'
  const e = parseWhole(epoch.trim())
  const s = parseWhole(seq.trim())
  if (id.trim() === '' || e === undefined || s === undefined) return 'The producer headers are not valid'
  return { id, epoch: e, seq: s }
}

/**
 * Opens a Durable Streams handler over `storage`: replays the log, then serves.
 *
 * @example
 * import { openStreamsHandler } from 'chatfold/streams'
 * const kept: unknown[] = []
 * const streams = await openStreamsHandler({ load: async () => [], append: async (records) => void kept.push(...records), close: async () => {} })
 * const created = await streams.handle(new Request('http://localhost/streams/chat', { method: 'PUT', headers: { 'content-type': 'application/json' } }))
 * created.status // 201
 *
 * @since 0.1.0
 * @category streams
 */
export const openStreamsHandler = async (storage: StreamsStorage, options: StreamsHandlerOptions = {}): Promise<StreamsHandler> => {
  const streams = emptyStreams()
  for (const r of await storage.load()) applyRecord(streams, r, true)
  const now = options.now ?? (() => Date.now())
  const base = (options.basePath ?? '/streams').replace(/\/+$/, '')
  const limit = options.maxBodyBytes ?? 16 * 1_048_576
  const ctx: ReadContext = {
    streams,
    now,
    longPollTimeoutMs: options.longPollTimeoutMs ?? 20_000,
    sseCloseMs: options.sseCloseMs ?? 60_000,
    maxReadBytes: options.maxReadBytes ?? 1_048_576,
  }
  let failure: string | undefined

  // group commit: the records accepted while a batch is written go in the next batch
  let queue: Array<{ readonly record: StreamRecord; readonly done: (e?: unknown) => void }> = []
  let writing = false
  const drain = async () => {
    writing = true
    while (queue.length > 0) {
      const batch = queue
      queue = []
      try {
        await storage.append(batch.map((b) => b.record))
        for (const b of batch) b.done()
      } catch (e) {
        failure ??= `The streams log cannot be written: ${e instanceof Error ? e.message : String(e)}`
        for (const b of batch) b.done(e)
      }
    }
    writing = false
  }
  // a log other processes write too: reads catch up first, a write runs in one transaction of the log
  const shared = storage.shared === undefined ? undefined : sharedWrites(streams, storage, storage.shared, limit)

  /** Applies a record, then waits until the log keeps it: the answer, or a 503. */
  const commit = async (record: StreamRecord, ok: (s: Stream | undefined) => Response): Promise<Response> => {
    const inTransaction = shared?.commit(record, ok)
    if (inTransaction !== undefined) return inTransaction
    applyRecord(streams, record, false)
    const s = streams.byPath.get(record.path)
    const end = s?.end ?? 0
    const kept = await new Promise<unknown>((resolve) => {
      queue.push({ record, done: resolve })
      if (!writing) void drain()
    })
    if (kept !== undefined) return refuse(503, failure ?? 'The streams log cannot be written')
    markDurable(streams, record, end, s)
    return ok(s)
  }

  /**
   * The stream at a path: `undefined` when there is none, `'gone'` when it was deleted or expired
   * while forks of it live; a stream that expired is forgotten (or marked gone). A read or write
   * moves its TTL window on (`touch`).
   */
  const at = (path: string, touch = true): Stream | 'gone' | undefined => {
    const s = streams.byPath.get(path)
    if (s === undefined) return undefined
    if (s.gone) return 'gone'
    const t = now()
    if (!expired(s, t)) {
      if (touch) s.touched = t
      return s
    }
    removeStream(streams, s)
    return s.gone ? 'gone' : undefined
  }
  /** The stream at a path, or the answer that there is none (404) or it is gone (410). */
  const live = (path: string, touch = true): Stream | Response => {
    const s = at(path, touch)
    if (s === undefined) return refuse(404, 'The stream does not exist')
    if (s === 'gone') return refuse(410, 'The stream was deleted')
    return s
  }

  const create = async (request: Request, path: string): Promise<Response> => {
    const ct = request.headers.get('content-type')?.trim() || 'application/octet-stream'
    const ttlText = request.headers.get('stream-ttl')
    const expText = request.headers.get('stream-expires-at')
    if (ttlText !== null && expText !== null) return refuse(400, 'Stream-TTL and Stream-Expires-At do not go together')
    const ttl0 = ttlText === null ? undefined : parseWhole(ttlText.trim())
    if (ttlText !== null && ttl0 === undefined) return refuse(400, 'Stream-TTL must be whole seconds')
    const expiresAt0 = expText === null ? undefined : Date.parse(expText)
    if (expiresAt0 !== undefined && Number.isNaN(expiresAt0)) return refuse(400, 'Stream-Expires-At must be an RFC 3339 time')
    const closed = isTrue(request.headers.get('stream-closed'))
    const forkFrom = request.headers.get('stream-forked-from')
    const bytes = await readBytes(request, limit)
    if (bytes === 'too_large') return refuse(413, 'The body is too large')
    const json = isJsonType(ct)
    const messages = json ? (bytes.length === 0 ? [] : jsonMessages(bytes, true)) : bytes.length === 0 ? [] : [bytes]
    if (typeof messages === 'string') return refuse(400, messages)
    const subText = request.headers.get('stream-fork-sub-offset')
    const sub = subText === null ? 0 : parseWhole(subText.trim())
    if (sub === undefined) return refuse(400, 'Stream-Fork-Sub-Offset must be a whole number')
    if (subText !== null && forkFrom === null) return refuse(400, 'Stream-Fork-Sub-Offset needs Stream-Forked-From')
    let fork: { readonly from: string; readonly offset: number } | undefined
    let source: Stream | undefined
    let ttl = ttl0
    let expiresAt = expiresAt0
    if (forkFrom !== null) {
      const found = at(forkFrom)
      if (found === undefined) return refuse(404, 'The stream to fork does not exist')
      if (found === 'gone') return refuse(409, 'The stream to fork was deleted')
      source = found
      const offsetText = request.headers.get('stream-fork-offset')
      if (sub > 0 && offsetText === null) return refuse(400, 'Stream-Fork-Sub-Offset needs Stream-Fork-Offset')
      const o = parseOffset(offsetText)
      let offset = offsetText === null ? source.durableEnd : o.kind === 'at' ? o.position : o.kind === 'now' ? source.durableEnd : o.kind === 'start' ? 0 : -1
      if (offset < 0 || offset > source.durableEnd) return refuse(400, 'The fork offset is not in the stream')
      if (sub > 0) {
        // a sub-offset counts into the append that starts at the offset: bytes, or JSON messages
        const pieces = chunksFrom(source, offset, source.durableEnd)
        const first = pieces[0]
        if (first === undefined || first.start !== offset) return refuse(400, 'No append starts at the fork offset')
        const ofAppend = pieces.filter((c) => c.append === first.append)
        if (source.json) {
          if (sub > ofAppend.length) return refuse(400, 'The fork sub-offset is past its append')
          offset = (ofAppend[sub - 1] as { end: number }).end
        } else {
          const size = ofAppend.reduce((n, c) => n + c.bytes.length, 0)
          if (sub > size) return refuse(400, 'The fork sub-offset is past its append')
          offset += sub
        }
      }
      if (request.headers.get('content-type') !== null && baseType(ct) !== baseType(source.contentType))
        return refuse(409, "A fork keeps its stream's content type")
      fork = { from: forkFrom, offset }
      if (ttlText === null && expText === null) {
        ttl = source.ttl
        expiresAt = source.expiresAt
      }
    }
    const existing = at(path)
    if (existing === 'gone') return refuse(409, "A deleted stream's path is not taken again while forks of it live")
    if (existing !== undefined) {
      const same = baseType(existing.contentType) === baseType(source?.contentType ?? ct) && existing.ttl === ttl && existing.expiresAt === expiresAt &&
        existing.closed === closed && existing.fork?.from === fork?.from && existing.fork?.offset === fork?.offset
      if (!same) return refuse(409, 'The stream exists with another configuration')
      return answer(200, null, { 'content-type': existing.contentType, 'stream-next-offset': showOffset(existing.durableEnd) })
    }
    const contentType = source?.contentType ?? ct
    const record: StreamRecord = {
      t: 'create',
      path,
      contentType,
      at: now(),
      ...(ttl === undefined ? {} : { ttl }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
      ...(closed ? { closed } : {}),
      data: messages.map(toBase64),
      ...(fork === undefined ? {} : { fork }),
    }
    return commit(record, (s) =>
      answer(201, null, {
        location: request.url,
        'content-type': contentType,
        'stream-next-offset': showOffset(s?.durableEnd ?? 0),
        ...(closed ? { 'stream-closed': 'true' } : {}),
      }))
  }

  const append = async (request: Request, path: string): Promise<Response> => {
    const s0 = live(path)
    if (s0 instanceof Response) return s0
    const producer = producerOf(request)
    if (typeof producer === 'string') return refuse(400, producer)
    const closing = isTrue(request.headers.get('stream-closed'))
    const bytes = await readBytes(request, limit)
    if (bytes === 'too_large') return refuse(413, 'The body is too large')
    const s = live(path)
    if (s instanceof Response) return s
    if (s !== s0) return refuse(404, 'The stream does not exist')
    const ct = request.headers.get('content-type')
    if (bytes.length === 0 && !closing) return refuse(400, 'An empty body appends nothing')
    if (bytes.length > 0) {
      if (ct === null) return refuse(400, 'Content-Type is required')
      if (baseType(ct) !== baseType(s.contentType)) return refuse(409, "The content type is not the stream's")
    }
    const tail = { 'stream-next-offset': showOffset(s.durableEnd) }
    let producerHeaders: Record<string, string> = {}
    let fresh = true
    if (producer !== undefined) {
      const state = s.producers.get(producer.id)
      if (state !== undefined && producer.epoch < state.epoch)
        return refuse(403, 'A newer producer epoch holds this producer', { 'producer-epoch': String(state.epoch) })
      if (state === undefined || producer.epoch > state.epoch) {
        if (producer.seq !== 0) return refuse(400, 'A new producer epoch starts at sequence 0')
      } else if (producer.seq <= state.seq) {
        fresh = false
      } else if (producer.seq > state.seq + 1) {
        return refuse(409, 'A producer sequence number was skipped', {
          'producer-expected-seq': String(state.seq + 1),
          'producer-received-seq': String(producer.seq),
        })
      }
      producerHeaders = { 'producer-epoch': String(producer.epoch), 'producer-seq': String(fresh ? producer.seq : (state as { seq: number }).seq) }
      if (!fresh) return answer(204, null, { ...tail, ...producerHeaders, ...(s.closed ? { 'stream-closed': 'true' } : {}) })
    }
    if (s.closed) {
      if (closing && bytes.length === 0) return answer(204, null, { ...tail, 'stream-closed': 'true' })
      return refuse(409, 'The stream is closed', { ...tail, 'stream-closed': 'true' })
    }
    const streamSeq = request.headers.get('stream-seq')
    if (streamSeq !== null && s.streamSeq !== undefined && streamSeq <= s.streamSeq) return refuse(409, 'Stream-Seq must increase')
    let data: ReadonlyArray<Uint8Array> = []
    if (bytes.length > 0) {
      const messages = s.json ? jsonMessages(bytes, false) : [bytes]
      if (typeof messages === 'string') return refuse(400, messages)
      data = messages
    }
    const record: StreamRecord = data.length === 0 ? { t: 'close', path, ...(producer === undefined ? {} : { producer }) } : {
      t: 'append',
      path,
      data: data.map(toBase64),
      ...(streamSeq === null ? {} : { streamSeq }),
      ...(producer === undefined ? {} : { producer }),
      ...(closing ? { close: true } : {}),
    }
    return commit(record, (kept) =>
      answer(producer === undefined || data.length === 0 ? 204 : 200, null, {
        'stream-next-offset': showOffset(kept?.durableEnd ?? 0),
        ...producerHeaders,
        ...(closing ? { 'stream-closed': 'true' } : {}),
      }))
  }

  const read = (request: Request, path: string): Promise<Response> | Response => {
    const s = live(path, request.method !== 'HEAD')
    if (s instanceof Response) return s
    const url = new URL(request.url)
    const offsetText = url.searchParams.get('offset')
    const offset = parseOffset(offsetText)
    const liveMode = url.searchParams.get('live')
    if (request.method === 'HEAD') {
      return answer(200, null, {
        'content-type': s.contentType,
        'stream-next-offset': showOffset(s.durableEnd),
        'cache-control': 'no-store',
        ...(s.ttl === undefined ? {} : { 'stream-ttl': String(s.ttl) }),
        ...(s.expiresAt === undefined ? {} : { 'stream-expires-at': new Date(s.expiresAt).toISOString() }),
        ...(s.closedDurable ? { 'stream-closed': 'true' } : {}),
      })
    }
    if (liveMode !== null && liveMode !== 'long-poll' && liveMode !== 'sse') return refuse(400, 'live must be long-poll or sse')
    if (liveMode !== null && offsetText === null) return refuse(400, 'A live read needs an offset')
    const from = startOf(s, offset)
    if (typeof from !== 'number') return from
    if (liveMode === 'sse') return sse(s, from, ctx, request)
    if (liveMode === 'long-poll') return longPoll(s, from, ctx, request)
    return offset.kind === 'now' ? nowAnswer(s) : catchUp(s, from, ctx, request)
  }

  const remove = (path: string): Promise<Response> | Response => {
    const s = live(path, false)
    if (s instanceof Response) return s
    return commit({ t: 'delete', path }, () => answer(204, null))
  }

  const dispatch = (request: Request, path: string): Promise<Response> | Response => {
    switch (request.method) {
      case 'PUT':
        return create(request, path)
      case 'POST':
        return append(request, path)
      case 'GET':
      case 'HEAD':
        return read(request, path)
      case 'DELETE':
        return remove(path)
      default:
        return refuse(405, 'Method not allowed', { allow: 'GET, HEAD, PUT, POST, DELETE, OPTIONS' })
    }
  }

  const route = async (request: Request, gate: StreamsGate): Promise<Response> => {
    const misdirected = checkHostAndOrigin(request, gate.allowedHosts ?? 'any')
    if (misdirected !== undefined) return refuse(misdirected.status, misdirected.message, misdirected.headers)
    // a preflight carries no token: it learns only what may be sent
    if (request.method === 'OPTIONS') return preflight(request.headers.get('origin'))
    const reading = request.method === 'GET' || request.method === 'HEAD'
    if (gate.token !== undefined || gate.readToken !== undefined) {
      const t = await checkToken(request, gate.token, gate.readToken)
      if (typeof t !== 'string') return refuse(t.status, t.message, t.headers)
      if (t === 'read' && !reading) return refuse(403, 'The read-only token cannot write')
    }
    const pathname = new URL(request.url).pathname
    if (pathname !== base && !pathname.startsWith(`${base}/`)) return refuse(404, 'Not found')
    const path = pathname.slice(base.length)
    if (path === '' || path === '/') return refuse(404, 'A stream path is required')
    if (!reading && streams.byPath.get(path)?.derived === true)
      return refuse(405, 'This stream is kept by the chat store: read it only', { allow: 'GET, HEAD' })
    if (!reading && failure !== undefined) return refuse(503, failure)
    if (shared !== undefined) {
      if (!reading && ['PUT', 'POST', 'DELETE'].includes(request.method)) return shared.write(request, (r) => dispatch(r, path))
      const unread = reading ? await shared.catchUp() : undefined
      if (unread !== undefined) return unread
    }
    return dispatch(request, path)
  }

  const publish = (path: string, values: ReadonlyArray<unknown>): void => {
    let s = streams.byPath.get(path)
    if (s === undefined || !s.derived) {
      applyRecord(streams, { t: 'create', path, contentType: 'application/json', at: now(), data: [] }, true)
      s = streams.byPath.get(path) as Stream
      s.derived = true
    }
    if (values.length === 0) return
    const enc = new TextEncoder()
    // the bytes go in as they are: a mirror is never written to the streams log, so the record's
    // base64 (a pass over every byte each way, a slow one where the runtime has no native base64) is not needed
    pushAppend(s, values.map((v) => enc.encode(JSON.stringify(v))))
    s.durableEnd = s.end
    markDurable(streams, { t: 'append', path, data: [] }, s.end, s)
  }

  const gated = (gate: StreamsGate) => async (request: Request): Promise<Response> => {
    try {
      const response = await route(request, gate)
      // a page of an origin the rule admits may read the answer; one the rule refuses cannot
      const origin = request.headers.get('origin')
      return origin !== null && checkHostAndOrigin(request, gate.allowedHosts ?? 'any') === undefined ? withCors(origin, response) : response
    } catch {
      return refuse(500, 'Internal error')
    }
  }
  return {
    handle: gated(options),
    gated,
    failure: () => failure,
    publish,
    close: () => {
      shared?.stop()
      return storage.close()
    },
  }
}
