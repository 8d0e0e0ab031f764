/**
 * Serving a Web-standard fetch handler (`(request: Request) => Promise<Response>`, such as
 * `createChatHandler`'s) with `node:http`. The request body is streamed to the handler as it is
 * pulled, so a handler that stops reading (a 413) leaves the rest unread; the connection is then
 * closed after the response instead of being reused.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A fetch handler: Web `Request` in, Web `Response` out.
 *
 * @since 0.1.0
 * @category http
 */
export type FetchHandler = (request: Request) => Promise<Response>

/** The request body as a Web stream that reads from Node only when pulled, and stops on cancel. */
const bodyOf = (req: IncomingMessage): ReadableStream<Uint8Array> => {
  let done = false
  const stop = () => {
    done = true
    req.off('data', onData)
    req.off('end', onEnd)
    req.off('error', onError)
    req.pause()
  }
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const onData = (chunk: Uint8Array) => {
    if (done) return
    controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
    if ((controller.desiredSize ?? 0) <= 0) req.pause()
  }
  const onEnd = () => {
    if (done) return
    stop()
    controller.close()
  }
  const onError = (e: unknown) => {
    if (done) return
    stop()
    controller.error(e)
  }
  return new ReadableStream<Uint8Array>(
    {
      start: (c) => {
        controller = c
        req.pause()
        req.on('data', onData)
        req.on('end', onEnd)
        req.on('error', onError)
      },
      pull: () => void req.resume(),
      cancel: () => stop(),
    },
    { highWaterMark: 1 },
  )
}

const toRequest = (req: IncomingMessage, origin: string, signal: AbortSignal): Request => {
  const headers = new Headers()
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    try {
      headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string)
    } catch {
      // a header Node accepted but the Fetch API does not: leave it out
    }
  }
  const method = req.method ?? 'GET'
  const hasBody = method !== 'GET' && method !== 'HEAD'
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal, ...(hasBody ? { body: bodyOf(req), duplex: 'half' as const } : {}) }
  return new Request(new URL(req.url ?? '/', origin), init)
}

const send = async (res: ServerResponse, response: Response, close: boolean): Promise<void> => {
  const headers: Record<string, string | string[]> = {}
  response.headers.forEach((value, key) => {
    if (key === 'set-cookie') return
    headers[key] = value
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) headers['set-cookie'] = cookies
  if (close) headers['connection'] = 'close'
  res.writeHead(response.status, response.statusText, headers)
  if (response.body === null) {
    res.end()
    return
  }
  const reader = response.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve))
  }
  res.end()
}

/**
 * Adapts a fetch handler to a `node:http` request listener. A handler that throws is answered
 * with a plain 500; a request Node cannot express as a Web `Request` with a 400.
 *
 * @example
 * import { createServer } from 'node:http'
 * import { createChatHandler, createChatStore } from 'chatfold/store'
 * import { toNodeListener } from 'chatfold/node'
 * createServer(toNodeListener(createChatHandler(createChatStore()))).listen(8080, '127.0.0.1')
 *
 * @since 0.1.0
 * @category http
 */
