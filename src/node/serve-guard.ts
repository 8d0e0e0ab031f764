/**
 * The handler options a server of the chat store runs with, decided by the address it bound
 * (shared by the file-backed `serveChatStore` and the PostgreSQL server; not an entry's export).
 *
 * @module
 */
import type { Server } from 'node:http'
import { type RunningServer, serve, type ServeOptions } from './http.ts'
import type { ChatHandlerOptions } from '../store/http.ts'
import { generateToken, LOOPBACK_HOSTS } from '../store/http-guard.ts'

/** Whether a bound address is every interface. */
const isWildcard = (address: string): boolean => address === '0.0.0.0' || address === '::'

/** Whether a bound address (numeric, as `server.address()` gives it) is the loopback interface: 127.0.0.0/8 or ::1. */
const isLoopbackAddress = (address: string): boolean => address === '::1' || /^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/i.test(address)

/** The numeric address a listening server bound (what `--host` resolved to), or `host` itself when the server cannot tell. */
export const boundAddress = (server: Server, host: string): string => {
  const bound = server.address()
  return typeof bound === 'object' && bound !== null ? bound.address : host
}

/**
 * The handler options a server bound to `address` (what `--host` resolved to, by the operating
 * system, never judged by its name) runs with: the token (made when beyond loopback and none
 * given), the hosts `Host` may name (loopback names, `--host` as given, the bound address, and
 * `allowedHosts`), the simulator off unless asked.
 */
export const guarded = (host: string, address: string, given: ChatHandlerOptions, log: (line: string) => void): ChatHandlerOptions => {
  let token = given.token
  if (!isLoopbackAddress(address) && token === undefined) {
    token = generateToken()
    log(`chatfold: listening beyond loopback (${host} is ${address}) needs a token; made one: ${token}`)
    log('chatfold: (set CHATFOLD_TOKEN to choose it; send it as Authorization: Bearer <token>)')
  }
  const named = given.allowedHosts
  const own = [...LOOPBACK_HOSTS, host.replace(/^\[|\]$/g, ''), address]
  const allowedHosts = named === 'any' || (named === undefined && isWildcard(address)) ? 'any' : [...new Set([...own, ...(named ?? [])])]
  return { ...given, ...(token === undefined ? {} : { token }), allowedHosts, simulator: given.simulator ?? false }
}

/** What `serveGuarded` serves: where, the handler made from the options the bound address decides, and what it releases. */
export type GuardedServing = {
  readonly host: string
  readonly port: number
  readonly serve?: Omit<ServeOptions, 'port' | 'hostname'>
  readonly handler: ChatHandlerOptions
  /** The request handler, made once the address is bound and the options are decided. */
  readonly make: (options: ChatHandlerOptions) => (request: Request) => Promise<Response>
  /** Releases the store (its lock, its pool): after the server closes, or when it cannot listen. */
  readonly release: () => Promise<void>
  readonly log: (line: string) => void
  /** Closes on SIGINT and SIGTERM, then exits (default true). */
  readonly handleSignals?: boolean
}

/**
 * Serves a chat store's handler on `host`: who may call is decided by the address bound (known
 * once listening; until then every request is answered 503), what it asks is told on the log, and
 * `close()` (or SIGINT/SIGTERM) closes the server, then releases the store. An address it cannot
 * listen on releases the store before the failure is told.
 */
export const serveGuarded = async (o: GuardedServing): Promise<RunningServer> => {
  let handler: (request: Request) => Promise<Response> = async () => new Response('Starting', { status: 503, headers: { 'retry-after': '1' } })
  const running = await serve((request) => handler(request), { ...o.serve, port: o.port, hostname: o.host }).catch(async (e: unknown) => {
    await o.release().catch(() => undefined)
    throw e
  })
  const options = guarded(o.host, boundAddress(running.server, o.host), o.handler, o.log)
  handler = o.make(options)
  const asks = options.token === undefined && options.readToken === undefined
    ? 'no token (loopback only)'
    : `a bearer token${options.readToken === undefined ? '' : ' (or the read-only one for reads)'}`
  o.log(`chatfold: asks ${asks}; simulator routes ${options.simulator === true ? 'on' : 'off'}`)
  o.log(`chatfold: listening on ${running.url}`)
  let closing: Promise<void> | undefined
  const close = (): Promise<void> => (closing ??= (async () => {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    await running.close()
    await o.release()
  })())
  const onSignal = (signal: NodeJS.Signals) => {
    o.log(`chatfold: ${signal}: closing`)
    close().then(
      () => process.exit(0),
      (e: unknown) => {
        o.log(`chatfold: ${e instanceof Error ? e.message : String(e)}`)
        process.exit(1)
      },
    )
  }
  if (o.handleSignals ?? true) {
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
  }
  return { ...running, close }
}
