/**
 * Opening a database client by URL for `servePostgresStore`: a `pg` pool, or a postgres.js sql
 * client (npm `postgres`), whichever is asked for, or the one installed (`pg` first). Both are
 * optional peer dependencies, loaded only here.
 *
 * @module
 */
import type { PostgresClient, PostgresDriver } from './client.ts'

/** An open client, the library it is of, and how to close it. */
export type OpenedClient = { readonly client: PostgresClient; readonly driver: PostgresDriver; readonly end: () => Promise<void> }

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e))

const openPg = async (url: string, max: number, log: (line: string) => void): Promise<OpenedClient> => {
  const pg = await import('pg')
  const Pool = pg.Pool ?? pg.default.Pool
  const pool = new Pool({ connectionString: url, max })
  // a connection that breaks while idle is replaced by the pool: told, never fatal
  pool.on('error', (e: Error) => log(`chatfold: a PostgreSQL connection failed: ${e.message}`))
  return { client: pool, driver: 'pg', end: () => pool.end() }
}

const openPostgresJs = async (url: string, max: number): Promise<OpenedClient> => {
  const postgres = (await import('postgres')).default
  // the server's notices (a table that exists already) are not the store's to print
  const sql = postgres(url, { max, onnotice: () => undefined })
  return { client: sql, driver: 'postgres', end: () => sql.end({ timeout: 5 }) }
}

/**
 * Opens a client of the database at `url` with at most `max` connections: with `driver`, that
 * library; without, `pg` if it is installed, else `postgres`. Rejects, naming what to install,
 * when neither can be loaded.
 */
export const openClient = async (url: string, max: number, log: (line: string) => void, driver?: PostgresDriver): Promise<OpenedClient> => {
  if (driver === 'postgres') {
    return openPostgresJs(url, max).catch((e: unknown) => {
      throw new Error(`Serving from PostgreSQL with postgres.js needs the postgres package (npm install postgres): ${message(e)}`)
    })
  }
  try {
    return await openPg(url, max, log)
  } catch (e) {
    if (driver === 'pg') throw new Error(`Serving from PostgreSQL with pg needs the pg package (npm install pg): ${message(e)}`)
    return openPostgresJs(url, max).catch((f: unknown) => {
      throw new Error(`Serving from PostgreSQL needs the pg or the postgres package (npm install pg): ${message(e)}; ${message(f)}`)
    })
  }
}