export const toNodeListener =
  (handler: FetchHandler, options: { readonly origin?: string } = {}) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    const aborted = new AbortController()
    res.once('close', () => {
      if (!res.writableFinished) aborted.abort()
    })
    void (async () => {
      let request: Request
      try {
        const host = req.headers.host
        const origin = options.origin ?? (host !== undefined && /^[\w.:[\]-]+$/.test(host) ? `http://${host}` : 'http://localhost')
        request = toRequest(req, origin, aborted.signal)
      } catch {
        res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end('Bad request')
        return
      }
      let response: Response
      try {
        response = await handler(request)
      } catch {
        response = new Response('Internal error', { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' } })
      }
      try {
        // a body the handler left unread is not drained: the connection closes after the response
        await send(res, response, !req.complete)
      } catch {
        res.destroy()
      }
    })()
  }

/** Default time for a client to send its headers (Node answers 408 after it). */
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000
/** Default time for a client to send its whole request, body included (Node answers 408 after it). */
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000
/** Default number of requests handled at once; more are answered 503. */
const DEFAULT_MAX_CONCURRENT_REQUESTS = 256
/** Default number of slow request bodies (still coming after a second) one client (remote address) may be sending at once; more are answered 503. */
const DEFAULT_MAX_BODIES_PER_CLIENT = 16

/**
 * Options of `serve`: where to listen, and the limits that keep slow clients from holding the server:
 * time for the headers (10 s) and for the whole request (30 s), answered 408 after; requests handled
 * at once (256), answered 503 beyond; and slow request bodies (still coming after a second) one
 * client (remote address) may be sending at once (16), answered 503 beyond. A request still sending
 * its body counts against its client's budget, not the shared cap, so that clients trickling bodies
 * hold their own budget only and the others keep being served.
 *
 * @since 0.1.0
 * @category http
 */
export type ServeOptions = {
  readonly port?: number
  readonly hostname?: string
  readonly headersTimeoutMs?: number
  readonly requestTimeoutMs?: number
  readonly maxConcurrentRequests?: number
  readonly maxBodiesPerClient?: number
}

const busy = (res: ServerResponse, why: string): void =>
  void res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', connection: 'close', 'retry-after': '1' }).end(why)

/** Whether a request has a body still to come. */
const bodyPending = (req: IncomingMessage): boolean =>
  !req.complete && (req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0'))

/** How long a body may take before it counts as slow, against its client's budget. */
const SLOW_BODY_MS = 1_000

/**
 * Answers 503 while `max` requests are being handled. A request whose body is still coming joins
 * that count only once its body is in; a body still coming after a second counts against its
 * client's (remote address's) budget of `perClient` slow bodies instead: past it, the slow body is
 * answered 503 and its connection closed, and the client's new requests with a body are answered
 * 503 until its slow ones end. Fast bodies, however many at once, never count.
 */
const limitConcurrency = (max: number, perClient: number, listener: (req: IncomingMessage, res: ServerResponse) => void) => {
  let active = 0
  const slow = new Map<string, number>()
  const add = (client: string, n: number) => {
    const v = (slow.get(client) ?? 0) + n
    if (v <= 0) slow.delete(client)
    else slow.set(client, v)
  }
  return (req: IncomingMessage, res: ServerResponse): void => {
    const client = req.socket.remoteAddress ?? ''
    if (bodyPending(req)) {
      if ((slow.get(client) ?? 0) >= perClient) return busy(res, 'Busy: too many slow bodies from your address')
      let isSlow = false
      let joined = false
      const timer = setTimeout(() => {
        if (req.complete || res.writableEnded || res.destroyed) return
        isSlow = true
        add(client, 1)
        // the answer closes the connection, and with it the body still coming
        if ((slow.get(client) ?? 0) > perClient) busy(res, 'Busy: too many slow bodies from your address')
      }, SLOW_BODY_MS)
      const received = () => {
        clearTimeout(timer)
        if (isSlow) add(client, -1)
        isSlow = false
      }
      req.once('end', () => {
        received()
        if (res.writableEnded || res.destroyed) return
        joined = true
        active++
      })
      res.once('close', () => {
        received()
        if (joined) active--
      })
      listener(req, res)
      return
    }
    if (active >= max) return busy(res, 'Busy')
    active++
    res.once('close', () => active--)
    listener(req, res)
  }
}

/**
 * A running server: its URL, the `node:http` server, and `close()`.
 *
 * @since 0.1.0
 * @category http
 */
export type RunningServer = {
  readonly url: string
  readonly server: Server
  readonly close: () => Promise<void>
}

/**
 * Serves a fetch handler with `node:http` on `hostname` (127.0.0.1 by default) and `port`
 * (a free one by default), resolving once it listens.
 *
 * @example
 * import { createChatHandler, createChatStore } from 'chatfold/store'
 * import { serve } from 'chatfold/node'
 * const running = await serve(createChatHandler(createChatStore()), { port: 8787 })
 * console.log(`listening on ${running.url}`)
 * await running.close()
 *
 * @since 0.1.0
 * @category http
 */
export const serve = (handler: FetchHandler, options: ServeOptions = {}): Promise<RunningServer> =>
  new Promise((resolve, reject) => {
    const hostname = options.hostname ?? '127.0.0.1'
    const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS
    const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
    const server = createServer(
      {
        keepAliveTimeout: 5_000,
        headersTimeout,
        requestTimeout,
        // Node checks the two timeouts on this interval (30 s by default), so a short timeout needs a shorter check
        connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(Math.min(headersTimeout, requestTimeout) / 4))),
      },
      limitConcurrency(options.maxConcurrentRequests ?? DEFAULT_MAX_CONCURRENT_REQUESTS, options.maxBodiesPerClient ?? DEFAULT_MAX_BODIES_PER_CLIENT, toNodeListener(handler)),
    )
    server.once('error', reject)
    server.listen(options.port ?? 0, hostname, () => {
      server.off('error', reject)
      const { port } = server.address() as AddressInfo
      const host = hostname.includes(':') ? `[${hostname}]` : hostname
      resolve({
        url: `http://${host}:${port}`,
        server,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((e) => (e === undefined ? done() : fail(e)))
            server.closeAllConnections()
          }),
      })
    })
  })
