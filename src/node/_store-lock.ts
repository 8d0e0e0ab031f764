/**
 * The `LOCK` file of a file-backed store's directory: one server at a time, whatever the timing.
 *
 * Node has no `flock`, so the lock is a file made atomically: its content (process id, the
 * process's start time where Linux's `/proc` tells it, a random token, the host name and the time
 * it was taken) is written to a file of its own and flushed, then hard-linked to `LOCK`. `link`
 * fails when `LOCK` exists, in one step, so a `LOCK` is never seen empty or half written, and of two
 * processes starting together exactly one links it. The holder keeps the file open, so its inode
 * cannot be reused while it lives, and checks before every append that `LOCK` is still that inode
 * (`checkLock`): a process that is no longer the owner stops writing.
 *
 * A `LOCK` whose holder is gone (its process id dead, or now another process: another start time,
 * or not a chatfold process) is taken over, in a way that cannot remove a live one: the taker first
 * links a claim named after the stale content (`LOCK.break-<hash>-<n>`; only one process can make a
 * name), reads `LOCK` again, and removes it only if it still holds that stale content. A claim whose
 * maker died is passed by the next number. A `LOCK` of another host cannot be judged (its process
 * is not ours to ask): it is refused, naming the host, and removed by hand once that server is gone.
 *
 * @module
 */
import { createHash, randomBytes } from 'node:crypto'
import { closeSync, fstatSync, fsyncSync, linkSync, openSync, readdirSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs'
import { hostname } from 'node:os'
import { basename, join } from 'node:path'
import { StoreError } from '../store/failure.ts'

const codeOf = (e: unknown): string => String((e as { code?: unknown }).code ?? '')

/** This host's name as a lock writes it (one word), or `-` where it may not be read (Deno without `--allow-sys`). */
const host = (): string => {
  try {
    return hostname().replace(/\s/g, '_') || '-'
  } catch {
    return '-'
  }
}

/** Whether a lock names another host: one that names none (`-`, or an older version's lock), or a process that cannot tell its own, is judged as this host's. */
const otherHost = (h: { readonly host: string | undefined }): boolean => h.host !== undefined && h.host !== '-' && host() !== '-' && h.host !== host()

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return codeOf(e) === 'EPERM'
  }
}

/** A process's start time (clock ticks since boot, field 22 of `/proc/<pid>/stat`), where `/proc` tells it. */
const startTime = (pid: number): string | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // the second field is the command in parentheses, which may hold spaces: count from after it
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields[19]
  } catch {
    return undefined
  }
}

/** The programs a chatfold server runs in (a lock of an older version names no start time: its holder is judged by its command). */
const RUNTIMES = new Set(['node', 'nodejs', 'deno', 'bun', 'tsx'])

/** Whether a live process `pid` can be the server that wrote a lock naming it (with `start`, its start time, if the lock has one). */
const holdsIt = (pid: number, start: string | undefined): boolean => {
  const now = startTime(pid)
  if (now === undefined) return true // no /proc: a live process is taken to be the holder
  if (start !== undefined && start !== '-') return start === now
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
    return argv.some((a) => a.includes('chatfold')) || RUNTIMES.has(basename(argv[0] ?? ''))
  } catch {
    return true
  }
}

/** A lock's content read back: who holds it (an older version wrote only the process id and start time). */
type Holder = { readonly pid: number; readonly start: string | undefined; readonly host: string | undefined; readonly since: string | undefined }

const parseHolder = (text: string): Holder => {
  const [pid, start, , host, since] = text.trim().split(/\s+/)
  return { pid: Number(pid), start, host, since }
}

const describe = (h: Holder): string =>
  `process ${h.pid} holds it${h.host === undefined ? '' : ` (on ${h.host}${h.since === undefined ? '' : `, since ${h.since}`})`}`

/** Whether the holder a lock names is a live server: a process of this host that is the one that wrote it; one of another host is taken to be. */
const isLive = (h: Holder): boolean => {
  if (otherHost(h)) return true
  // this process holds no LOCK of this directory (else `held` says so): one naming its id is an earlier process's
  if (h.pid === process.pid) return false
  return Number.isInteger(h.pid) && h.pid > 0 && isAlive(h.pid) && holdsIt(h.pid, h.start)
}

const readOr = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8')
  } catch (e) {
    if (codeOf(e) === 'ENOENT') return undefined
    throw e
  }
}

const unlinkQuietly = (file: string): void => {
  try {
    unlinkSync(file)
  } catch {
    // gone already
  }
}

