/**
 * The chat modality's HTTP API as a Web-standard fetch handler,
 * `(request: Request) => Promise<Response>`, over a `ChatStore`. It mounts unchanged in
 * Deno's `serve`, a Cloudflare Worker, Bun, or Node through `chatfold/node`.
 *
 * | route | does |
 * | --- | --- |
 * | `POST /events` | schedules `{ scheduled_time, modality: "chat", data }` |
 * | `POST /events/immediate` | applies `{ modality: "chat", data }` now |
 * | `POST /modalities/chat/submit` | applies the body (the data) now |
 * | `POST /modalities/chat/fork` | `{ conversation_id, message_id, new_conversation_id? }`: forks a conversation |
 * | `POST /modalities/chat/compact` | `{ conversation_id, from, head, summary }`: commits a compaction if `head` is still the head |
 * | `GET /environment/modalities/chat/overlays?conversation_id=…` | a conversation's head and committed compactions |
 * | `POST /environment/modalities/chat/query` | `query` with the body's parameters |
 * | `GET /environment/modalities/chat` | the snapshot |
 * | `GET /events` | the event history (`?limit=N`: the last N) and the pending events |
 * | `POST /simulator/advance` | `{ seconds }` or `{ until }`: moves the clock |
 * | `GET /simulator` | the clock and queue sizes |
 *
 * Bad input is a 400 whose JSON body lists every bad field by path; an unknown route is a 404, a
 * wrong method a 405 (with `Allow`), a body over the limit (1 MiB by default) a 413 sent as soon
 * as the limit is crossed, without reading the rest. Bodies are JSON only (415 for `text/plain`,
 * forms or no content type: what a page elsewhere can send without a CORS preflight); a request
 * with a foreign `Origin`, or a `Host` outside `allowedHosts`, is a 403; with `token`/`readToken`
 * set, a request without one is a 401 (before its route is looked up: a 404 or 405 tells only a
 * caller with a token), and a read-only token's write a 403; a durable store that has failed (its
 * lease lost, its log unwritable) is a 503 for every request that reaches it; the simulator routes
 * can be turned off (`simulator: false`, a 404). An `authorize(request)` hook may refuse a
 * request (401/403) or allow it for some conversations only: the caller then sees and writes those
 * alone. A body is decoded once, here, and the store takes the decoded event without checking it
 * again. Nothing a request sends can crash the handler or corrupt the store: every failed request
 * changes nothing, and the handler's promise never rejects (an internal error is a 500).
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { type DecodeFailure, type DecodeIssue, prefixFailure } from '../message/failure.ts'
import type { ChatStore } from './store.ts'
import { isStoreError, writeFailureStatus } from './failure.ts'
import type { ChatState, StoreFailure } from './state.ts'
import { decodeQuery, query } from './query.ts'
import { type ChatMessage, toChatMessages, toSnapshot } from './snapshot.ts'
import { type DecodedEvent, decodeEventData, decodeScheduledEvent, eventHistory, pendingEvents, recentEvents, type SimEvent } from './simulator.ts'
import { isObject } from '../internal/object.ts'
import { newId } from '../internal/id.ts'
import { checkHostAndOrigin, checkToken, type Refusal } from './http-guard.ts'
import { fail, invalid, json, jsonBytes, storeFailure } from './http-body.ts'
import { type Access, canSee, conversationOfEvent, type Ctx, forbidden, type Route, visibleState, withBody } from './_http-access.ts'
import { BRANCH_ROUTES } from './_http-branches.ts'
import { wholeOption } from '../internal/number.ts'

// --- options ---

/**
 * What an `authorize` hook decides: allow the request (for every conversation, or only the
 * listed ones), or deny it with 401 (not authenticated) or 403 (not allowed).
 *
 * @since 0.1.0
 * @category http
 */
export type AuthDecision =
  | { readonly type: 'allow'; readonly conversations?: 'all' | ReadonlyArray<string>; readonly readOnly?: boolean }
  | { readonly type: 'deny'; readonly status: 401 | 403; readonly message?: string; readonly headers?: Readonly<Record<string, string>> }

/**
 * Options of the handler: the body limit in bytes (1 MiB by default), an `authorize` hook, a
 * path prefix to mount the routes under (`/api` serves `/api/events`, …), and who may call:
 * `token` (every route) and `readToken` (reads only) as `Authorization: Bearer <token>`, checked
 * in constant time (neither set: no token asked); `allowedHosts`, the host names a request's
 * `Host` may name (`'any'` by default; the served entries narrow it); `simulator`, whether
 * `GET /simulator` and `POST /simulator/advance` are served (true by default here, false in the
 * served entries). A request with a foreign `Origin` is always refused (403).
 *
 * @since 0.1.0
 * @category http
 */
