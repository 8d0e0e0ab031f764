/**
 * A fleet of `chatfold serve --postgres` processes on one database, for the scale test and the
 * bench: which of them listen now, one picked for a request (waiting for one to listen when none
 * does), and a SIGKILL of one that starts it again on the same database. Everything is driven by
 * events: a process is down from the moment it is killed (or exits) and up from the moment it
 * prints where it listens; `changed` resolves on the next such change.
 */
import { type Child, servedEnv, startChild, stopChild } from '../../support/served-store.ts'

export type FleetOptions = {
  /** The `chatfold` bin to run with node (bin/chatfold.mjs, or a bundled one). */
  readonly bin: string
  /** The database's URL. */
  readonly url: string
  readonly size: number
  /** More arguments of `chatfold serve` (`--snapshot-every 100`). */
  readonly args?: ReadonlyArray<string>
}

export type Fleet = {
  readonly size: number
  /** The URL of process `i`, when it listens. */
  readonly urlOf: (i: number) => string | undefined
  /** The processes listening now. */
  readonly up: () => ReadonlyArray<number>
  /** A listening process's URL, the `n`-th of those up (modulo), waiting for one to listen when none does. */
  readonly pick: (n: number) => Promise<string>
  /** SIGKILLs process `i` (down at once), waits for it to exit, starts it again; resolves once it listens. */
  readonly kill: (i: number) => Promise<void>
  /** Resolves on the next change: a process down or up. */
  readonly changed: () => Promise<void>
  /** What processes printed when they exited unasked (none, when all is well). */
  readonly unaskedExits: () => ReadonlyArray<string>
  readonly stop: () => Promise<void>
}

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)\n/

/** Starts `size` servers on the database at once (they migrate it and create the store once between them) and resolves when all listen. */
export const startFleet = async (o: FleetOptions): Promise<Fleet> => {
  const start = () =>
    startChild(process.execPath, [o.bin, 'serve', '--port', '0', '--postgres', o.url, ...(o.args ?? [])], LISTENING, {
      env: servedEnv(),
      // a start waits on a busy machine's cores: the limit only stops a hang
      timeoutMs: 300_000,
    })
  const children: Array<(Child & { readonly match: RegExpExecArray }) | undefined> = []
  const urls: Array<string | undefined> = []
  const asked = new Set<number>()
  const unasked: string[] = []
  let waiters: Array<() => void> = []
  const signal = () => {
    const w = waiters
    waiters = []
    for (const f of w) f()
  }
  const changed = () => new Promise<void>((resolve) => waiters.push(resolve))
  const watch = (i: number, c: Child & { readonly match: RegExpExecArray }) => {
    children[i] = c
    urls[i] = c.match[1]
    c.process.once('exit', (code, sig) => {
      if (children[i] !== c) return
      urls[i] = undefined
      if (!asked.has(c.process.pid ?? -1)) unasked.push(`process ${i} exited (${code ?? sig}):\n${c.output().slice(-2000)}`)
      signal()
    })
    signal()
  }
  const first = await Promise.all(Array.from({ length: o.size }, () => start()))
  first.forEach((c, i) => watch(i, c))
  const up = () => urls.flatMap((u, i) => (u === undefined ? [] : [i]))
  return {
    size: o.size,
    urlOf: (i) => urls[i],
    up,
    pick: async (n) => {
      for (;;) {
        const live = up()
        const url = live.length === 0 ? undefined : urls[live[n % live.length] as number]
        if (url !== undefined) return url
        await changed()
      }
    },
    kill: async (i) => {
      const c = children[i]
      if (c === undefined) throw new Error(`no process ${i}`)
      asked.add(c.process.pid ?? -1)
      urls[i] = undefined
      signal()
      await stopChild(c.process, 'SIGKILL')
      watch(i, await start())
    },
    changed,
    unaskedExits: () => unasked,
    stop: async () => {
      for (const c of children) if (c !== undefined) asked.add(c.process.pid ?? -1)
      await Promise.all(children.map((c) => (c === undefined ? undefined : stopChild(c.process, 'SIGKILL'))))
    },
  }
}
