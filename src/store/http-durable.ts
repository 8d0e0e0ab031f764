/**
 * Serving a durable store that can fail and come back: the store is opened on the first request
 * (the others wait for it), a store that cannot be opened (its storage owned by another process,
 * or unreadable) is a 503 naming why, tried again a second later, and a store whose write failed
 * or whose storage another process took is dropped after the request that found it (answered
 * 503), so that the next request opens it again from what the storage holds: one failed commit
 * never leaves every later request failing. What the deployments on Deno KV and Durable Objects run.
 *
 * @module
 */
import { type ChatHandlerOptions, createChatHandler } from './http.ts'
import { checkGate, LOOPBACK_HOSTS, type Refusal } from './http-guard.ts'
import type { DurableChatStore } from './durable.ts'

/** How long a store that could not be opened is answered 503 before it is tried again. */
const RETRY_OPEN_MS = 1_000

const unavailable = (message: string): Response =>
  new Response(JSON.stringify({ error: { status: 503, code: 'store_unavailable', message } }), {
    status: 503,
    headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1' },
  })

const refused = (r: Refusal): Response =>
  new Response(JSON.stringify({ error: { status: r.status, code: r.code, message: r.message } }), {
    status: r.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...r.headers },
  })

type Open = { readonly store: DurableChatStore; readonly handler: (request: Request) => Promise<Response> }

/**
 * A fetch handler over a durable store that `open` opens when first needed and again after it
 * failed. The handler's checks (Host, Origin, token) run before the store is opened, so a caller
 * refused learns nothing of its state.
 *
 * @example
 * import { durableChatHandler, memoryStorage, openDurableStore } from 'chatfold/store'
 * const storage = memoryStorage()
 * const handler = durableChatHandler(() => openDurableStore(storage)(), { token: 'a-long-random-token' })
 * // export default { fetch: handler }
 *
 * @since 0.1.0
 * @category http
 */
export const durableChatHandler = (open: () => Promise<DurableChatStore>, options: ChatHandlerOptions = {}): (request: Request) => Promise<Response> => {
  let current: Promise<Open> | undefined
  let refusedUntil = 0
  let reason = ''
  return async (request) => {
    const gate = await checkGate(request, options)
    if (gate !== undefined) return refused(gate)
    if (current === undefined && Date.now() < refusedUntil) return unavailable(reason)
    current ??= open().then((store) => ({ store, handler: createChatHandler(store, options) }))
    const opening = current
    let served: Open
    try {
      served = await opening
    } catch (e) {
      if (current === opening) {
        current = undefined
        reason = `The store cannot be opened: ${e instanceof Error ? e.message : String(e)}`
        refusedUntil = Date.now() + RETRY_OPEN_MS
      }
      return unavailable(reason)
    }
    const response = await served.handler(request)
    if (served.store.failed() !== undefined && current === opening) {
      // its state in memory may be ahead of the storage: the next request opens it again
      current = undefined
      await served.store.close().catch(() => undefined)
    }
    return response
  }
}

/**
 * The handler options of a store served by an entry that cannot tell where it listens (Deno,
 * Cloudflare): with a token, any `Host` (the token guards it); with none, a refusal to serve,
 * unless `requireToken` is false, and then loopback host names only; the simulator routes off
 * unless asked. A string is the reason to refuse every request.
 *
 * @since 0.1.0
 * @category http
 */
export const servedChatOptions = (options: ChatHandlerOptions & { readonly requireToken?: boolean }): ChatHandlerOptions | string => {
  const { requireToken, token, readToken, ...rest } = options
  // an empty value (a variable set to nothing) is no token
  const handler: ChatHandlerOptions = { ...rest, ...(token ? { token } : {}), ...(readToken ? { readToken } : {}) }
  const tokenless = handler.token === undefined && handler.readToken === undefined
  if (tokenless && requireToken !== false)
    return 'This store is served without a token: set one (CHATFOLD_TOKEN), or pass requireToken: false to serve loopback host names only'
  return { ...handler, allowedHosts: handler.allowedHosts ?? (tokenless ? LOOPBACK_HOSTS : 'any'), simulator: handler.simulator ?? false }
}
