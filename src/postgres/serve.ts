/**
 * Serving the chat store's HTTP API on Node from PostgreSQL: what `chatfold serve --postgres URL`
 * runs, with the Durable Streams under `/streams` (`postgresStreamsStorage`), each conversation
 * published at `/streams/conversations/<id>` in the transaction of its commit. Any number of such
 * servers may share one database, each answering for every conversation and every stream; the
 * database orders the steps, and a request is answered 2xx only once its
 * transaction is committed. The schema is created or migrated on start. SIGINT/SIGTERM close the
 * server and the pool.
 *
 * @module
 */
import type { ChatHandlerOptions } from '../store/http.ts'
import type { RunningServer, ServeOptions } from '../node/http.ts'
import { serveGuarded } from '../node/serve-guard.ts'
import { postgresChatHandler } from './handler.ts'
import { openPostgresStore, type PostgresChatStore } from './store.ts'
import type { PostgresDriver } from './client.ts'
import { openClient } from './_connect.ts'
import { openStreamsHandler, type StreamsHandler } from '../streams/handler.ts'
import { isUnder } from '../streams/served.ts'
import { postgresStreamsStorage } from './streams.ts'
import { publishConversations } from './conversations.ts'

/**
 * Options of `servePostgresStore`: the database's URL (`postgres://user:password@host:5432/db`),
 * the store's name (`default`), the port (8787; 0 for a free one), the host (127.0.0.1), the
 * connections in the pool (10), the client library (`pg` or `postgres`; by default `pg` if it is
 * installed, else `postgres`), records between snapshots, the handler's options (who may call, as
 * for `serveChatStore`), where to print, whether SIGINT/SIGTERM stop it, and the server's limits.
 *
 * @since 0.1.0
 * @category postgres
 */
export type ServePostgresStoreOptions = {
  readonly url: string
  readonly store?: string
  readonly port?: number
  readonly host?: string
  readonly poolSize?: number
  readonly driver?: PostgresDriver
  readonly snapshotEvery?: number
  readonly handler?: ChatHandlerOptions
  readonly log?: (line: string) => void
  readonly handleSignals?: boolean
  readonly serve?: Omit<ServeOptions, 'port' | 'hostname'>
}

/** The URL without its password, to print. */
const shown = (url: string): string => {
  try {
    const u = new URL(url)
    u.password = u.password === '' ? '' : '***'
    return u.toString()
  } catch {
    return 'the database'
  }
}

/**
 * Opens the store in the PostgreSQL database at `url` (migrating the schema) and serves its HTTP
 * API; prints what it found and where it listens. Needs the `pg` or the `postgres` package.
 *
 * @example
 * import { servePostgresStore } from 'chatfold/postgres'
 * declare const url: string // postgres://chat:secret@127.0.0.1:5432/chat
 * const served = await servePostgresStore({ url, port: 8787 })
 * // chatfold: store "default" in postgres://chat@127.0.0.1:5432/chat (pg) at record 0 … · chatfold: listening on http://127.0.0.1:8787
 * await served.close()
 *
 * @since 0.1.0
 * @category postgres
 */
export const servePostgresStore = async (options: ServePostgresStoreOptions): Promise<RunningServer & { readonly store: PostgresChatStore }> => {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`))
  const db = await openClient(options.url, options.poolSize ?? 10, log, options.driver)
  const name = options.store ?? 'default'
  let store: PostgresChatStore
  let streams: StreamsHandler
  try {
    store = await openPostgresStore(db.client)({
      store: name,
      ...(options.snapshotEvery === undefined ? {} : { snapshotEvery: options.snapshotEvery }),
      beforeCommit: publishConversations(name),
    })
    streams = await openStreamsHandler(postgresStreamsStorage(db.client, { migrate: false }), { basePath: '/streams' })
  } catch (e) {
    await db.end().catch(() => undefined)
    throw e
  }
  const r = store.recovery
  log(
    `chatfold: store ${JSON.stringify(name)} in ${shown(options.url)} (${db.driver}) at record ${r.seq}: ${r.messages} message${
      r.messages === 1 ? '' : 's'
    } (snapshot at record ${r.snapshotSeq}, ${r.replayed} records replayed)`,
  )
  const running = await serveGuarded({
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 8787,
    ...(options.serve === undefined ? {} : { serve: options.serve }),
    handler: options.handler ?? {},
    make: (handlerOptions) => {
      const chat = postgresChatHandler(store, handlerOptions)
      const served = streams.gated({
        ...(handlerOptions.token === undefined ? {} : { token: handlerOptions.token }),
        ...(handlerOptions.readToken === undefined ? {} : { readToken: handlerOptions.readToken }),
        ...(handlerOptions.allowedHosts === undefined ? {} : { allowedHosts: handlerOptions.allowedHosts }),
      })
      return (request: Request) => (isUnder('/streams', new URL(request.url).pathname) ? served(request) : chat(request))
    },
    release: async () => {
      try {
        await streams.close()
        await store.close()
      } finally {
        await db.end()
      }
    },
    log,
    ...(options.handleSignals === undefined ? {} : { handleSignals: options.handleSignals }),
  })
  return { ...running, store }
}
