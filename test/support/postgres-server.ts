/**
 * A throwaway PostgreSQL cluster for the tests that need a real server: Debian's `postgresql`
 * binaries (`/usr/lib/postgresql/<version>/bin`, or `CHATFOLD_PG_BIN`), a data directory in a
 * temporary directory, trust authentication, listening on 127.0.0.1 on a free port and on a socket
 * in that directory. As root, `initdb` and `pg_ctl` run as the `postgres` user (PostgreSQL refuses
 * to run as root). `stop` stops the server immediately and removes the directory.
 */
import { execFile } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from './served-store.ts'

const run = promisify(execFile)

export type PostgresServer = {
  /** The URL of a database on the server (`postgres` when no name is given). */
  readonly url: (database?: string) => string
  /** Creates a database and returns its URL. */
  readonly createDatabase: (name: string) => Promise<string>
  readonly stop: () => Promise<void>
}

/** The directory of Debian's PostgreSQL binaries (the newest installed), or undefined. */
export const postgresBin = (): string | undefined => {
  const given = process.env['CHATFOLD_PG_BIN']
  if (given !== undefined && existsSync(join(given, 'initdb'))) return given
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin')
}

/** Starts a cluster; `fsync: true` keeps PostgreSQL's flushes (a bench that compares it with a store that flushes), off otherwise (tests). */
export const startPostgres = async (options: { readonly fsync?: boolean } = {}): Promise<PostgresServer> => {
  const bin = postgresBin()
  if (bin === undefined) throw new Error('PostgreSQL is not installed (apt-get install postgresql), or set CHATFOLD_PG_BIN')
  const root = await mkdtemp(join(tmpdir(), 'chatfold-pg-'))
  const data = join(root, 'data')
  const asRoot = process.getuid?.() === 0
  // as root, the cluster belongs to the postgres user
  const as = (cmd: string, args: ReadonlyArray<string>) => (asRoot ? run('runuser', ['-u', 'postgres', '--', cmd, ...args]) : run(cmd, [...args]))
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres'])
    const uid = Number(stdout.trim())
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim())
    await chown(root, uid, gid)
    await chmod(root, 0o700)
  }
  const port = await freePort()
  await as(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'])
  const settings = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${root} -c fsync=${
    options.fsync === true ? 'on' : 'off'
  } -c max_connections=200`
  await as(join(bin, 'pg_ctl'), ['-D', data, '-o', settings, '-l', join(root, 'server.log'), '-w', '-t', '60', 'start'])
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`
  return {
    url,
    createDatabase: async (name) => {
      await as(join(bin, 'createdb'), ['-h', root, '-p', String(port), '-U', 'postgres', name])
      return url(name)
    },
    stop: async () => {
      await as(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined)
      await rm(root, { recursive: true, force: true })
    },
  }
}