export type ChatHandlerOptions = {
  readonly maxBodyBytes?: number
  readonly authorize?: (request: Request) => AuthDecision | Promise<AuthDecision>
  readonly basePath?: string
  readonly token?: string | undefined
  readonly readToken?: string | undefined
  readonly allowedHosts?: ReadonlyArray<string> | 'any'
  readonly simulator?: boolean
}

/**
 * The default body limit of the chat handler: 1 MiB.
 *
 * @since 0.1.0
 * @category http
 */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576

// --- responses ---

// --- routes ---

/** The simulator's routes: served only when the handler's `simulator` option is on. */
const SIMULATOR_ROUTES: ReadonlyArray<string> = ['/simulator', '/simulator/advance']

const messageOf = (state: ChatState, e: SimEvent): ChatMessage | undefined => {
  const id = e.input.message_id ?? e.input.input_id
  return toChatMessages(state)([{ id, role: e.input.role, parts: [], kind: 'normal', conversationId: conversationOfEvent(state, e) }])[0]
}

const eventResponse = (store: ChatStore, event: SimEvent): Response => {
  const message = event.status === 'applied' ? messageOf(store.state(), event) : undefined
  return json(event.status === 'pending' ? 202 : 201, { event, ...(message === undefined ? {} : { message }) })
}

/** Checks the envelope of `/events` bodies: `modality` must be "chat", `data` present, no unknown fields. */
const envelopeIssues = (body: Readonly<Record<string, unknown>>, fields: ReadonlyArray<string>): ReadonlyArray<DecodeIssue> => {
  const out: DecodeIssue[] = []
  if (body['modality'] !== 'chat') out.push({ path: 'modality', expected: '"chat"', actual: body['modality'] })
  if (!Object.prototype.hasOwnProperty.call(body, 'data')) out.push({ path: 'data', expected: 'the chat message data (role, content, …)', actual: undefined })
  for (const k of Object.keys(body)) if (!fields.includes(k)) out.push({ path: k, expected: `no such field (expected ${fields.join(', ')})`, actual: body[k] })
  return out
}

/**
 * Submits an event decoded once, here at the edge, to the store, which trusts it: bad data was a
 * 400 already, and a caller limited to some conversations gets a 403 for any other before the
 * store is touched. `prefix` starts the paths of what the store may still refuse.
 */
const submitDecoded = (ctx: Ctx, decoded: E.Either<DecodeFailure, DecodedEvent>, prefix: string): Response => {
  if (E.isLeft(decoded)) return invalid(decoded.left)
  const target = decoded.right.data.conversation_id ?? ctx.store.state().defaultConversationId
  if (!canSee(ctx.access, target)) return forbidden(target)
  // a generated input id numbers the store's events: a limited caller gets a random one instead, which tells it nothing
  const event: DecodedEvent = ctx.access.all || decoded.right.data.input_id !== undefined
    ? decoded.right
    : { ...decoded.right, data: { ...decoded.right.data, input_id: newId() } }
  const { store } = ctx
  const r = store.submitDecoded !== undefined
    ? store.submitDecoded(event)
    : event.scheduled_time === undefined
    ? store.submit(event.data)
    : store.schedule({ scheduled_time: event.scheduled_time, data: event.data })
  return E.isLeft(r) ? storeFailure(r.left, prefix) : eventResponse(ctx.store, r.right)
}

/** Decoded data, or its issues after the envelope's (paths under `prefix`). */
const withEnvelope = (
  envelope: ReadonlyArray<DecodeIssue>,
  decoded: E.Either<DecodeFailure, DecodedEvent>,
  prefix: string,
): E.Either<DecodeFailure, DecodedEvent> => {
  const issues = [...envelope, ...(E.isLeft(decoded) ? prefixFailure(prefix)(decoded.left) : [])]
  return issues.length > 0 ? E.left(issues) : decoded
}

/** The snapshot of each state, encoded: a state is immutable, so its snapshot is encoded once however many read it. */
const encodedSnapshots = new WeakMap<ChatState, Uint8Array>()

