/**
 * The streams handler's `GET` and `HEAD`: a stream's metadata, and a read from an offset sent to
 * the right kind (catch-up, `now`, long-poll or SSE), after checking the offset and live mode.
 *
 * @module
 */
import { answer, parseOffset, refuse, showOffset } from './_http.ts'
import { catchUp, longPoll, nowAnswer, sse, startOf } from './_read.ts'
import type { Core } from './_handler-core.ts'

/** Answers a `GET` or `HEAD` of `path`. */
export const read = (h: Core) => (request: Request, path: string): Promise<Response> | Response => {
  const s = h.live(path, request.method !== 'HEAD')
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
  if (liveMode === 'sse') return sse(s, from, h.read, request)
  if (liveMode === 'long-poll') return longPoll(s, from, h.read, request)
  return offset.kind === 'now' ? nowAnswer(s) : catchUp(s, from, h.read, request)
}
