/**
 * Cross-origin reads and writes of the streams as the protocol's reference server allows them
 * (its methods, request headers, and `If-None-Match`, and exposed headers), within the handler's Origin rule: a preflight
 * (`OPTIONS`) from an origin the rule admits is a 204 naming that origin; any other is refused
 * as a request from it would be.
 *
 * @module
 */

const METHODS = 'GET, POST, PUT, DELETE, HEAD, OPTIONS'
const REQUEST_HEADERS =
  'content-type, authorization, Stream-Seq, Stream-TTL, Stream-Expires-At, Stream-Closed, Producer-Id, Producer-Epoch, Producer-Seq, Stream-Forked-From, Stream-Fork-Offset, Stream-Fork-Sub-Offset, If-None-Match'
const EXPOSED_HEADERS =
  'Stream-Next-Offset, Stream-Cursor, Stream-Up-To-Date, Stream-Closed, Producer-Epoch, Producer-Seq, Producer-Expected-Seq, Producer-Received-Seq, etag, content-type, content-encoding, vary'

/** The headers that let the page at `origin` (one the Origin rule admitted) read an answer. */
export const corsHeaders = (origin: string): Readonly<Record<string, string>> => ({
  'access-control-allow-origin': origin,
  'access-control-expose-headers': EXPOSED_HEADERS,
  vary: 'origin',
})

/** The answer to a preflight from `origin` (admitted by the Origin rule): what may be sent. */
export const preflight = (origin: string | null): Response =>
  new Response(null, {
    status: 204,
    headers: {
      ...(origin === null ? { 'access-control-allow-origin': '*' } : corsHeaders(origin)),
      'access-control-allow-methods': METHODS,
      'access-control-allow-headers': REQUEST_HEADERS,
      'access-control-max-age': '600',
      'x-content-type-options': 'nosniff',
      'cross-origin-resource-policy': 'cross-origin',
    },
  })

/** `response` with the CORS headers for `origin` (admitted by the Origin rule), when there is one. */
export const withCors = (origin: string | null, response: Response): Response => {
  if (origin === null) return response
  for (const [k, v] of Object.entries(corsHeaders(origin))) response.headers.set(k, v)
  return response
}