const routes: Readonly<Record<string, ReadonlyArray<Route>>> = {
  '/events': [
    {
      method: 'POST',
      writes: true,
      run: withBody((ctx, body) => {
        if (!isObject(body)) return invalid([{ path: '', expected: 'an event object { scheduled_time, modality, data }', actual: body }])
        const request = { scheduled_time: body['scheduled_time'], data: body['data'] }
        return submitDecoded(ctx, withEnvelope(envelopeIssues(body, ['scheduled_time', 'modality', 'data']), decodeScheduledEvent(request), ''), '')
      }),
    },
    {
      method: 'GET',
      run: async (ctx) => {
        const limitParam = ctx.url.searchParams.get('limit')
        if (limitParam !== null && !/^\d{1,15}$/.test(limitParam)) return invalid([{ path: 'limit', expected: 'a non-negative integer', actual: limitParam }])
        const sim = ctx.store.simulator()
        const seen = (e: SimEvent) => canSee(ctx.access, conversationOfEvent(sim.state, e))
        const events = limitParam === null ? eventHistory(sim).filter(seen) : recentEvents({ limit: Number(limitParam), keep: seen })(sim)
        return json(200, { current_time: sim.now, events, pending: pendingEvents(sim).filter(seen) })
      },
    },
  ],
  '/events/immediate': [
    {
      method: 'POST',
      writes: true,
      run: withBody((ctx, body) => {
        if (!isObject(body)) return invalid([{ path: '', expected: 'an event object { modality, data }', actual: body }])
        return submitDecoded(ctx, withEnvelope(envelopeIssues(body, ['modality', 'data']), decodeEventData(body['data']), 'data'), 'data')
      }),
    },
  ],
  '/modalities/chat/submit': [{ method: 'POST', writes: true, run: withBody((ctx, body) => submitDecoded(ctx, decodeEventData(body), '')) }],
  ...BRANCH_ROUTES,
  '/environment/modalities/chat/query': [
    {
      method: 'POST',
      run: withBody((ctx, body) => {
        const params = decodeQuery(body)
        if (E.isLeft(params)) return invalid(params.left)
        const id = params.right.conversation_id
        if (id !== undefined && !canSee(ctx.access, id)) return forbidden(id)
        const state = id === undefined ? visibleState(ctx.access, ctx.store.state()) : ctx.store.state()
        const messages = toChatMessages(state)(query(params.right)(state))
        return json(200, { messages, count: messages.length })
      }),
    },
  ],
  '/environment/modalities/chat': [
    {
      method: 'GET',
      run: async (ctx) => {
        if (!ctx.access.all) return json(200, toSnapshot(visibleState(ctx.access, ctx.store.state())))
        // encoded once per state, and shared by every request that reads it
        const state = ctx.store.state()
        let bytes = encodedSnapshots.get(state)
        if (bytes === undefined) encodedSnapshots.set(state, bytes = new TextEncoder().encode(JSON.stringify(toSnapshot(state))))
        return jsonBytes(200, bytes)
      },
    },
  ],
  '/simulator/advance': [
    {
      method: 'POST',
      writes: true,
      run: withBody((ctx, body) => {
        if (!ctx.access.all) return fail(403, 'forbidden', 'Advancing the clock needs access to every conversation')
        if (!isObject(body)) return invalid([{ path: '', expected: 'an object { seconds } or { until }', actual: body }])
        const keys = Object.keys(body)
        const unknown = keys.filter((k) => k !== 'seconds' && k !== 'until')
        if (unknown.length > 0 || keys.length !== 1) {
          return invalid(
            unknown.length > 0
              ? unknown.map((k) => ({ path: k, expected: 'no such field (expected seconds or until)', actual: body[k] }))
              : [{ path: '', expected: 'exactly one of seconds, until', actual: body }],
          )
        }
        const seconds = body['seconds']
        const until = body['until']
        const r = seconds !== undefined
          ? typeof seconds === 'number'
            ? ctx.store.advanceBy(seconds)
            : E.left<StoreFailure>({ kind: 'invalid_input', failure: [{ path: 'seconds', expected: 'a non-negative number of seconds', actual: seconds }] })
          : typeof until === 'string'
          ? ctx.store.advanceTo(until)
          : E.left<StoreFailure>({ kind: 'invalid_input', failure: [{ path: 'until', expected: 'an ISO-8601 timestamp', actual: until }] })
        if (E.isLeft(r)) return storeFailure(r.left)
        return json(200, { current_time: ctx.store.simulator().now, applied: r.right })
      }),
    },
  ],
  '/simulator': [
    {
      method: 'GET',
      run: async (ctx) => {
        const sim = ctx.store.simulator()
        // a caller limited to some conversations counts only their events, never the store's
        const seen = (e: SimEvent) => canSee(ctx.access, conversationOfEvent(sim.state, e))
        return json(200, { current_time: sim.now, pending: pendingEvents(sim).filter(seen).length, applied: eventHistory(sim).filter(seen).length })
      },
    },
  ],
}

// --- handler ---

const normaliseBase = (base: string | undefined): string => {
  const b = (base ?? '').replace(/\/+$/, '')
  return b === '' ? '' : b.startsWith('/') ? b : `/${b}`
}

