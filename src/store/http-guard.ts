/**
 * What the chat handler checks before a route runs, with Web-standard APIs only: the `Host` a
 * request names (a page that rebinds its own DNS name to the server names itself, not the
 * server), its `Origin` (a page elsewhere may send, but is refused), and its bearer token,
 * compared in constant time (SHA-256 of both sides, then every byte), full or read-only.
 *
 * @module
 */

/**
 * The host names of the local machine's loopback interface: what a server with no token accepts
 * in `Host` by default.
 *
 * @since 0.1.0
 * @category http
 */
export const LOOPBACK_HOSTS: ReadonlyArray<string> = ['localhost', '127.0.0.1', '::1']

/**
 * Whether an address or host name is the loopback interface (`localhost`, `127.0.0.0/8`, `::1`).
 *
 * @since 0.1.0
 * @category http
 */
export const isLoopback = (host: string): boolean => {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '')
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === '::ffff:127.0.0.1'
}

/**
 * A new random token (32 bytes from `crypto.getRandomValues`, base64url): what `chatfold serve`
 * makes when it listens beyond loopback and was given none.
 *
 * @example
 * import { generateToken } from 'chatfold/store'
 * generateToken().length // 43
 *
 * @since 0.1.0
 * @category http
 */
export const generateToken = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  let s = ''
  for (const b of bytes) s += String.fromCharCode(b)
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

const digest = async (s: string): Promise<Uint8Array> => new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(s)))

/**
 * Whether two secrets are equal, in a time that depends on neither: both are hashed (SHA-256),
 * then all 32 bytes of the hashes are compared.
 *
 * @since 0.1.0
 * @category http
 */
export const sameSecret = async (a: string, b: string): Promise<boolean> => {
  const [x, y] = await Promise.all([digest(a), digest(b)])
  let diff = 0
  for (let i = 0; i < x.length; i++) diff |= (x[i] as number) ^ (y[i] as number)
  return diff === 0
}

/** The host name of a `Host` value or URL host (`[::1]:8787` → `::1`), lower case. */
const hostName = (host: string): string => {
  const h = host.trim().toLowerCase()
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') < 0 ? undefined : h.indexOf(']'))
  const colon = h.indexOf(':')
  return (colon >= 0 && h.indexOf(':', colon + 1) < 0 ? h.slice(0, colon) : h).replace(/\.$/, '')
}

/** Why a request is refused before its route runs, or undefined. */
export type Refusal = { readonly status: 401 | 403 | 404; readonly code: string; readonly message: string; readonly headers?: Readonly<Record<string, string>> }

/**
 * Checks the `Host` (against `allowed` host names, port ignored; `'any'` skips it) and the
 * `Origin` (absent, or naming the host the request is sent to or an allowed one) of a request.
 */
export const checkHostAndOrigin = (request: Request, allowed: ReadonlyArray<string> | 'any'): Refusal | undefined => {
  const host = request.headers.get('host') ?? new URL(request.url).host
  if (allowed !== 'any' && !allowed.some((a) => hostName(a) === hostName(host))) {
    return { status: 403, code: 'host_not_allowed', message: `This server does not answer for host ${JSON.stringify(host.slice(0, 100))}` }
  }
  if (request.headers.get('sec-fetch-site') === 'cross-site') return { status: 403, code: 'origin_not_allowed', message: 'Cross-site requests are refused' }
  const origin = request.headers.get('origin')
  if (origin === null) return undefined
  let from: string | undefined
  try {
    from = origin === 'null' ? undefined : new URL(origin).host
  } catch {
    from = undefined
  }
  const ok = from !== undefined &&
    (from.toLowerCase() === host.trim().toLowerCase() || (allowed !== 'any' && allowed.some((a) => hostName(a) === hostName(from as string))))
  return ok ? undefined : { status: 403, code: 'origin_not_allowed', message: `Requests from origin ${JSON.stringify(origin.slice(0, 100))} are refused` }
}

/**
 * Checks the bearer token of a request: `full` for a match of `token`, `read` for one of
 * `readToken`, or a 401 refusal.
 */
export const checkToken = async (request: Request, token: string | undefined, readToken: string | undefined): Promise<'full' | 'read' | Refusal> => {
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')
  const given = m?.[1]
  // both comparisons always run, so the time taken says nothing about which token was close
  const [full, read] = await Promise.all([sameSecret(given ?? '', token ?? ''), sameSecret(given ?? '', readToken ?? '')])
  if (given !== undefined && token !== undefined && full) return 'full'
  if (given !== undefined && readToken !== undefined && read) return 'read'
  return {
    status: 401,
    code: 'unauthorized',
    message: given === undefined ? 'A bearer token is required (Authorization: Bearer <token>)' : 'The bearer token is not valid',
    headers: { 'www-authenticate': 'Bearer realm="chatfold"' },
  }
}

/**
 * What a handler in front of the store checks before anything else: the `Host` and `Origin` (against
 * `allowedHosts`, any when not given) and, when a token is set, the bearer token; the refusal, or
 * `undefined` to go on.
 */
export const checkGate = async (
  request: Request,
  options: { readonly allowedHosts?: ReadonlyArray<string> | 'any' | undefined; readonly token?: string | undefined; readonly readToken?: string | undefined },
): Promise<Refusal | undefined> => {
  const misdirected = checkHostAndOrigin(request, options.allowedHosts ?? 'any')
  if (misdirected !== undefined) return misdirected
  if (options.token === undefined && options.readToken === undefined) return undefined
  const t = await checkToken(request, options.token, options.readToken)
  return typeof t === 'string' ? undefined : t
}
