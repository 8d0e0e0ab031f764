/**
 * chatfold on Cloudflare (`chatfold/cloudflare`): a Durable Object class that holds one chat store
 * in its SQLite storage and answers the store's HTTP API, and a Worker that routes
 * `/stores/<store id>/…` to that store's object. One object per store is how stores scale: each
 * runs on its own, wherever Cloudflare places it.
 *
 * ```ts
 * // worker.ts
 * import { ChatStoreObject, chatStoreWorker } from 'chatfold/cloudflare'
 * export { ChatStoreObject }
 * export default chatStoreWorker({ binding: 'CHAT_STORE' })
 * ```
 *
 * @module
 */
import type { ChatHandlerOptions } from '../store/http.ts'
import { durableChatHandler, servedChatOptions } from '../store/http-durable.ts'
import { checkToken } from '../store/http-guard.ts'
import { openDurableStore } from '../store/durable.ts'
import { type DurableObjectStorageLike, sqlStorage } from './sql-storage.ts'
import { openStreamsHandler } from '../streams/handler.ts'
import { servedStreams } from '../streams/served.ts'
import { sqlStreamsStorage } from './streams-sql.ts'

export * from './sql-storage.ts'
export * from './streams-sql.ts'

/** A string secret or variable of the Worker's `env`, or undefined. */
const secret = (env: unknown, name: string): string | undefined => {
  const v = typeof env === 'object' && env !== null ? (env as Readonly<Record<string, unknown>>)[name] : undefined
  return typeof v === 'string' && v !== '' ? v : undefined
}

const randomOwner = (): string => Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('')

/**
 * The part of a Durable Object's state the store's object uses (`ctx`).
 *
 * @since 0.1.0
 * @category cloudflare
 */
export type DurableObjectStateLike = {
  readonly storage: DurableObjectStorageLike
  readonly blockConcurrencyWhile: <T>(callback: () => Promise<T>) => Promise<T>
}

/**
 * Options of the store's Durable Object class: the HTTP handler's (a `token` or `readToken` given
 * here wins over the Worker's `CHATFOLD_TOKEN` / `CHATFOLD_READ_TOKEN` secrets), records between
 * snapshots, and `requireToken` (true by default: with no token, every request is a 503 saying
 * to set the secret; false serves loopback host names only, for a local `workerd serve`), and
 * `leaseMs`, how long the store's lease lasts (3 s: what a restart after a crash may wait).
 *
 * @since 0.1.0
 * @category cloudflare
 */
export type ChatStoreObjectOptions = ChatHandlerOptions & { readonly snapshotEvery?: number; readonly requireToken?: boolean; readonly leaseMs?: number }

/**
 * A Durable Object class answering a chat store's routes.
 *
 * @since 0.1.0
 * @category cloudflare
 */
export type ChatStoreObjectClass = new (ctx: DurableObjectStateLike, env?: unknown) => { fetch(request: Request): Promise<Response> }

/**
 * A Durable Object class holding one chat store (its log and snapshots in the object's SQLite
 * storage), answering the store's routes, and the Durable Streams protocol under `/streams/` (its
 * log in the same storage; each conversation readable as `/streams/conversations/<id>`). The store is recovered on the first request, which the
 * others wait for; each answer leaves once what it reports is stored. Callers send the token of
 * the Worker's `CHATFOLD_TOKEN` secret (`CHATFOLD_READ_TOKEN` for reads only) as
 * `Authorization: Bearer <token>`; the simulator routes are off unless `simulator: true`. One
 * process owns a store (a lease row in its storage): another `workerd` on the same storage
 * answers 503 naming the owner, reads included; a failed write is a 503 and the next request
 * opens the store again from its storage.
 *
 * @example
 * import { chatStoreObject } from 'chatfold/cloudflare'
 * export const ChatStoreObject = chatStoreObject({ maxBodyBytes: 256 * 1024 })
 *
 * @since 0.1.0
 * @category cloudflare
 */
export const chatStoreObject = (options: ChatStoreObjectOptions = {}): ChatStoreObjectClass => {
  const { snapshotEvery, leaseMs, ...rest } = options
  return class ChatStoreObject {
    readonly #handler: (request: Request) => Promise<Response>
    constructor(ctx: DurableObjectStateLike, env?: unknown) {
      const handlerOptions = servedChatOptions({ token: secret(env, 'CHATFOLD_TOKEN'), readToken: secret(env, 'CHATFOLD_READ_TOKEN'), ...rest })
      if (typeof handlerOptions === 'string') {
        this.#handler = async () =>
          json(503, { error: { status: 503, code: 'no_token', message: `${handlerOptions} (a Worker secret: npx wrangler secret put CHATFOLD_TOKEN)` } })
        return
      }
      const owner = randomOwner()
      // its Durable Streams (and each conversation as one) under /streams, in the same storage
      const streams = servedStreams(() => openStreamsHandler(sqlStreamsStorage(ctx.storage)), handlerOptions)
      this.#handler = streams.route(durableChatHandler(
        streams.opened(() =>
          openDurableStore(sqlStorage(ctx.storage, { owner, ...(leaseMs === undefined ? {} : { leaseMs }) }))(
            snapshotEvery === undefined ? {} : { snapshotEvery },
          )
        ),
        handlerOptions,
      ))
    }
    async fetch(request: Request): Promise<Response> {
      return this.#handler(request)
    }
  }
}

