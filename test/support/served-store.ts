/**
 * What the store's deployment tests share: a served store that can be killed and restarted on
 * the same data (a Node server with the file backend, workerd with Durable Objects, deno serve
 * with Deno KV), child processes started and waited for, a small HTTP client, and the
 * kill-while-clients-submit run. Only 127.0.0.1; every wait bounded.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'

/** A store served by a child process: where it answers, and how to restart or stop it. */
export type ServedStore = {
  /** The store's base URL (routes are under it). */
  readonly url: () => string
  /** Stops the server (`kill`: SIGKILL, `clean`: SIGTERM) and starts it again on the same data. */
  readonly restart: (how: 'kill' | 'clean') => Promise<void>
  readonly stop: () => Promise<void>
}

/** A free TCP port on 127.0.0.1. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const a = s.address()
      s.close(() => (typeof a === 'object' && a !== null ? resolve(a.port) : reject(new Error('no port'))))
    })
  })

export type Child = { readonly process: ChildProcess; readonly output: () => string }

/** Starts a child and resolves once `ready` matches its output (stdout and stderr), within `timeoutMs`. */
export const startChild = (
  command: string,
  args: ReadonlyArray<string>,
  ready: RegExp,
  options: { readonly cwd?: string; readonly env?: NodeJS.ProcessEnv; readonly timeoutMs?: number } = {},
): Promise<Child & { readonly match: RegExpExecArray }> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let done = false
    const timer = setTimeout(() => {
      if (done) return
      done = true
      child.kill('SIGKILL')
      reject(new Error(`${command} did not start within ${options.timeoutMs ?? 30_000} ms:\n${out.slice(-2000)}`))
    }, options.timeoutMs ?? 30_000)
    const onData = (d: Buffer) => {
      out += d.toString()
      if (out.length > 200_000) out = out.slice(-100_000)
      const m = ready.exec(out)
      if (m !== null && !done) {
        done = true
        clearTimeout(timer)
        resolve({ process: child, output: () => out, match: m })
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code, signal) => {
      if (done) return
      done = true
      clearTimeout(timer)
      reject(new Error(`${command} exited (${code ?? signal}) before it was ready:\n${out.slice(-2000)}`))
    })
  })

/** Ends a child with `signal` and waits for it to exit (SIGKILL after 10 s). */
export const stopChild = (child: ChildProcess, signal: NodeJS.Signals): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill(signal)
  })

/** Waits until `url` answers any HTTP status (the server listens), within `timeoutMs`. */
export const waitUntilUp = async (url: string, timeoutMs = 30_000): Promise<void> => {
  const end = Date.now() + timeoutMs
  for (;;) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(2_000) })
      return
    } catch (e) {
      if (Date.now() > end) throw new Error(`${url} did not answer within ${timeoutMs} ms: ${String(e)}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }
}

// deno-lint-ignore no-explicit-any -- a JSON answer, read field by field
export type Reply = { readonly status: number; readonly body: any }

/** The token the served stores of the tests ask (given them as CHATFOLD_TOKEN), which `call` sends. */
export const TEST_TOKEN = 'chatfold-test-token-0123456789abcdef'

/** The environment of a served store's process: this one's, with the test token. */
export const servedEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...process.env, CHATFOLD_TOKEN: TEST_TOKEN, ...extra })

/** A JSON request to the store, with the test token (`token: null`: none). */
export const call = async (url: string, method: 'GET' | 'POST', path: string, body?: unknown, token: string | null = TEST_TOKEN): Promise<Reply> => {
  const res = await fetch(`${url}${path}`, {
    method,
    signal: AbortSignal.timeout(15_000),
    headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed }
}

// --- kill while clients submit ---

export type KillRunOptions = {
  readonly clients: number
  readonly perClient: number
  readonly kills: number
  /** A random extra delay before each kill, once the run has reached the kill's point: drawn in [min, max) ms. */
  readonly killEveryMs: readonly [number, number]
  readonly deadlineMs: number
  readonly seed: number
}

export type KillRun = {
  /** Message ids answered 201, or 409 to a retry after an answer was lost: they must be present. */
  readonly acknowledged: ReadonlySet<string>
  /** Message ids answered with an error (not 409 after a lost answer): they must be absent. */
  readonly refused: ReadonlySet<string>
  /** Message ids whose every answer was lost, within the deadline. */
  readonly unknown: ReadonlySet<string>
  readonly lostAnswers: number
  readonly kills: number
  readonly statuses: Readonly<Record<string, number>>
}

const mulberry = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** The message id and conversation of client `c`'s `n`-th message. */
export const messageOf = (c: number, n: number) => ({
  message_id: `c${c}-m${n}`,
  conversation_id: `client-${c}`,
  role: 'user',
  content: `message ${n} of client ${c}`,
})

/**
 * Runs `clients` clients, each submitting `perClient` messages one after another to its own
 * conversation (retrying a message whose answer was lost, with the same message id, until it gets
 * one), while the server is killed with SIGKILL `kills` times at random moments and restarted.
 */
export const killWhileSubmitting = async (served: ServedStore, o: KillRunOptions): Promise<KillRun> => {
  const random = mulberry(o.seed)
  const acknowledged = new Set<string>()
  const refused = new Set<string>()
  const unknown = new Set<string>()
  const statuses: Record<string, number> = {}
  let lostAnswers = 0
  let kills = 0
  let finished = false
  const end = Date.now() + o.deadlineMs
  // each client's last submit waits until the kills are done, so that every kill lands mid-run
  // however long a restart takes (with two servers, the other one may answer all the rest meanwhile)
  let releaseLast = (): void => undefined
  const killsDone = new Promise<void>((resolve) => (releaseLast = resolve))
  const clients = Array.from({ length: o.clients }, async (_, c) => {
    for (let n = 0; n < o.perClient && Date.now() < end; n++) {
      if (n === o.perClient - 1) await killsDone
      const m = messageOf(c, n)
      let lost = false
      for (;;) {
        if (Date.now() > end) {
          unknown.add(m.message_id)
          break
        }
        try {
          const r = await call(served.url(), 'POST', '/modalities/chat/submit', m)
          statuses[r.status] = (statuses[r.status] ?? 0) + 1
          if (r.status === 201 || (r.status === 409 && lost)) acknowledged.add(m.message_id)
          else refused.add(m.message_id)
          answered++
          break
        } catch {
          lost = true
          lostAnswers++
          await new Promise((r) => setTimeout(r, 20 + random() * 80))
        }
      }
    }
  })
  // kill at random points of the run's progress (not of the clock), so that every kill lands
  // mid-run however fast the machine: the k-th after about k/(kills+1) of the submits, ± a random share
  const total = o.clients * o.perClient
  let answered = 0
  const killer = (async () => {
    try {
      for (let k = 1; k <= o.kills && !finished && Date.now() < end; k++) {
        // no later than when every client waits on its last submit
        const at = Math.min(Math.floor(((k - 0.5 + random()) / (o.kills + 1)) * total), total - o.clients)
        while (answered < at && !finished && Date.now() < end) await new Promise((r) => setTimeout(r, 5))
        const [min, max] = o.killEveryMs
        await new Promise((r) => setTimeout(r, min + random() * (max - min)))
        if (finished) break
        await served.restart('kill')
        kills++
      }
    } finally {
      releaseLast()
    }
  })()
  await Promise.all(clients)
  finished = true
  await killer
  return { acknowledged, refused, unknown, lostAnswers, kills, statuses }
}
