/**
 * The limits that keep clients from holding a `node:http` server: requests handled at once (a
 * shared cap, answered 503 beyond), slow request bodies per client address, and one request at a
 * time per connection (pipelined requests wait for the answer before theirs). A request counts
 * against the shared cap only while its handler runs: an answer waiting for its reader counts
 * against its own connection (the send's time and memory budget, `_http-send.ts`), not the cap.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/** A request listener told when its handler has answered (`answered`), before the answer is sent. */
export type AnsweringListener = (req: IncomingMessage, res: ServerResponse, answered: () => void) => void

/** Answers 503 and closes the connection. */
export const busy = (res: ServerResponse, why: string): void =>
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
 * 503 until its slow ones end. Fast bodies, however many at once, never count. A request leaves
 * the count as soon as its handler has answered.
 */
export const limitConcurrency = (max: number, perClient: number, listener: AnsweringListener) => {
  let active = 0
  const slow = new Map<string, number>()
  const add = (client: string, n: number) => {
    const v = (slow.get(client) ?? 0) + n
    if (v <= 0) slow.delete(client)
    else slow.set(client, v)
  }
  return (req: IncomingMessage, res: ServerResponse): void => {
    // counted from `join()` until its handler answered or its connection closed, whichever first
    let counted = false
    let over = false
    const join = () => {
      if (over) return
      counted = true
      active++
    }
    const leave = () => {
      over = true
      if (counted) active--
      counted = false
    }
    res.once('close', leave)
    const client = req.socket.remoteAddress ?? ''
    if (bodyPending(req)) {
      if ((slow.get(client) ?? 0) >= perClient) return busy(res, 'Busy: too many slow bodies from your address')
      let isSlow = false
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
        if (!res.headersSent && !res.destroyed) join()
      })
      res.once('close', received)
      listener(req, res, leave)
      return
    }
    if (active >= max) return busy(res, 'Busy')
    join()
    listener(req, res, leave)
  }
}

/**
 * One request at a time per connection, in order: a pipelined request waits until the answer
 * before it is sent (or its connection closed), so that a connection holds at most one place in
 * the shared count however many requests it sends ahead.
 */
export const oneAtATime = (listener: (req: IncomingMessage, res: ServerResponse) => void) => {
  const waiting = new WeakMap<Socket, Array<readonly [IncomingMessage, ServerResponse]>>()
  const run = (socket: Socket, req: IncomingMessage, res: ServerResponse): void => {
    let over = false
    const next = () => {
      if (over) return
      over = true
      res.off('close', next)
      socket.off('close', next)
      const following = socket.destroyed ? undefined : waiting.get(socket)?.shift()
      if (following === undefined) waiting.delete(socket)
      else run(socket, following[0], following[1])
    }
    res.once('close', next)
    socket.once('close', next)
    listener(req, res)
  }
  return (req: IncomingMessage, res: ServerResponse): void => {
    const socket = req.socket
    const queue = waiting.get(socket)
    if (queue !== undefined) {
      queue.push([req, res])
      return
    }
    waiting.set(socket, [])
    run(socket, req, res)
  }
}
