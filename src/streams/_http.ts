/**
 * The small HTTP pieces of the Durable Streams handler: offsets as text, the headers every answer
 * carries, the cursor of live reads, and the parsing of the protocol's request headers and bodies.
 *
 * @module
 */

/** Digits of an offset: positions up to 10^16 bytes. */
const OFFSET_DIGITS = 16

/** The first half of every offset (a read sequence kept for the token's shape; always 0 here). */
const SEQ = '0'.repeat(OFFSET_DIGITS)

/** An offset as the protocol's opaque, lexicographically ordered token: `<seq>_<byte position>`, 16 digits each. */
export const showOffset = (position: number): string => `${SEQ}_${String(position).padStart(OFFSET_DIGITS, '0')}`

/** A requested offset: the start (`-1`), the tail (`now`), a position, or malformed. */
export type Offset = { readonly kind: 'start' } | { readonly kind: 'now' } | { readonly kind: 'at'; readonly position: number } | { readonly kind: 'bad' }

export const parseOffset = (text: string | null): Offset => {
  if (text === null || text === '-1') return { kind: 'start' }
  if (text === 'now') return { kind: 'now' }
  const m = /^(\d{16})_(\d{16})$/.exec(text)
  if (m !== null) return { kind: 'at', position: Number(m[2]) }
  return { kind: 'bad' }
}

/** The headers every answer carries (browser security). */
export const baseHeaders = (): Headers => new Headers({ 'x-content-type-options': 'nosniff', 'cross-origin-resource-policy': 'cross-origin' })

/** An answer with the base headers, and `extra`. */
export const answer = (status: number, body: BodyInit | null, extra: Readonly<Record<string, string>> = {}): Response => {
  const headers = baseHeaders()
  for (const [k, v] of Object.entries(extra)) headers.set(k, v)
  if (body !== null && !headers.has('content-type')) headers.set('content-type', 'text/plain; charset=utf-8')
  return new Response(body, { status, headers })
}

/** A refusal with a short plain-text reason. */
export const refuse = (status: number, message: string, extra: Readonly<Record<string, string>> = {}): Response => answer(status, message, extra)

/** A non-negative decimal integer without sign, leading zeros, point or exponent, up to 2^53-1; or undefined. */
export const parseWhole = (text: string): number | undefined => {
  if (!/^(0|[1-9]\d*)$/.test(text)) return undefined
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : undefined
}

/** Seconds of a cursor interval, and its epoch (2024-10-09T00:00:00Z). */
const CURSOR_INTERVAL_S = 20
const CURSOR_EPOCH_MS = Date.UTC(2024, 9, 9)

/** The cursor of a live answer: the current interval, strictly past the client's when it is not behind. */
export const nextCursor = (given: string | null, now: number): string => {
  const current = Math.floor((now - CURSOR_EPOCH_MS) / 1000 / CURSOR_INTERVAL_S)
  const client = given === null ? undefined : parseWhole(given)
  if (client !== undefined && client >= current) return String(client + 1 + Math.floor(Math.random() * (3600 / CURSOR_INTERVAL_S)))
  return String(current)
}

/** Whether a header value is `true` (the protocol's boolean headers). */
export const isTrue = (value: string | null): boolean => value !== null && value.trim().toLowerCase() === 'true'

/** Reads a whole body, up to `limit` bytes: the bytes, or `'too_large'`. */
export const readBytes = async (request: Request, limit: number): Promise<Uint8Array | 'too_large'> => {
  if (request.body === null) return new Uint8Array(0)
  const reader = request.body.getReader()
  const parts: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => undefined)
      return 'too_large'
    }
    parts.push(value)
  }
  if (parts.length === 1) return parts[0] as Uint8Array
  const out = new Uint8Array(size)
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.byteLength
  }
  return out
}

const DECODER = new TextDecoder('utf-8', { fatal: true })

/** The messages of a JSON body (an array is flattened one level), each as its JSON text; or why not. */
export const jsonMessages = (bytes: Uint8Array, allowEmpty: boolean): ReadonlyArray<Uint8Array> | string => {
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
