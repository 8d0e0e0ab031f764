/**
 * Serving a Web-standard fetch handler (`(request: Request) => Promise<Response>`, such as
 * `createChatHandler`'s) with `node:http`. The request body is streamed to the handler as it is
 * pulled; what a handler leaves unread (a 413) is read and dropped before the answer, up to 4 MiB,
 * so that the client still sending reads the answer rather than a reset (past it the connection is
 * closed after the answer). Answers are sent with backpressure, within a time and memory budget
 * (`_http-send.ts`), and the server's limits (`_http-limits.ts`) keep clients that send slowly, read
 * slowly or pipeline from holding the others off.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { limitConcurrency, oneAtATime } from './_http-limits.ts'
import { send, type SendBudget, sendBudget } from './_http-send.ts'

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

/** How many bytes of a body the handler left unread are read (and dropped) so that its answer is not lost to a reset; past it the connection closes after the answer. */
const DRAIN_BYTES = 4 * 1_048_576

/**
 * Reads and drops the rest of a body the handler left unread, up to `DRAIN_BYTES`, so that the
 * client, still sending, reads the answer rather than a reset: resolves to whether the body ended
 * (the connection can then be kept), or not (closed after the answer).
 */
const drain = (req: IncomingMessage): Promise<boolean> =>
  new Promise((resolve) => {
    if (req.complete) return resolve(true)
    let seen = 0
    const finish = (ended: boolean) => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onFail)
      req.off('close', onFail)
      if (!ended) req.pause()
      resolve(ended)
    }
    const onData = (chunk: Uint8Array) => {
      seen += chunk.byteLength
      if (seen > DRAIN_BYTES) finish(false)
    }
    const onEnd = () => finish(true)
    const onFail = () => finish(req.complete)
    req.on('data', onData)
    req.once('end', onEnd)
    req.once('error', onFail)
    req.once('close', onFail)
    req.resume()
  })

/** The plain 500 of a handler that threw. */
const internalError = (): Response => new Response('Internal error', { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' } })

/**
 * Handles one request: builds the Web request, runs the handler (a throw is a 500), tells
 * `answered` once it has answered, and sends the answer within `budget`.
 */
const respond = async (
  handler: FetchHandler,
  origin: string | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  answered: () => void,
  budget: SendBudget,
): Promise<void> => {
  const aborted = new AbortController()
  res.once('close', () => {
    if (!res.writableFinished) aborted.abort()
  })
  let request: Request
  try {
    const host = req.headers.host
    request = toRequest(req, origin ?? (host !== undefined && /^[\w.:[\]-]+$/.test(host) ? `http://${host}` : 'http://localhost'), aborted.signal)
  } catch {
    answered()
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end('Bad request')
    return
  }
  let response: Response
  try {
    response = await handler(request)
  } catch {
    response = internalError()
  }
  answered()
  try {
    // a body the handler left unread (a 413) is read and dropped first, so that the client reads the answer
    if (request.body !== null && !request.body.locked) await request.body.cancel().catch(() => undefined)
    const ended = await drain(req)
    await send(res, response, !ended, budget)
  } catch {
    res.destroy()
  }
}

/** Default time a send may wait for its reader to take more of the answer; past it the connection is cut. */
const DEFAULT_SEND_TIMEOUT_MS = 10_000
/** Default bytes the answers waiting for their readers may hold together; past it the longest waiting are cut. */
const DEFAULT_MAX_UNSENT_BYTES = 64 * 1_048_576

/**
 * Adapts a fetch handler to a `node:http` request listener. A handler that throws is answered
 * with a plain 500; a request Node cannot express as a Web `Request` with a 400. The answer is
 * sent with backpressure: a reader that takes nothing for 10 s is cut, and while the answers
 * waiting for their readers hold more than 64 MiB together, the longest waiting are cut.
 *
 * @example
 * import { createServer } from 'node:http'
 * import { createChatHandler, createChatStore } from 'chatfold/store'
 * import { toNodeListener } from 'chatfold/node'
 * createServer(toNodeListener(createChatHandler(createChatStore()))).listen(0, '127.0.0.1') // port 0: any free port
 *
 * @since 0.1.0
 * @category http
 */
export const toNodeListener = (handler: FetchHandler, options: { readonly origin?: string } = {}): (req: IncomingMessage, res: ServerResponse) => void => {
  const budget = sendBudget(DEFAULT_SEND_TIMEOUT_MS, DEFAULT_MAX_UNSENT_BYTES)
  return (req: IncomingMessage, res: ServerResponse): void => void respond(handler, options.origin, req, res, () => undefined, budget)
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
 * at once (256), answered 503 beyond; slow request bodies (still coming after a second) one client
 * (remote address) may be sending at once (16), answered 503 beyond; and the budget for sending
 * answers: a reader that takes nothing of its answer for `sendTimeoutMs` (10 s) is cut, and while
 * the answers waiting for their readers hold more than `maxUnsentBytes` (64 MiB) together, those
 * waiting longest (a second or more) are cut. A request counts against the shared cap only while
 * its handler runs: a body still coming counts against its client's budget, an answer not yet read
 * against its own connection's time and the shared bytes, and the requests a connection pipelines
 * are handled one at a time, so that none of these holds the others off.
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
  readonly sendTimeoutMs?: number
  readonly maxUnsentBytes?: number
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
    const budget = sendBudget(options.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS, options.maxUnsentBytes ?? DEFAULT_MAX_UNSENT_BYTES)
    const server = createServer(
      {
        keepAliveTimeout: 5_000,
        headersTimeout,
        requestTimeout,
        // Node checks the two timeouts on this interval (30 s by default), so a short timeout needs a shorter check
        connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(Math.min(headersTimeout, requestTimeout) / 4))),
      },
      oneAtATime(
        limitConcurrency(
          options.maxConcurrentRequests ?? DEFAULT_MAX_CONCURRENT_REQUESTS,
          options.maxBodiesPerClient ?? DEFAULT_MAX_BODIES_PER_CLIENT,
          (req, res, answered) => void respond(handler, undefined, req, res, answered, budget),
        ),
      ),
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
