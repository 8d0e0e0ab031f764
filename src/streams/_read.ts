/**
 * Reading a Durable Stream over HTTP: a catch-up read from an offset, a long-poll that waits for
 * data, and a Server-Sent-Events tail; each sees only what the log keeps durably.
 *
 * @module
 */
import { chunksFrom, expired, type Stream, type Streams, toBase64 } from './_state.ts'
import { answer, baseHeaders, nextCursor, type Offset, refuse, showOffset } from './_http.ts'

/** What a read needs of the handler: the streams, the clock, the limits. */
export type ReadContext = {
  readonly streams: Streams
  readonly now: () => number
  readonly longPollTimeoutMs: number
  readonly sseCloseMs: number
  readonly maxReadBytes: number
}

/** The data of a stream from `from`, up to `maxBytes` (a whole message at least, for JSON): the body and where it ends. */
const slice = (s: Stream, from: number, maxBytes: number): { readonly body: Uint8Array<ArrayBuffer>; readonly next: number } => {
  const to = s.durableEnd
  if (s.json) {
    const parts: Uint8Array[] = []
    let size = 0
    let next = from
    for (const c of chunksFrom(s, from, to)) {
      if (c.start < from) continue // a position inside a message: the next message
      if (parts.length > 0 && size + c.bytes.length > maxBytes) break
      parts.push(c.bytes)
      size += c.bytes.length + 1
      next = c.end
    }
    const enc = new TextEncoder()
    return { body: enc.encode(`[${parts.map((p) => new TextDecoder().decode(p)).join(',')}]`), next: Math.max(next, from) }
  }
  const parts: Uint8Array[] = []
  let size = 0
  let next = from
  for (const c of chunksFrom(s, from, to)) {
    const take = parts.length === 0 ? c.bytes.subarray(0, maxBytes) : c.bytes
    if (parts.length > 0 && size + take.length > maxBytes) break
    parts.push(take)
    size += take.length
    next = c.start + take.length
    if (size >= maxBytes) break
  }
  const body = new Uint8Array(size)
  let at = 0
  for (const p of parts) {
    body.set(p, at)
    at += p.length
  }
  return { body, next }
}

/** Where a read starts, or a refusal: `now` is the durable tail, a position past it is refused. */
export const startOf = (s: Stream, offset: Offset): number | Response => {
  if (offset.kind === 'bad') return refuse(400, 'The offset is not valid')
  if (offset.kind === 'start') return 0
  if (offset.kind === 'now') return s.durableEnd
  if (offset.position > s.durableEnd) return refuse(400, 'The offset is past the end of the stream')
  return offset.position
}

/** Cache-Control of a read: private (the streams may hold a user's data, and a token guards them). */
const CACHE = 'private, max-age=60, stale-while-revalidate=300'

/** A catch-up (or long-poll) answer from `from`. */
const dataAnswer = (s: Stream, from: number, ctx: ReadContext, request: Request, cursor: string | undefined): Response => {
  const { body, next } = slice(s, from, ctx.maxReadBytes)
  const upToDate = next >= s.durableEnd
  const closed = upToDate && s.closedDurable
  const etag = `"${s.id}:${showOffset(from)}:${showOffset(next)}${closed ? ':c' : ''}"`
  const headers: Record<string, string> = {
    'content-type': s.contentType,
    'stream-next-offset': showOffset(next),
    etag,
    'cache-control': CACHE,
    ...(upToDate ? { 'stream-up-to-date': 'true' } : {}),
    ...(closed ? { 'stream-closed': 'true' } : {}),
    ...(cursor === undefined ? {} : { 'stream-cursor': cursor }),
  }
  if (request.headers.get('if-none-match') === etag) return answer(304, null, headers)
  return answer(200, request.method === 'HEAD' ? null : body, headers)
}

/** A read of `offset=now` without a live mode: no data, the tail, not to be cached. */
export const nowAnswer = (s: Stream): Response =>
  answer(200, s.json ? '[]' : new Uint8Array(0), {
    'content-type': s.contentType,
    'stream-next-offset': showOffset(s.durableEnd),
    'stream-up-to-date': 'true',
    'cache-control': 'no-store',
    ...(s.closedDurable ? { 'stream-closed': 'true' } : {}),
  })

