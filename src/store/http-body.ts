/**
 * The chat handler's JSON responses and request bodies: a body is read as UTF-8 JSON of a JSON
 * media type only, and reading stops (the stream cancelled) as soon as it passes the limit.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { parseJsonText } from '../internal/json.ts'
import { type DecodeFailure, prefixFailure, showActual } from '../message/failure.ts'
import type { StoreFailure } from './core.ts'

const JSON_TYPE = 'application/json; charset=utf-8'

/** A JSON response. */
export const json = (status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': JSON_TYPE, ...headers } })

/** The size of the pieces a large body is sent in. */
const PIECE_BYTES = 65_536

/**
 * A JSON response of bytes already encoded (shared, never changed): a large one is sent as a
 * stream of copied pieces, pulled one at a time, so that a reader that does not read holds one
 * piece of it, not a copy of the whole.
 */
export const jsonBytes = (status: number, bytes: Uint8Array): Response => {
  const headers = { 'content-type': JSON_TYPE }
  if (bytes.byteLength <= PIECE_BYTES) return new Response(bytes.slice(), { status, headers })
  let at = 0
  const body = new ReadableStream<Uint8Array>(
    {
      pull: (c) => {
        c.enqueue(bytes.slice(at, at + PIECE_BYTES))
        at += PIECE_BYTES
        if (at >= bytes.byteLength) c.close()
      },
    },
    { highWaterMark: 0 },
  )
  return new Response(body, { status, headers })
}

/** An error response: `{ error: { status, code, message, … } }`. */
export const fail = (
  status: number,
  code: string,
  message: string,
  extra: Readonly<Record<string, unknown>> = {},
  headers: Readonly<Record<string, string>> = {},
): Response => json(status, { error: { status, code, message, ...extra } }, headers)

/**
 * JSON media types only: `text/plain`, forms and a missing type are what a page elsewhere can send
 * without asking the server first (no CORS preflight), so they are refused.
 */
const isJsonType = (ct: string): boolean => /^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i.test(ct.trim())

/** Reads a JSON body, stopping (and cancelling the stream) as soon as it passes `limit` bytes. */
export const readJson = async (request: Request, limit: number): Promise<E.Either<Response, unknown>> => {
  const type = request.headers.get('content-type')
  const charset = type === null ? undefined : /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type)?.[1]
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    await request.body?.cancel().catch(() => undefined)
    return E.left(
      fail(415, 'unsupported_media_type', `Expected a UTF-8 JSON body, got charset ${charset.slice(0, 40)}`, { accept: 'application/json; charset=utf-8' }),
    )
  }
  if (type === null || !isJsonType(type)) {
    await request.body?.cancel().catch(() => undefined)
    return E.left(
      fail(
        415,
        'unsupported_media_type',
        `Expected a JSON body (content-type: application/json), got ${type === null ? 'no content type' : type.slice(0, 100)}`,
        { accept: 'application/json' },
      ),
    )
  }
  const tooLarge = () => fail(413, 'payload_too_large', `The body is larger than ${limit} bytes`, { limit })
  const declared = request.headers.get('content-length')
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > limit) {
    await request.body?.cancel().catch(() => undefined)
    return E.left(tooLarge())
  }
  const chunks: Uint8Array[] = []
  let total = 0
  if (request.body !== null) {
    const reader = request.body.getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        total += value.byteLength
        if (total > limit) {
          await reader.cancel().catch(() => undefined)
          return E.left(tooLarge())
        }
        chunks.push(value)
      }
    } catch {
      return E.left(fail(400, 'unreadable_body', 'The body could not be read'))
    }
  }
  const bytes = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    bytes.set(c, at)
    at += c.byteLength
  }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return E.left(fail(400, 'invalid_json', 'The body is not valid UTF-8'))
  }
  if (text.trim() === '') return E.left(fail(400, 'invalid_json', 'Expected a JSON body, got an empty one'))
  return E.mapLeft((message: string) => fail(400, 'invalid_json', `The body is not JSON: ${message}`))(parseJsonText(text))
}

/** Most issues one error response lists (a body of 100,000 bad blocks would otherwise get an answer many times its size). */
const MAX_LISTED_ISSUES = 100

/** A 400 listing every bad field by path (the first hundred, and how many there are). */
export const invalid = (failure: DecodeFailure, message = 'The request has invalid fields'): Response =>
  fail(400, 'invalid_request', message, {
    issues: failure.slice(0, MAX_LISTED_ISSUES).map((i) => ({ path: i.path, expected: i.expected, actual: showActual(i.actual) })),
    ...(failure.length > MAX_LISTED_ISSUES ? { issues_total: failure.length } : {}),
  })

/**
 * The answer to a step the store refused: 409 for a message id held already or a fork's new
 * conversation that exists, 404 for a fork at a message its conversation does not hold, 400 for
 * invalid input (paths under `prefix`).
 */
export const storeFailure = (e: StoreFailure, prefix = ''): Response => {
  switch (e.kind) {
    case 'duplicate_message':
      return fail(409, 'duplicate_message', `Message id ${JSON.stringify(e.messageId)} is already held`, { message_id: e.messageId })
    case 'conversation_exists':
      return fail(409, 'conversation_exists', `Conversation ${JSON.stringify(e.conversationId)} exists already`, { conversation_id: e.conversationId })
    case 'stale_head':
      return fail(409, 'stale_head', `Conversation ${JSON.stringify(e.conversationId)} has moved on from ${JSON.stringify(e.expected)}`, {
        conversation_id: e.conversationId,
        head: e.head,
      })
    case 'unknown_message':
      return fail(404, 'unknown_message', `Conversation ${JSON.stringify(e.conversationId)} holds no message ${JSON.stringify(e.messageId)}`, {
        conversation_id: e.conversationId,
        message_id: e.messageId,
      })
    case 'invalid_input':
      return invalid(prefix === '' ? e.failure : prefixFailure(prefix)(e.failure))
  }
}