/**
 * The store's Durable Object class with the default options: export it from your Worker under
 * the class name your configuration names (`ChatStoreObject`).
 *
 * @example
 * export { ChatStoreObject } from 'chatfold/cloudflare'
 *
 * @since 0.1.0
 * @category cloudflare
 */
export const ChatStoreObject: ChatStoreObjectClass = chatStoreObject()

/**
 * The part of a Durable Object namespace binding the Worker uses. Written as methods, so that a
 * namespace whose `get` takes its own id type (Cloudflare's `DurableObjectId`) is one.
 *
 * @since 0.1.0
 * @category cloudflare
 */
export type DurableObjectNamespaceLike = {
  idFromName(name: string): unknown
  get(id: unknown): { fetch: (request: Request) => Promise<Response> }
}

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } })

const notFound = (message: string): Response => json(404, { error: { status: 404, code: 'not_found', message } })

/** A store id: a non-empty name of at most 256 characters without control characters or slashes. */
// deno-lint-ignore no-control-regex -- an id holds no control character: the class names them
const isStoreId = (id: string): boolean => id.length > 0 && id.length <= 256 && !/[\u0000-\u001f\u007f/]/.test(id)

/**
 * A Worker module's default export: its `fetch` handler.
 *
 * @since 0.1.0
 * @category cloudflare
 */
export type ChatStoreWorker = { readonly fetch: (request: Request, env: Readonly<Record<string, unknown>>) => Promise<Response> }

/**
 * Options of the Worker: the namespace binding (`CHAT_STORE`), the path prefix (`/stores`), and who
 * may call, checked in the Worker before any store's object is woken: `token` and `readToken`
 * (the Worker's `CHATFOLD_TOKEN` / `CHATFOLD_READ_TOKEN` secrets by default), and `requireToken`
 * (true by default: with no token, every request is a 503 saying to set the secret; false passes
 * requests on to the objects, which then serve loopback host names only).
 *
 * @since 0.1.0
 * @category cloudflare
 */
export type ChatStoreWorkerOptions = {
  readonly binding?: string
  readonly prefix?: string
  readonly token?: string
  readonly readToken?: string
  readonly requireToken?: boolean
}

/**
 * A Worker that routes `/stores/<store id>/<route>` to the Durable Object of that store (found by
 * name in the `binding` namespace, `CHAT_STORE` by default), which answers `/<route>`. The token is
 * checked here first: a request without a valid one is answered 401 (503 when no token is set)
 * and wakes no object, so that unauthenticated requests cost no Durable Object requests or storage.
 *
 * @example
 * import { chatStoreWorker } from 'chatfold/cloudflare'
 * export default chatStoreWorker({ binding: 'CHAT_STORE' })
 * // POST /stores/support-42/modalities/chat/submit → the object of store "support-42"
 *
 * @since 0.1.0
 * @category cloudflare
 */
export const chatStoreWorker = (options: ChatStoreWorkerOptions = {}): ChatStoreWorker => {
  const binding = options.binding ?? 'CHAT_STORE'
  const prefix = (options.prefix ?? '/stores').replace(/\/+$/, '')
  return {
    async fetch(request: Request, env: Readonly<Record<string, unknown>>): Promise<Response> {
      const url = new URL(request.url)
      if (!url.pathname.startsWith(`${prefix}/`)) return notFound(`No route ${url.pathname}: stores are under ${prefix}/<store id>/`)
      // who may call, before any object is woken
      const token = options.token ?? secret(env, 'CHATFOLD_TOKEN')
      const readToken = options.readToken ?? secret(env, 'CHATFOLD_READ_TOKEN')
      if (token !== undefined || readToken !== undefined) {
        const t = await checkToken(request, token, readToken)
        if (typeof t !== 'string') {
          await request.body?.cancel().catch(() => undefined)
          return new Response(JSON.stringify({ error: { status: t.status, code: t.code, message: t.message } }), {
            status: t.status,
            headers: { 'content-type': 'application/json; charset=utf-8', ...t.headers },
          })
        }
      } else if (options.requireToken !== false) {
        return json(503, {
          error: {
            status: 503,
            code: 'no_token',
            message: 'This store is served without a token: set one (a Worker secret: npx wrangler secret put CHATFOLD_TOKEN)',
          },
        })
      }
      const rest = url.pathname.slice(prefix.length + 1)
      const slash = rest.indexOf('/')
      let id: string
      try {
        id = decodeURIComponent(slash < 0 ? rest : rest.slice(0, slash))
      } catch {
        return notFound(`No store ${JSON.stringify(rest.slice(0, slash < 0 ? undefined : slash))}`)
      }
      if (!isStoreId(id)) return notFound(`No store ${JSON.stringify(id)}: a store id is 1 to 256 characters, no control characters or slashes`)
      const ns = env[binding] as DurableObjectNamespaceLike | undefined
      if (ns === undefined) throw new Error(`The Worker has no Durable Object binding ${binding}`)
      const target = new URL(slash < 0 ? '/' : rest.slice(slash), url)
      target.search = url.search
      return ns.get(ns.idFromName(id)).fetch(new Request(target, request))
    },
  }
}
