/**
 * Where the machine's cores go during a window of a bench, from Linux's own accounting: each
 * thread's time on a core and its time runnable but waiting for one (`threadTimes`, from
 * `/proc/<pid>/task/<tid>/schedstat`, in ns), and the whole machine's busy time (`/proc/stat`).
 * For the browser bench, Chromium's threads are grouped by what they are: the page's main thread
 * (a renderer's main thread), the engine's workers (`DedicatedWorker`), the renderer's pool
 * (`ThreadPoolForeg…`: V8's garbage-collection helpers among others), the rest of the browser's
 * processes, and the rest of the machine (kernel threads included). Where `/proc` or its scheduler
 * statistics are missing (not Linux), `snapshot` answers `undefined` and nothing is shown.
 */
import { readdirSync, readFileSync } from 'node:fs'

/** A thread's time on a core and waiting for one (ms). */
export type Times = { readonly ran: number; readonly waited: number }
type Group = 'page' | 'workers' | 'pool' | 'browser'
/** A thread's group as read: a renderer's main thread is `main` until `between` tells the page's. */
export type ThreadGroup = Group | 'main'

export type Snapshot = {
  readonly at: number
  /** Per Chromium thread (`pid/tid`): its group and its times so far. */
  readonly threads: ReadonlyMap<string, { readonly group: ThreadGroup } & Times>
  /** The machine's busy time so far, every core (ms), and its number of cores. */
  readonly busy: number
  readonly cores: number
}

/** What a window cost, in ms: each group's time on a core and waiting for one, and the machine's. */
export type CoresWindow = {
  readonly elapsed: number
  readonly cores: number
  readonly groups: Readonly<Record<Group, Times>>
  /** Busy time of the machine outside Chromium (other processes, the kernel). */
  readonly rest: number
}

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

const USER_HZ = 100

const machine = (): { busy: number; cores: number } | undefined => {
  const stat = read('/proc/stat')
  if (stat === undefined) return undefined
  const lines = stat.split('\n')
  // user nice system idle iowait irq softirq steal …: busy is all but idle and iowait
  const f = (lines[0] ?? '').trim().split(/\s+/).slice(1).map(Number)
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0)
  const busy = total - (f[3] ?? 0) - (f[4] ?? 0)
  return { busy: (busy * 1000) / USER_HZ, cores: lines.filter((l) => /^cpu\d/.test(l)).length }
}

/** A renderer's main thread may be the page's (`between` tells which); its other threads by their names. */
const groupOf = (type: string, thread: string, isMain: boolean): ThreadGroup => {
  if (type !== 'renderer') return 'browser'
  if (isMain) return 'main'
  if (thread.startsWith('DedicatedWorker')) return 'workers'
  if (thread.startsWith('ThreadPoolForeg')) return 'pool'
  return 'browser'
}

/** A thread's time on a core and waiting for one so far (ms), from its schedstat; `undefined` where there is none. */
export const threadTimes = (pid: number | string, tid: number | string): Times | undefined => {
  const sched = read(`/proc/${pid}/task/${tid}/schedstat`)
  if (sched === undefined) return undefined
  const [ran = 0, waited = 0] = sched.trim().split(/\s+/).map(Number)
  return { ran: ran / 1e6, waited: waited / 1e6 }
}

/** The processes descending from `root` whose program is Chromium (not, say, a bundler's service). */
const browserProcesses = (root: number): string[] => {
  const children = new Map<string, string[]>()
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    const stat = read(`/proc/${pid}/stat`)
    if (stat === undefined) continue
    // the fields after the command's closing parenthesis: state, ppid, …
    const ppid = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] ?? ''
    children.set(ppid, [...(children.get(ppid) ?? []), pid])
  }
  const out: string[] = []
  const walk = (pid: string): void => {
    for (const c of children.get(pid) ?? []) {
      if (/chrom/i.test(read(`/proc/${c}/comm`) ?? '')) out.push(c)
      walk(c)
    }
  }
  walk(String(root))
  return out
}

/** Every thread of the Chromium processes this one started, with the machine's busy time. */
export const snapshot = (root: number = process.pid): Snapshot | undefined => {
  const m = machine()
  // a kernel without scheduler statistics has no schedstat files: nothing to show then
  if (m === undefined || read('/proc/self/schedstat') === undefined) return undefined
  const threads = new Map<string, { group: ThreadGroup } & Times>()
  for (const pid of browserProcesses(root)) {
    const cmd = read(`/proc/${pid}/cmdline`) ?? ''
    const type = /--type=([a-z-]+)/.exec(cmd)?.[1] ?? 'browser'
    let tids: string[]
    try {
      tids = readdirSync(`/proc/${pid}/task`)
    } catch {
      continue
    }
    for (const tid of tids) {
      const times = threadTimes(pid, tid)
      const comm = read(`/proc/${pid}/task/${tid}/comm`)
      if (times === undefined || comm === undefined) continue
      threads.set(`${pid}/${tid}`, { group: groupOf(type, comm.trim(), pid === tid), ...times })
    }
  }
  return { at: performance.now(), threads, busy: m.busy, cores: m.cores }
}

/**
 * What happened between two snapshots. The page's main thread is the renderer's main thread that
 * ran the most in between (a spare renderer's counts with the rest of Chromium). A thread that
 * ended in between is not counted (its time is lost with it).
 */
export const between = (a: Snapshot, b: Snapshot): CoresWindow => {
  const groups: Record<Group, { ran: number; waited: number }> = {
    page: { ran: 0, waited: 0 },
    workers: { ran: 0, waited: 0 },
    pool: { ran: 0, waited: 0 },
    browser: { ran: 0, waited: 0 },
  }
  const deltas = [...b.threads].map(([key, t]) => {
    const before = a.threads.get(key) ?? { ran: 0, waited: 0 }
    return { group: t.group, ran: t.ran - before.ran, waited: t.waited - before.waited }
  })
  const page = deltas.filter((d) => d.group === 'main').reduce<(typeof deltas)[number] | undefined>(
    (x, d) => (x === undefined || d.ran > x.ran ? d : x),
    undefined,
  )
  let chromium = 0
  for (const d of deltas) {
    const g = groups[d === page ? 'page' : d.group === 'main' ? 'browser' : d.group]
    g.ran += d.ran
    g.waited += d.waited
    chromium += d.ran
  }
  return { elapsed: b.at - a.at, cores: b.cores, groups, rest: Math.max(0, b.busy - a.busy - chromium) }
}
