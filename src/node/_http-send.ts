/**
 * Sending a Web `Response` on a `node:http` response within a time and memory budget: the body is
 * read a chunk at a time and written in pieces of 64 KiB, the next only once the socket has taken
 * the last (`write()` returning false waits for `'drain'`), so that a reader that does not read
 * holds one chunk, not copies of the answer; a send that waits longer than `timeoutMs` for its
 * reader to take a piece is cut (the connection destroyed); and while the bytes every waiting
 * send holds pass `maxHeldBytes` together, the sends that have waited longest (a second or more)
 * are cut first.
 *
 * @module
 */
import type { ServerResponse } from 'node:http'

/** How long a send may wait before it can be cut to bring the held bytes back under the budget. */
const GRACE_MS = 1_000

/** The most written at once: a reader that takes anything within the send timeout keeps its answer coming. */
const PIECE_BYTES = 65_536

/** A send waiting for its reader: since when, the bytes it holds, and how to cut it. */
type Waiting = { readonly since: number; readonly bytes: number; readonly cut: () => void }

/**
 * What the sends of one server share: the time one may wait for its reader, the bytes all waiting
 * sends may hold together, and the sends waiting now (oldest first).
 */
export type SendBudget = { readonly timeoutMs: number; readonly maxHeldBytes: number; held: number; readonly waiting: Set<Waiting> }

/** A new budget: `timeoutMs` per wait, `maxHeldBytes` held by the waiting sends together. */
export const sendBudget = (timeoutMs: number, maxHeldBytes: number): SendBudget => ({ timeoutMs, maxHeldBytes, held: 0, waiting: new Set() })

/** Why a send ended before its answer was out. */
class SendCut extends Error {
  override readonly name = 'SendCut'
}

/**
 * Waits for `res` to take more (its `'drain'`, or `'finish'` once ended), holding `bytes`: rejects
 * when the connection closes, or when the wait is cut (too long, or over the budget) and the
 * connection with it.
 */
const waitFor = (res: ServerResponse, event: 'drain' | 'finish', bytes: number, budget: SendBudget): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    let settled = false
    const settle = (): boolean => {
      if (settled) return false
      settled = true
      clearTimeout(timer)
      res.off(event, onReady)
      res.off('close', onClose)
      budget.held -= bytes
      budget.waiting.delete(waiting)
      return true
    }
    const onReady = () => {
      if (settle()) resolve()
    }
    const onClose = () => {
      if (settle()) reject(new SendCut('the connection closed before the answer was sent'))
    }
    const cut = (why: string) => {
      if (!settle()) return
      res.destroy()
      reject(new SendCut(why))
    }
    const waiting: Waiting = { since: Date.now(), bytes, cut: () => cut('the answers waiting for their readers hold too much memory') }
    const timer = setTimeout(() => cut(`the reader took nothing for ${budget.timeoutMs} ms`), budget.timeoutMs)
    res.once(event, onReady)
    res.once('close', onClose)
    budget.held += bytes
    budget.waiting.add(waiting)
    // over the budget: cut the sends that have waited longest, none younger than the grace
    const now = Date.now()
    for (const w of budget.waiting) {
      if (budget.held <= budget.maxHeldBytes || now - w.since < GRACE_MS) break
      w.cut()
    }
  })

/** The headers of a Web response as `node:http` takes them (`set-cookie` as a list). */
const nodeHeaders = (response: Response, close: boolean): Record<string, string | string[]> => {
  const headers: Record<string, string | string[]> = {}
  response.headers.forEach((value, key) => {
    if (key === 'set-cookie') return
    headers[key] = value
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) headers['set-cookie'] = cookies
  if (close) headers['connection'] = 'close'
  return headers
}

/**
 * Sends `response` on `res` within `budget`, closing the connection after it when `close`;
 * rejects when the send is cut or the connection closes first (the body's stream cancelled).
 */
export const send = async (res: ServerResponse, response: Response, close: boolean, budget: SendBudget): Promise<void> => {
  res.writeHead(response.status, response.statusText, nodeHeaders(response, close))
  if (response.body !== null) {
    const reader = response.body.getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        // in pieces, so that the time a send may wait is for its reader to take one piece, not the whole answer
        for (let at = 0; at < value.byteLength; at += PIECE_BYTES) {
          if (res.destroyed) throw new SendCut('the connection closed before the answer was sent')
          if (!res.write(value.subarray(at, at + PIECE_BYTES))) await waitFor(res, 'drain', value.byteLength - at, budget)
        }
      }
    } catch (e) {
      await reader.cancel().catch(() => undefined)
      throw e
    }
  }
  res.end()
  // the last bytes may still wait for the reader: the same time budget, nothing held of ours
  if (!res.writableFinished && !res.destroyed) await waitFor(res, 'finish', 0, budget)
}
