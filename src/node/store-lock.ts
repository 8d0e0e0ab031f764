/**
 * The `LOCK` file of a file-backed store's directory: one server at a time. It names the holder's
 * process id and, where Linux's `/proc` tells it, the process's start time, so that a lock left by
 * a server that died is taken over even when its id now belongs to another, unrelated process.
 *
 * @module
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { basename, join } from 'node:path'
import { StoreFailure } from '../store/failure.ts'

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as { code?: string }).code === 'EPERM'
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
  if (start !== undefined) return start === now
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
    return argv.some((a) => a.includes('chatfold')) || RUNTIMES.has(basename(argv[0] ?? ''))
  } catch {
    return true
  }
}

/** Directories this process holds. */
const held = new Set<string>()

/** What `lockStore` gives: the function that releases the lock, or why the directory cannot be written (a read-only store). */
export type StoreLock = { readonly release: () => void } | { readonly readOnly: string }

const READ_ONLY = new Set(['EROFS', 'EACCES', 'EPERM'])

/**
 * Takes the directory's lock file, or throws a `StoreFailure` (`locked`) naming the live server
 * that holds it. A lock left by a dead process, or naming a live process that is not the server
 * that wrote it, is taken over. On a directory that cannot be written (a read-only mount, no
 * permission) there is no lock to take: the store is read-only, and the reason says why.
 *
 * @example
 * import { lockStore } from './store-lock.ts'
 * const lock = lockStore('.')
 * if ('release' in lock) lock.release()
 *
 * @since 0.1.0
 * @category fs
 */
export const lockStore = (dir: string): StoreLock => {
  const file = join(dir, 'LOCK')
  if (held.has(file)) throw new StoreFailure('locked', `Cannot open the store in ${dir}: this process holds it already`)
  const start = startTime(process.pid)
  const content = start === undefined ? String(process.pid) : `${process.pid} ${start}`
  const release = () => {
    held.delete(file)
    try {
      if (readFileSync(file, 'utf8') === content) rmSync(file, { force: true })
    } catch {
      // already gone
    }
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx')
      writeSync(fd, content)
      closeSync(fd)
      held.add(file)
      return { release }
    } catch (e) {
      const code = (e as { code?: string }).code ?? ''
      if (READ_ONLY.has(code)) return { readOnly: `the store in ${dir} cannot be written (${code} on its LOCK file)` }
      if (code !== 'EEXIST') throw e
      let text = ''
      try {
        text = readFileSync(file, 'utf8')
      } catch {
        continue // removed meanwhile: try again
      }
      const [pidText, lockedStart] = text.trim().split(/\s+/)
      const holder = Number(pidText)
      const mine = holder === process.pid && !held.has(file)
      if (Number.isInteger(holder) && holder > 0 && !mine && isAlive(holder) && holdsIt(holder, lockedStart)) {
        throw new StoreFailure('locked', `Cannot open the store in ${dir}: process ${holder} holds it (${file})`)
      }
      try {
        rmSync(file, { force: true })
      } catch (r) {
        const rc = (r as { code?: string }).code ?? ''
        // a stale lock on a medium that is read-only now
        if (READ_ONLY.has(rc)) return { readOnly: `the store in ${dir} cannot be written (${rc} on its LOCK file)` }
        throw r
      }
    }
  }
  throw new StoreFailure('locked', `Cannot lock the store in ${dir}`)
}
