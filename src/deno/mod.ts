/**
 * chatfold on Deno (`chatfold/deno`): the chat store kept in Deno KV, and a `deno serve` module
 * serving its HTTP API.
 *
 * ```ts
 * // serve.ts — deno serve --unstable-kv --allow-read --allow-write --allow-env=CHATFOLD_TOKEN serve.ts
 * import { kvChatServer } from 'chatfold/deno'
 * export default kvChatServer({ path: './chat-data.sqlite3', token: Deno.env.get('CHATFOLD_TOKEN') })
 * ```
 *
 * @module
 */
import type { ChatHandlerOptions } from '../store/http.ts'
import { durableChatHandler, servedChatOptions } from '../store/http-durable.ts'
import { openDurableStore } from '../store/durable.ts'
import { type KvLike, kvStorage, newOwnerId } from './kv-storage.ts'
import { openStreamsHandler } from '../streams/handler.ts'
import { servedStreams } from '../streams/served.ts'
import { kvStreamsStorage } from './streams-kv.ts'

export * from './kv-storage.ts'
export * from './streams-kv.ts'

/**
 * Options of `kvChatServer`: the KV database's path (Deno's default database when absent), the
 * store's id in it, records between snapshots, the HTTP handler's options (`token`, `readToken`,
 * `allowedHosts`, `simulator`, …), and `requireToken` (true by default): without a token, every
 * request is a 503 saying to set one, unless `requireToken: false`, which serves loopback host
 * names only (`Host: localhost`, `127.0.0.1`, `[::1]`) and is meant for a machine's own use;
 * `leaseMs`, how long the store's lease lasts (3 s: what a restart after a crash may wait).
 *
 * @since 0.1.0
 * @category deno
 */
export type KvChatServerOptions = ChatHandlerOptions & {
  readonly path?: string
  readonly storeId?: string
  readonly snapshotEvery?: number
  readonly requireToken?: boolean
  readonly leaseMs?: number
}

const openKv = (path: string | undefined): Promise<KvLike> => {
  const deno = (globalThis as { Deno?: { openKv?: (path?: string) => Promise<KvLike> } }).Deno
  if (deno?.openKv === undefined) throw new Error('Deno KV is not available: run with `deno serve --unstable-kv` (or `deno run --unstable-kv`)')
  return path === undefined ? deno.openKv() : deno.openKv(path)
}

const notConfigured = (message: string) => async (): Promise<Response> =>
  new Response(JSON.stringify({ error: { status: 503, code: 'no_token', message } }), {
    status: 503,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  })

/**
 * A `deno serve` module (`{ fetch }`) serving a chat store kept in Deno KV, and the Durable
 * Streams protocol under `/streams/` (its log in the same database; each conversation readable as
 * `/streams/conversations/<id>`). Nothing happens at
 * import: the database opens and the store recovers on the first request, which the others wait
 * for; every answer leaves once what it reports is committed. One process owns a store (a lease
 * in KV): a second process on the same store answers 503 naming the owner, reads included, until
 * the owner stops; a commit that fails is a 503 and the next request reopens the store from KV.
 *
 * @example
 * import { kvChatServer } from 'chatfold/deno'
 * export default kvChatServer({ path: './chat-data.sqlite3', storeId: 'support', token: Deno.env.get('CHATFOLD_TOKEN') })
 *
 * @since 0.1.0
 * @category deno
 */
export const kvChatServer = (options: KvChatServerOptions = {}): { readonly fetch: (request: Request) => Promise<Response> } => {
  const { path, storeId, snapshotEvery, leaseMs, ...rest } = options
  const handlerOptions = servedChatOptions(rest)
  if (typeof handlerOptions === 'string') return { fetch: notConfigured(handlerOptions) }
  const owner = newOwnerId()
  // one handle on the database for the store and its streams (two handles on one file lock each
  // other out), open while the process serves: a store opened again takes it as it is
  let kv: Promise<KvLike> | undefined
  const database = (): Promise<KvLike> => {
    const opening = kv ?? openKv(path).then((db): KvLike => ({ get: (k) => db.get(k), list: (s) => db.list(s), atomic: () => db.atomic() }))
    kv = opening
    opening.catch(() => {
      if (kv === opening) kv = undefined
    })
    return opening
  }
  const open = async () =>
    openDurableStore(kvStorage(await database(), storeId, { owner, ...(leaseMs === undefined ? {} : { leaseMs }) }))(
      snapshotEvery === undefined ? {} : { snapshotEvery },
    )
  // its Durable Streams (and each conversation as one) under /streams, in the same database
  const streams = servedStreams(async () => openStreamsHandler(kvStreamsStorage(await database(), storeId ?? 'default')), handlerOptions)
  return { fetch: streams.route(durableChatHandler(streams.opened(open), handlerOptions)) }
}
