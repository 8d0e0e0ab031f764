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
import { type ChatHandlerOptions, createChatHandler } from '../http.ts'
import { openDurableStore } from '../store/durable.ts'
import { type DurableObjectStorageLike, sqlStorage } from './sql-storage.ts'

export * from './sql-storage.ts'

/**
 * The part of a Durable Object's state the store's object uses (`ctx`).
 *
 * @since 0.2.0
 * @category cloudflare
 */
export type DurableObjectStateLike = {
  readonly storage: DurableObjectStorageLike
  readonly blockConcurrencyWhile: <T>(callback: () => Promise<T>) => Promise<T>
}

/**
 * Options of the store's Durable Object class: the HTTP handler's, and records between snapshots.
 *
 * @since 0.2.0
 * @category cloudflare
 */
export type ChatStoreObjectOptions = ChatHandlerOptions & { readonly snapshotEvery?: number }

/**
 * A Durable Object class answering a chat store's routes.
 *
 * @since 0.2.0
 * @category cloudflare
 */
export type ChatStoreObjectClass = new (ctx: DurableObjectStateLike, env?: unknown) => { fetch(request: Request): Promise<Response> }

/**
 * A Durable Object class holding one chat store (its log and snapshots in the object's SQLite
 * storage), answering the store's routes. The store is recovered before the first request is let
 * in; each answer leaves once what it reports is stored.
 *
 * @example
 * import { chatStoreObject } from 'chatfold/cloudflare'
 * export const ChatStoreObject = chatStoreObject({ maxBodyBytes: 256 * 1024 })
 *
 * @since 0.2.0
 * @category cloudflare
 */
export const chatStoreObject = (options: ChatStoreObjectOptions = {}): ChatStoreObjectClass => {
  const { snapshotEvery, ...handlerOptions } = options
  return class ChatStoreObject {
    readonly #handler: Promise<(request: Request) => Promise<Response>>
    constructor(ctx: DurableObjectStateLike, _env?: unknown) {
      this.#handler = ctx.blockConcurrencyWhile(async () => {
        const store = await openDurableStore(sqlStorage(ctx.storage))(snapshotEvery === undefined ? {} : { snapshotEvery })
        return createChatHandler(store, handlerOptions)
      })
    }
    async fetch(request: Request): Promise<Response> {
      return (await this.#handler)(request)
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
 * @since 0.2.0
 * @category cloudflare
 */
export const ChatStoreObject: ChatStoreObjectClass = chatStoreObject()

/**
 * The part of a Durable Object namespace binding the Worker uses.
 *
 * @since 0.2.0
 * @category cloudflare
 */
export type DurableObjectNamespaceLike = {
  readonly idFromName: (name: string) => unknown
  readonly get: (id: never) => { fetch: (request: Request) => Promise<Response> }
}

const notFound = (message: string): Response =>
  new Response(JSON.stringify({ error: { status: 404, code: 'not_found', message } }), { status: 404, headers: { 'content-type': 'application/json; charset=utf-8' } })

/** A store id: a non-empty name of at most 256 characters without control characters or slashes. */
const isStoreId = (id: string): boolean => id.length > 0 && id.length <= 256 && !/[\u0000-\u001f\u007f/]/.test(id)

/**
 * A Worker module's default export: its `fetch` handler.
 *
 * @since 0.2.0
 * @category cloudflare
 */
export type ChatStoreWorker = { readonly fetch: (request: Request, env: Readonly<Record<string, unknown>>) => Promise<Response> }

/**
 * A Worker that routes `/stores/<store id>/<route>` to the Durable Object of that store (found by
 * name in the `binding` namespace, `CHAT_STORE` by default), which answers `/<route>`.
 *
 * @example
 * import { chatStoreWorker } from 'chatfold/cloudflare'
 * export default chatStoreWorker({ binding: 'CHAT_STORE' })
 * // POST /stores/support-42/modalities/chat/submit → the object of store "support-42"
 *
 * @since 0.2.0
 * @category cloudflare
 */
export const chatStoreWorker = (options: { readonly binding?: string; readonly prefix?: string } = {}): ChatStoreWorker => {
  const binding = options.binding ?? 'CHAT_STORE'
  const prefix = (options.prefix ?? '/stores').replace(/\/+$/, '')
  return {
    async fetch(request: Request, env: Readonly<Record<string, unknown>>): Promise<Response> {
      const url = new URL(request.url)
      if (!url.pathname.startsWith(`${prefix}/`)) return notFound(`No route ${url.pathname}: stores are under ${prefix}/<store id>/`)
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
      return ns.get(ns.idFromName(id) as never).fetch(new Request(target, request))
    },
  }
}
