/**
 * The handler options a server of the chat store runs with on a host (shared by the file-backed
 * `serveChatStore` and the PostgreSQL server; not an entry's export).
 *
 * @module
 */
import type { ChatHandlerOptions } from '../store/http.ts'
import { generateToken, isLoopback, LOOPBACK_HOSTS } from '../store/http-guard.ts'

/** Whether an address listens on every interface. */
export const isWildcard = (host: string): boolean => ['0.0.0.0', '::', '[::]', ''].includes(host)

/**
 * The handler options a server on `host` runs with: the token (made when beyond loopback and
 * none given), the hosts `Host` may name, the simulator off unless asked.
 */
export const guarded = (host: string, given: ChatHandlerOptions, log: (line: string) => void): ChatHandlerOptions => {
  let token = given.token
  if (!isLoopback(host) && token === undefined) {
    token = generateToken()
    log(`chatfold: listening beyond loopback needs a token; made one: ${token}`)
    log('chatfold: (set --token or CHATFOLD_TOKEN to choose it; send it as Authorization: Bearer <token>)')
  }
  const named = given.allowedHosts
  const allowedHosts =
    named === 'any' ? 'any' : named !== undefined ? [...LOOPBACK_HOSTS, ...named] : isWildcard(host) ? 'any' : [...new Set([...LOOPBACK_HOSTS, host.replace(/^\[|\]$/g, '')])]
  return { ...given, ...(token === undefined ? {} : { token }), allowedHosts, simulator: given.simulator ?? false }
}
