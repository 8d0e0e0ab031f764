/**
 * The Durable Streams protocol as a Web-standard fetch handler over a durable log
 * (`StreamsStorage`): create (`PUT`, forks included), append (`POST`, with `Stream-Seq` and
 * idempotent producers), close, delete, metadata (`HEAD`), reads from an offset (catch-up,
 * long-poll, SSE) and CORS preflights, under a base path, behind the same Host/Origin and token gate as the chat
 * handler. A write is answered only once the log keeps it; readers see only what it keeps. Each
 * route is a private file (`_handler-create.ts`, `_handler-append.ts`, `_handler-read.ts`, the
 * derived streams in `_handler-derived.ts`) over the core they share (`_handler-core.ts`).
 *
 * @module
 */
import { checkHostAndOrigin, checkToken } from '../store/http-guard.ts'
import type { StreamsStorage } from './log.ts'
import { answer, refuse } from './_http.ts'
import { preflight, withCors } from './_cors.ts'
import { openCore } from './_handler-core.ts'
import { create } from './_handler-create.ts'
import { append } from './_handler-append.ts'
import { read } from './_handler-read.ts'
import { publish } from './_handler-derived.ts'

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
  const h = await openCore(storage, options)
  const { streams, shared } = h
  const base = (options.basePath ?? '/streams').replace(/\/+$/, '')
  const routes = { create: create(h), append: append(h), read: read(h) }

  const remove = (path: string): Promise<Response> | Response => {
    const s = h.live(path, false)
    if (s instanceof Response) return s
    return h.commit({ t: 'delete', path }, () => answer(204, null))
  }

  /** A write to a stream the chat store keeps: refused (checked again in a shared log's transaction, after catching up). */
  const keptByStore = (request: Request, path: string): Response | undefined =>
    request.method !== 'GET' && request.method !== 'HEAD' && streams.byPath.get(path)?.derived === true
      ? refuse(405, 'This stream is kept by the chat store: read it only', { allow: 'GET, HEAD' })
      : undefined

  const dispatch = (request: Request, path: string): Promise<Response> | Response => {
    const refused = keptByStore(request, path)
    if (refused !== undefined) return refused
    switch (request.method) {
      case 'PUT':
        return routes.create(request, path)
      case 'POST':
        return routes.append(request, path)
      case 'GET':
      case 'HEAD':
        return routes.read(request, path)
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
    const refused = keptByStore(request, path)
    if (refused !== undefined) return refused
    const failure = h.failure()
    if (!reading && failure !== undefined) return refuse(503, failure)
    if (shared !== undefined) {
      if (!reading && ['PUT', 'POST', 'DELETE'].includes(request.method)) return shared.write(request, (r) => dispatch(r, path))
      const unread = reading ? await shared.catchUp() : undefined
      if (unread !== undefined) return unread
    }
    return dispatch(request, path)
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
    failure: h.failure,
    publish: publish(h),
    close: () => {
      shared?.stop()
      return storage.close()
    },
  }
}
