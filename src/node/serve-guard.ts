/**
 * The handler options a server of the chat store runs with, decided by the address it bound
 * (shared by the file-backed `serveChatStore` and the PostgreSQL server; not an entry's export).
 *
 * @module
 */
import type { Server } from 'node:http'
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