export const catchUp = (s: Stream, from: number, ctx: ReadContext, request: Request): Response => dataAnswer(s, from, ctx, request, undefined)

/** Resolves when the stream changes (data, closure, deletion), `ms` pass, or the request is aborted. */
const changed = (s: Stream, ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      s.waiters.delete(done)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    s.waiters.add(done)
    signal.addEventListener('abort', done)
  })

/** Whether the stream is still the one served at its path (not deleted, not expired). */
const alive = (ctx: ReadContext, s: Stream): boolean => ctx.streams.byPath.get(s.path) === s && !s.gone && !expired(s, ctx.now())

export const longPoll = async (s: Stream, from: number, ctx: ReadContext, request: Request): Promise<Response> => {
  const deadline = ctx.now() + ctx.longPollTimeoutMs
  const cursor = () => nextCursor(new URL(request.url).searchParams.get('cursor'), ctx.now())
  for (;;) {
    if (!alive(ctx, s)) return refuse(404, 'The stream does not exist')
    if (from < s.durableEnd) return dataAnswer(s, from, ctx, request, cursor())
    if (s.closedDurable) {
      return answer(204, null, {
        'stream-next-offset': showOffset(s.durableEnd),
        'stream-up-to-date': 'true',
        'stream-closed': 'true',
        'stream-cursor': cursor(),
      })
    }
    const left = deadline - ctx.now()
    if (left <= 0 || request.signal.aborted) {
      return answer(204, null, {
        'stream-next-offset': showOffset(s.durableEnd),
        'stream-up-to-date': 'true',
        'stream-cursor': cursor(),
        'cache-control': 'no-store',
      })
    }
    await changed(s, left, request.signal)
  }
}

/** One SSE event: its type and its data, one `data:` line per line. */
const event = (type: string, data: string): string => `event: ${type}\n${data.split(/\r\n|\r|\n/).map((l) => `data:${l}`).join('\n')}\n\n`

/** Whether a stream's data goes in SSE as text (`text/*`, JSON) rather than base64. */
const sseText = (s: Stream): boolean => {
  const t = s.contentType.split(';')[0]?.trim().toLowerCase() ?? ''
  return t.startsWith('text/') || t === 'application/json'
}

export const sse = (s: Stream, from: number, ctx: ReadContext, request: Request): Response => {
  const enc = new TextEncoder()
  const text = sseText(s)
  let stopped = false
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => {
      const closeAt = ctx.now() + ctx.sseCloseMs
      let at = from
      const run = async () => {
        let first = true
        while (!stopped && !request.signal.aborted) {
          if (!alive(ctx, s)) break
          let sent = false
          // the data events and their control event leave as one chunk: a reader never holds data
          // without the offset after it for longer than the network takes
          let out = ''
          while (at < s.durableEnd) {
            const { body: data, next } = slice(s, at, ctx.maxReadBytes)
            if (next === at) break
            out += event('data', text ? new TextDecoder().decode(data) : toBase64(data))
            at = next
            sent = true
          }
          if (sent || first) {
            const upToDate = at >= s.durableEnd
            const closed = upToDate && s.closedDurable
            const control = {
              streamNextOffset: showOffset(at),
              ...(closed ? { streamClosed: true } : { streamCursor: nextCursor(new URL(request.url).searchParams.get('cursor'), ctx.now()) }),
              ...(upToDate ? { upToDate: true } : {}),
            }
            controller.enqueue(enc.encode(out + event('control', JSON.stringify(control))))
            first = false
            if (closed) break
          } else if (at >= s.durableEnd && s.closedDurable) {
            controller.enqueue(enc.encode(event('control', JSON.stringify({ streamNextOffset: showOffset(at), upToDate: true, streamClosed: true }))))
            break
          }
          const left = closeAt - ctx.now()
          if (left <= 0) break
          if (at >= s.durableEnd) await changed(s, left, request.signal)
        }
        try {
          controller.close()
        } catch {
          // the reader went away
        }
      }
      void run()
    },
    cancel: () => {
      stopped = true
    },
  })
  const headers = baseHeaders()
  headers.set('content-type', 'text/event-stream')
  headers.set('cache-control', 'no-cache')
  if (!text) headers.set('stream-sse-data-encoding', 'base64')
  return new Response(body, { status: 200, headers })
}