/**
 * A fetch handler serving the chat modality's HTTP API over a store.
 *
 * @example
 * import { createChatHandler, createChatStore } from 'chatfold/store'
 * const handler = createChatHandler(createChatStore(), { maxBodyBytes: 64 * 1024 })
 * // Deno: serve(handler); export default { fetch: handler }; or chatfold/node's serve(handler)
 * const res = await handler(new Request('http://localhost/modalities/chat/submit', {
 *   method: 'POST',
 *   headers: { 'content-type': 'application/json' },
 *   body: JSON.stringify({ role: 'user', content: 'Hi' }),
 * }))
 * res.status // 201
 *
 * @since 0.1.0
 * @category http
 */
export const createChatHandler = (store: ChatStore, options: ChatHandlerOptions = {}): (request: Request) => Promise<Response> => {
  const base = normaliseBase(options.basePath)
  const limit = wholeOption(options.maxBodyBytes, { fallback: DEFAULT_MAX_BODY_BYTES })
  const { token, readToken } = options
  const hosts = options.allowedHosts ?? 'any'
  const simulator = options.simulator ?? true
  const refuse = async (request: Request, r: Refusal): Promise<Response> => {
    await request.body?.cancel().catch(() => undefined)
    return fail(r.status, r.code, r.message, {}, r.headers)
  }
  return async (request) => {
    try {
      const misdirected = checkHostAndOrigin(request, hosts)
      if (misdirected !== undefined) return await refuse(request, misdirected)
      // who is calling, before anything of the routes is told: a caller without a token learns nothing (not even which routes exist)
      let readOnly = false
      if (token !== undefined || readToken !== undefined) {
        const t = await checkToken(request, token, readToken)
        if (typeof t !== 'string') return await refuse(request, t)
        readOnly = t === 'read'
      }
      const url = new URL(request.url)
      const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname
      const local = base === '' ? path : path === base ? '/' : path.startsWith(`${base}/`) ? path.slice(base.length) : undefined
      const known = local !== undefined && Object.prototype.hasOwnProperty.call(routes, local) && (simulator || !SIMULATOR_ROUTES.includes(local))
      const candidates = known ? routes[local] : undefined
      if (candidates === undefined) {
        const off = local !== undefined && SIMULATOR_ROUTES.includes(local)
        return await refuse(request, {
          status: 404,
          code: 'not_found',
          message: `No route ${request.method} ${url.pathname}${off ? ' (the simulator routes are off on this server)' : ''}`,
        })
      }
      const route = candidates.find((r) => r.method === request.method)
      if (route === undefined) {
        const allow = candidates.map((r) => r.method).join(', ')
        return fail(405, 'method_not_allowed', `${request.method} is not allowed on ${url.pathname} (allowed: ${allow})`, {}, { allow })
      }
      let access: Access = { all: true }
      if (options.authorize !== undefined) {
        const d = await options.authorize(request)
        if (d.type === 'deny') {
          await request.body?.cancel().catch(() => undefined)
          return fail(
            d.status,
            d.status === 401 ? 'unauthorized' : 'forbidden',
            d.message ?? (d.status === 401 ? 'Authentication required' : 'Not allowed'),
            {},
            d.headers,
          )
        }
        if (d.conversations !== undefined && d.conversations !== 'all') access = { all: false, ids: new Set(d.conversations) }
        readOnly ||= d.readOnly === true
      }
      if (readOnly && route.writes === true)
        return await refuse(request, {
          status: 403,
          code: 'read_only',
          message: `${request.method} ${url.pathname} changes the store: a read-only token may not`,
        })
      const response = await route.run({ store, access, request, url, limit })
      // a durable store answers only once what the response tells is in its log
      if (store.flush !== undefined) {
        try {
          await store.flush()
        } catch (e) {
          // 507 while a disk is full (writes are taken again once there is space); 503 otherwise
          if (isStoreError(e) && writeFailureStatus(e) === 507) return fail(507, 'insufficient_storage', e.message, {}, { 'retry-after': '5' })
          return fail(503, 'store_unavailable', e instanceof Error ? e.message : String(e), {}, { 'retry-after': '1' })
        }
      }
      return response
    } catch (e) {
      // a durable store that cannot keep the step: 507 while its disk is full, 503 once it takes no writes
      const status = isStoreError(e) ? writeFailureStatus(e) : undefined
      if (isStoreError(e) && status !== undefined)
        return fail(status, status === 507 ? 'insufficient_storage' : 'store_unavailable', e.message, {}, status === 507 ? { 'retry-after': '5' } : {})
      // a durable store that has failed (its lease lost, its log unwritable) refuses every step: 503, as its flush would be
      const down = store.failed?.()
      if (down !== undefined) return fail(503, 'store_unavailable', down.message, {}, { 'retry-after': '1' })
      return fail(500, 'internal_error', 'The request could not be handled')
    }
  }
}