const syncDirSync = (dir: string): void => {
  try {
    const fd = openSync(dir, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  } catch {
    // some platforms cannot flush a directory
  }
}

/** Directories this process holds. */
const held = new Set<string>()

/**
 * What `lockStore` gives: the held lock (`check` says why this process no longer holds it, if it
 * does not; `release` lets it go), or why the directory cannot be written (a read-only store).
 */
export type StoreLock = { readonly release: () => void; readonly check: () => string | undefined } | { readonly readOnly: string }

const READ_ONLY = new Set(['EROFS', 'EACCES', 'EPERM'])

/** What `link` fails with on a file system without hard links (FAT, exFAT, some network shares). */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'])

/**
 * Makes `target` hold `content`, failing with `EEXIST` when it exists: a hard link of the file
 * `mine` (whole at once), or, on a file system without hard links, the file created exclusively and
 * written (then it may be seen empty for a moment: an empty LOCK or claim is taken to be live).
 * Gives the descriptor of the file created that way, to keep or close.
 */
const place = (mine: string, target: string, content: string): number | undefined => {
  try {
    linkSync(mine, target)
    return undefined
  } catch (e) {
    if (!NO_LINKS.has(codeOf(e))) throw e
  }
  const fd = openSync(target, 'wx')
  try {
    writeSync(fd, content)
    fsyncSync(fd)
  } catch (e) {
    closeSync(fd)
    unlinkQuietly(target)
    throw e
  }
  return fd
}

/** A refusal for a LOCK or claim seen empty: being written on a file system without hard links, or left so by a start cut short. */
const emptyFailure = (dir: string, file: string): StoreError =>
  new StoreError(
    'locked',
    `Cannot open the store in ${dir}: ${file} is empty (being written by a starting server, or left by a start cut short, or by an older version): remove it by hand if no server runs`,
  )

/**
 * Removes the stale `LOCK` whose content is `stale`, if it still is (see the module): claims the
 * right to with a link named after that content, checks, removes. Throws `locked` when a live
 * process is taking it over already.
 */
const breakStale = (dir: string, file: string, mine: string, content: string, stale: string): void => {
  const hash = createHash('sha256').update(stale).digest('hex').slice(0, 16)
  const prefix = `LOCK.break-${hash}-`
  for (let n = 1; n <= 1000; n++) {
    const claim = join(dir, `${prefix}${n}`)
    try {
      const fd = place(mine, claim, content)
      if (fd !== undefined) closeSync(fd)
    } catch (e) {
      if (codeOf(e) !== 'EEXIST') throw e
      const other = readOr(claim)
      if (other === '') throw emptyFailure(dir, claim)
      if (other !== undefined && isLive(parseHolder(other))) {
        throw new StoreError('locked', `Cannot open the store in ${dir}: ${describe(parseHolder(other))}, taking over from a server that is gone (${file})`)
      }
      continue // its maker died: the next number
    }
    try {
      // only the maker of a claim on this content removes it: the content read now is still the stale one, or nothing is done
      if (readOr(file) === stale) unlinkSync(file)
    } finally {
      for (const n of readdirSync(dir)) if (n.startsWith(prefix)) unlinkQuietly(join(dir, n))
    }
    return
  }
  throw new StoreError('locked', `Cannot open the store in ${dir}: too many claims on its stale LOCK (${prefix}*)`)
}

/**
 * Takes the directory's lock file (see the module), or throws a `StoreError` (`locked`) naming
 * the live server that holds it (process id, host, since when). On a directory that cannot be
 * written (a read-only mount, no permission) there is no lock to take: the store is read-only,
 * and the reason says why.
 *
 * @example
 * import { lockStore } from './_store-lock.ts'
 * const lock = lockStore('.')
 * if ('release' in lock) lock.release()
 *
 * @since 0.1.0
 * @category fs
 */
export const lockStore = (dir: string): StoreLock => {
  const file = join(dir, 'LOCK')
  if (held.has(file)) throw new StoreError('locked', `Cannot open the store in ${dir}: this process holds it already`)
  const token = randomBytes(12).toString('hex')
  const content = `${process.pid} ${startTime(process.pid) ?? '-'} ${token} ${host()} ${new Date().toISOString()}\n`
  const mine = join(dir, `LOCK.new-${process.pid}-${token}`)
  let fd: number
  try {
    fd = openSync(mine, 'wx+')
  } catch (e) {
    const code = codeOf(e)
    if (READ_ONLY.has(code)) return { readOnly: `the store in ${dir} cannot be written (${code} on its LOCK file)` }
    throw e
  }
  let taken = false
  try {
    writeSync(fd, content)
    fsyncSync(fd)
    for (let attempt = 0; attempt < 20 && !taken; attempt++) {
      try {
        const made = place(mine, file, content)
        if (made !== undefined) {
          // no hard links: the LOCK made is the file to keep open
          closeSync(fd)
          fd = made
        }
        taken = true
      } catch (e) {
        if (codeOf(e) !== 'EEXIST') throw e
        const text = readOr(file)
        if (text === undefined) continue // removed meanwhile: try again
        if (text === '') throw emptyFailure(dir, file)
        const holder = parseHolder(text)
        if (isLive(holder)) {
          const other = otherHost(holder)
          throw new StoreError(
            'locked',
            `Cannot open the store in ${dir}: ${describe(holder)}${
              other ? '; a server of another host cannot be asked whether it runs: remove the LOCK by hand once it is stopped' : ''
            } (${file})`,
          )
        }
        breakStale(dir, file, mine, content, text)
      }
    }
    if (!taken) throw new StoreError('locked', `Cannot lock the store in ${dir}: its LOCK kept changing`)
  } catch (e) {
    closeSync(fd)
    throw e
  } finally {
    unlinkQuietly(mine)
  }
  syncDirSync(dir)
  const { dev, ino } = fstatSync(fd)
  held.add(file)
  // temporary files of starts that died before they linked theirs
  for (const n of readdirSync(dir)) {
    const m = /^LOCK\.new-(\d+)-[0-9a-f]+$/.exec(n)
    if (m !== null && !isAlive(Number(m[1]))) unlinkQuietly(join(dir, n))
  }
  /** Why `LOCK` is no longer this process's (the file kept open pins its inode: the same inode is the same file). */
  const check = (): string | undefined => {
    let now: { dev: number; ino: number }
    try {
      now = statSync(file)
    } catch (e) {
      return codeOf(e) === 'ENOENT' ? `its LOCK ${file} was removed` : `its LOCK ${file} cannot be read (${codeOf(e)})`
    }
    if (now.dev === dev && now.ino === ino) return undefined
    const text = readOr(file)
    return `its LOCK ${file} was replaced${text === undefined ? '' : `: ${describe(parseHolder(text))}`}`
  }
  let released = false
  const release = () => {
    if (released) return
    released = true
    held.delete(file)
    try {
      if (check() === undefined) unlinkSync(file)
    } catch {
      // already gone
    } finally {
      closeSync(fd)
    }
  }
  return { release, check }
}
