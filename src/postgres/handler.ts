/**
 * The chat store's HTTP API over a store in PostgreSQL: the same routes, checks and answers as
 * `createChatHandler`, each request run in one transaction of the store. A request that may write
 * (a `POST` but the query) locks the store in the database, sees every step committed before it,
 * and is answered only once its commit returned; a read catches up with the database without
 * locking it. A request's body is read (up to the limit) before the transaction starts, so that a
 * slow client never holds the lock, and the Host, Origin and token checks run before that.
 *
 * @module
 */
import { type ChatHandlerOptions, createChatHandler, DEFAULT_MAX_BODY_BYTES } from '../store/http.ts'
import { checkGate, type Refusal } from '../store/http-guard.ts'
import { fail } from '../store/http-body.ts'
import { isStoreError, writeFailureStatus } from '../store/failure.ts'
import { wholeOption } from '../internal/number.ts'
import type { PostgresChatStore } from './store.ts'

const refused = (r: Refusal): Response => fail(r.status, r.code, r.message, {}, r.headers)

/** The body's bytes, at most `limit + 1` of them (one more than the limit: the handler then answers 413). */
const readCapped = async (request: Request, limit: number): Promise<Uint8Array<ArrayBuffer> | undefined> => {
  if (request.body === null) return undefined
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
    size += value.length
    if (size > limit) {
      await reader.cancel().catch(() => undefined)
      break
    }
  }
  const all = new Uint8Array(new ArrayBuffer(size))
  let at = 0
  for (const c of chunks) {
    all.set(c, at)
    at += c.length
  }
  return all
}

/** Whether a request may change the store: every POST but the query. */
const writes = (request: Request): boolean =>
  request.method === 'POST' && !new URL(request.url).pathname.replace(/\/+$/, '').endsWith('/environment/modalities/chat/query')

/**
 * A fetch handler serving the chat HTTP API over a PostgreSQL store, any number of processes on
 * one database: each request one transaction, a 2xx only for what is committed, a 503
 * (`store_unavailable`, `retry-after: 1`) when the database cannot be reached or the commit fails.
 *
 * @example
 * import { openPostgresStore, type PgPoolLike, postgresChatHandler } from 'chatfold/postgres'
 * declare const pool: PgPoolLike // a pg Pool: new pg.Pool({ connectionString: url })
 * declare const token: string // the bearer token every request must send (CHATFOLD_TOKEN)
 * const handler = postgresChatHandler(await openPostgresStore(pool)(), { token })
 * // mount it: chatfold/node's serve(handler)
 *
 * @since 0.1.0
 * @category postgres
 */
export const postgresChatHandler = (store: PostgresChatStore, options: ChatHandlerOptions = {}): (request: Request) => Promise<Response> => {
  const inner = createChatHandler(store, options)
  const limit = wholeOption(options.maxBodyBytes, { fallback: DEFAULT_MAX_BODY_BYTES })
  return async (request) => {
    const gate = await checkGate(request, options)
    if (gate !== undefined) return refused(gate)
    let body: Uint8Array<ArrayBuffer> | undefined
    try {
      body = await readCapped(request, limit)
    } catch {
      return fail(400, 'invalid_request', 'The request body could not be read')
    }
    const buffered = new Request(request.url, { method: request.method, headers: request.headers, ...(body === undefined ? {} : { body }) })
    try {
      return await store.transaction(() => inner(buffered), { write: writes(request) })
    } catch (e) {
      const status = isStoreError(e) ? writeFailureStatus(e) : undefined
      if (status === 507) return fail(507, 'insufficient_storage', e instanceof Error ? e.message : String(e), {}, { 'retry-after': '5' })
      return fail(503, 'store_unavailable', `The store could not commit: ${e instanceof Error ? e.message : String(e)}`, {}, { 'retry-after': '1' })
    }
  }
}
