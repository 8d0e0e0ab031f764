/**
 * chatfold on Deno (`chatfold/deno`): the chat store kept in Deno KV, and a `deno serve` module
 * serving its HTTP API.
 *
 * ```ts
 * // serve.ts — deno serve --unstable-kv --allow-read --allow-write serve.ts
 * import { kvChatServer } from 'chatfold/deno'
 * export default kvChatServer({ path: './chat-data.sqlite3' })
 * ```
 *
 * @module
 */
import { type ChatHandlerOptions, createChatHandler } from '../http.ts'
import { openDurableStore } from '../store/durable.ts'
import { type KvLike, kvStorage } from './kv-storage.ts'

export * from './kv-storage.ts'

/**
 * Options of `kvChatServer`: the KV database's path (Deno's default database when absent), the
 * store's id in it, records between snapshots, and the HTTP handler's options.
 *
 * @since 0.2.0
 * @category deno
 */
export type KvChatServerOptions = ChatHandlerOptions & {
  readonly path?: string
  readonly storeId?: string
  readonly snapshotEvery?: number
}

const openKv = (path: string | undefined): Promise<KvLike> => {
  const deno = (globalThis as { Deno?: { openKv?: (path?: string) => Promise<KvLike> } }).Deno
  if (deno?.openKv === undefined) throw new Error('Deno KV is not available: run with `deno serve --unstable-kv` (or `deno run --unstable-kv`)')
  return path === undefined ? deno.openKv() : deno.openKv(path)
}

/**
 * A `deno serve` module (`{ fetch }`) serving a chat store kept in Deno KV. Nothing happens at
 * import: the database opens and the store recovers on the first request, which the others wait
 * for; every answer leaves once what it reports is committed.
 *
 * @example
 * import { kvChatServer } from 'chatfold/deno'
 * export default kvChatServer({ path: './chat-data.sqlite3', storeId: 'support' })
 *
 * @since 0.2.0
 * @category deno
 */
export const kvChatServer = (options: KvChatServerOptions = {}): { readonly fetch: (request: Request) => Promise<Response> } => {
  const { path, storeId, snapshotEvery, ...handlerOptions } = options
  let handler: Promise<(request: Request) => Promise<Response>> | undefined
  const open = async () => {
    const store = await openDurableStore(kvStorage(await openKv(path), storeId))(snapshotEvery === undefined ? {} : { snapshotEvery })
    return createChatHandler(store, handlerOptions)
  }
  return {
    fetch: async (request) => {
      handler ??= open().catch((e: unknown) => {
        handler = undefined
        throw e
      })
      return (await handler)(request)
    },
  }
}
