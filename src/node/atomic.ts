/**
 * Writing a file atomically (a temporary file flushed, then renamed over it), with the failure it
 * answers as data (`SessionFailure`). The session files of `chatfold/node` and the command line's
 * `-o` share it, apart from the session modules (which carry the store's), so that a command
 * writing a file loads only this.
 *
 * @module
 */
import { constants } from 'node:fs'
import { chmod, open, readdir, rename, stat, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { randomBytes } from 'node:crypto'
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../message/failure.ts'

// --- errors ---

/**
 * Why a session could not be saved or loaded: the file system refused (`io`, with Node's error
 * code), the content is not a valid session (`decode`, every bad line listed), or the last line
 * is torn and the caller asked to be told (`torn`).
 *
 * @since 0.1.0
 * @category fs
 */
export type SessionFailure =
  | { readonly kind: 'io'; readonly file: string; readonly message: string; readonly code?: string }
  | { readonly kind: 'decode'; readonly file: string; readonly failure: DecodeFailure }
  | { readonly kind: 'torn'; readonly file: string; readonly line: number }

export const ioError = (file: string, e: unknown): SessionFailure => {
  const code = (e as { code?: unknown } | null)?.code
  return { kind: 'io', file, message: e instanceof Error ? e.message : String(e), ...(typeof code === 'string' ? { code } : {}) }
}

/**
 * Renders a session error as one line.
 *
 * @example
 * import { formatSessionFailure } from 'chatfold/node'
 * formatSessionFailure({ kind: 'torn', file: 'chat.jsonl', line: 12 }) // 'chat.jsonl: line 12 is torn (a write cut short)'
 *
 * @since 0.1.0
 * @category fs
 */
export const formatSessionFailure = (e: SessionFailure): string =>
  e.kind === 'io'
    ? `${e.file}: ${e.message}`
    : e.kind === 'torn'
    ? `${e.file}: line ${e.line} is torn (a write cut short)`
    : `${e.file}: ${e.failure.map((i) => `${i.path === '' ? '(root)' : i.path}: expected ${i.expected}`).join('; ')}`

// --- writing ---

/** Flushes a directory entry (a rename or a new file) to disk, where the platform allows it. */
export const syncDirectory = async (dir: string): Promise<void> => {
  let fh: Awaited<ReturnType<typeof open>> | undefined
  try {
    fh = await open(dir, constants.O_RDONLY)
    await fh.sync()
  } catch (e) {
    const code = (e as { code?: unknown }).code
    // Windows cannot open or flush a directory; some file systems refuse: the rename still happened
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EACCES' && code !== 'ENOTSUP') throw e
  } finally {
    await fh?.close().catch(() => undefined)
  }
}

/**
 * Writes a file atomically: a temporary file in the same directory (keeping the old file's
 * permissions), flushed, renamed over `file`, then the directory flushed. Readers, and the file
 * after a crash, see the old content or the new, never a part.
 *
 * @example
 * import { writeAtomic } from 'chatfold/node'
 * await writeAtomic('notes.txt', 'hello\n') // right(undefined)
 *
 * @since 0.1.0
 * @category fs
 */
export const writeAtomic = async (file: string, data: string | Uint8Array): Promise<E.Either<SessionFailure, void>> => {
  const dir = dirname(file)
  const tmp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  let created = false
  await removeStaleTemps(file)
  inFlight.add(tmp)
  try {
    const mode = await stat(file).then(
      (s) => s.mode & 0o777,
      () => undefined,
    )
    const fh = await open(tmp, 'wx', mode ?? 0o644)
    created = true
    try {
      await fh.writeFile(data)
      await fh.sync()
    } finally {
      await fh.close()
    }
    if (mode !== undefined) await chmod(tmp, mode)
    await rename(tmp, file)
    created = false
    await syncDirectory(dir)
    return E.right(undefined)
  } catch (e) {
    if (created) await unlink(tmp).catch(() => undefined)
    return E.left(ioError(file, e))
  } finally {
    inFlight.delete(tmp)
  }
}

/** Temporary files this process is writing now. */
const inFlight = new Set<string>()

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Removes the temporary files a killed save of `file` left behind: those of a process that no longer
 * runs, or of this one but not being written now. A save in progress elsewhere keeps its file.
 */
export const removeStaleTemps = async (file: string): Promise<void> => {
  const dir = dirname(file)
  const prefix = `.${basename(file)}.`
  const names = await readdir(dir).catch(() => [] as string[])
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue
    const rest = name.slice(prefix.length)
    const path = join(dir, name)
    const m = /^(\d+)\.[0-9a-f]{12}\.tmp$/.exec(rest)
    if (m === null && !/^[0-9a-f]{12}\.tmp$/.test(rest)) continue
    if (m !== null && (inFlight.has(path) || (Number(m[1]) !== process.pid && isAlive(Number(m[1]))))) continue
    await unlink(path).catch(() => undefined)
  }
}
