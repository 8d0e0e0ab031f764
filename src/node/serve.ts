/**
 * Serving the chat store's HTTP API on Node with the file backend (and its Durable Streams under
 * `/streams`, kept in `<dataDir>/streams`): the store is recovered from
 * its directory (latest snapshot, then the log's tail), every accepted request is flushed to disk
 * before it is answered 2xx, and SIGINT/SIGTERM close the server and the log cleanly. What
 * `chatfold serve` runs.
 *
 * @module
 */
import { join, resolve } from 'node:path'
import { type ChatHandlerOptions, createChatHandler } from '../store/http.ts'
import { type DurableChatStore, openDurableStore } from '../store/durable.ts'
import { isStoreError, writeFailureStatus } from '../store/failure.ts'
import { fileStorage } from './file-storage.ts'
import type { RunningServer, ServeOptions } from './http.ts'
import { serveGuarded } from './serve-guard.ts'
import { openStreamsHandler } from '../streams/handler.ts'
import { mirrorConversations } from '../streams/conversations.ts'
import { fileStreamsStorage } from './streams-file.ts'

/**
 * Options of `serveChatStore`: the data directory, the port (8787 by default; 0 for a free one),
 * the host (127.0.0.1 by default), records between snapshots, the handler's options, where to
 * print (stderr lines by default), whether SIGINT/SIGTERM stop it (true by default), and the
 * server's own limits (`ServeOptions`: timeouts, requests at once, bodies per client, the budget
 * for sending answers).
 *
 * Who may call: `handler.token` (every route) and `handler.readToken` (reads only). Bound to a
 * loopback address (127.0.0.0/8, ::1: the address `host` resolved to, never judged by its name)
 * no token is asked unless one is given; bound beyond loopback it always asks one, and makes and
 * prints one when none is given. `Host` must name the server (a loopback name, `host` as given,
 * the address it listens on, or one of `handler.allowedHosts`; any host when it listens on every
 * interface without a list, where the token is what guards it); a foreign `Origin` is refused. The simulator routes are off unless `handler.simulator` is true.
 *
 * @since 0.1.0
 * @category http
 */
export type ServeChatStoreOptions = {
  readonly dataDir: string
  readonly port?: number
  readonly host?: string
  readonly snapshotEvery?: number
  readonly handler?: ChatHandlerOptions
  readonly log?: (line: string) => void
  readonly handleSignals?: boolean
  readonly serve?: Omit<ServeOptions, 'port' | 'hostname'>
}

/**
 * A served durable store: the server (its URL, `close()`), and the store.
 *
 * @since 0.1.0
 * @category http
 */
export type ServedChatStore = RunningServer & { readonly store: DurableChatStore }

/** Whether a request's path is under `/streams` (the Durable Streams endpoint). */
const isStreamsPath = (pathname: string): boolean => pathname === '/streams' || pathname.startsWith('/streams/')

/**
 * Recovers the store in `dataDir` and serves its HTTP API; prints what it recovered and where it
 * listens. Nothing is acknowledged before it is in the log the next start reads. A full disk (or
 * a log file at the largest size allowed, EFBIG) is answered 507 for writes, reads still served,
 * until there is room; a log changed behind the server (removed, replaced, truncated or appended
 * to by another program), a LOCK no longer its own, or a medium that refuses writes (read-only,
 * EROFS, EACCES, EPERM) is answered 503 for every write from then on, saying why, reads still
 * served; each is told once on the log. Any other failure to write the log stops the process
 * (exit 1): the next start recovers what was acknowledged.
 *
 * @example
 * import { serveChatStore } from 'chatfold/node'
 * const served = await serveChatStore({ dataDir: './chat-data', port: 8787 })
 * // chatfold: recovered 0 messages … · chatfold: listening on http://127.0.0.1:8787
 * await served.close()
 *
 * @since 0.1.0
 * @category http
 */
export const serveChatStore = async (options: ServeChatStoreOptions): Promise<ServedChatStore> => {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`))
  const dir = resolve(options.dataDir)
  const store = await openDurableStore(fileStorage(dir))(options.snapshotEvery === undefined ? {} : { snapshotEvery: options.snapshotEvery })
  const r = store.recovery
  for (const line of r.repaired) log(`chatfold: ${line}`)
  log(
    r.seq === 0
      ? `chatfold: a new store in ${dir}`
      : `chatfold: recovered ${r.messages} message${
        r.messages === 1 ? '' : 's'
      } from ${dir} (snapshot at record ${r.snapshotSeq}, ${r.replayed} records replayed)`,
  )
  if (r.readOnly !== undefined) log(`chatfold: ${r.readOnly}: queries are served, writes answered 503`)
  /** The write failure last told (a full disk, a lost log), so that a run of refused writes is told once. */
  let told: string | undefined
  const flush = () =>
    store.flush().catch((e: unknown) => {
      if (isStoreError(e) && writeFailureStatus(e) !== undefined) {
        if (told !== e.message) log(`chatfold: ${e.message}`)
        told = e.message
        throw e
      }
      log(`chatfold: ${e instanceof Error ? e.message : String(e)}; stopping`)
      process.exit(1)
    })
  const streamsStorage = fileStreamsStorage(join(dir, 'streams'))
  const streams = await openStreamsHandler(streamsStorage, { basePath: '/streams' }).catch(async (e: unknown) => {
    await store.close()
    throw e
  })
  const stopMirror = mirrorConversations(store, streams)
  const running = await serveGuarded({
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 8787,
    ...(options.serve === undefined ? {} : { serve: options.serve }),
    handler: options.handler ?? {},
    make: (handlerOptions) => {
      const chat = createChatHandler({ ...store, flush }, handlerOptions)
      const gate = {
        ...(handlerOptions.token === undefined ? {} : { token: handlerOptions.token }),
        ...(handlerOptions.readToken === undefined ? {} : { readToken: handlerOptions.readToken }),
        ...(handlerOptions.allowedHosts === undefined ? {} : { allowedHosts: handlerOptions.allowedHosts }),
      }
      const served = streams.gated(gate)
      return (request: Request) => (isStreamsPath(new URL(request.url).pathname) ? served(request) : chat(request))
    },
    release: async () => {
      stopMirror()
      await streams.close()
      await store.close()
    },
    log,
    ...(options.handleSignals === undefined ? {} : { handleSignals: options.handleSignals }),
  })
  return { ...running, store }
}
