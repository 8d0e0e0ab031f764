/**
 * The database clients the PostgreSQL store takes: a `pg` pool as it is, or a `postgres` (npm
 * `postgres`, postgres.js) sql client, whose reserved connections it uses as a pool's: one
 * connection a transaction, `BEGIN` … `COMMIT` on it, released after. The shapes of a pool, a
 * connection and a result are what `pg` and PGlite have.
 *
 * @module
 */

/**
 * The result of a query: its rows (what `pg`'s `QueryResult` and PGlite's `Results` both have).
 *
 * @since 0.1.0
 * @category postgres
 */
export type PgResultLike = { readonly rows: ReadonlyArray<Record<string, unknown>> }

/**
 * One connection (`pg`'s `PoolClient`): a query with `$1, $2, …` parameters, and its release back
 * to the pool (with the error that broke it, if one did).
 *
 * @since 0.1.0
 * @category postgres
 */
export type PgClientLike = {
  query(text: string, values?: unknown[]): Promise<PgResultLike>
  release(err?: Error | boolean): void
}

/**
 * A pool of connections (`pg`'s `Pool`): the store takes one for each transaction.
 *
 * @since 0.1.0
 * @category postgres
 */
export type PgPoolLike = { connect(): Promise<PgClientLike> }

/**
 * A connection reserved from a postgres.js client (`await sql.reserve()`): a query with `$1, $2, …`
 * parameters (`unsafe`), answering its rows, and its release.
 *
 * @since 0.1.0
 * @category postgres
 */
export type PostgresJsReservedLike = {
  unsafe(query: string, parameters?: unknown[]): PromiseLike<ReadonlyArray<Record<string, unknown>>>
  release(): void
}

/**
 * A postgres.js sql client (`postgres(url)`, npm `postgres`): what the store needs of it, its
 * reserved connections.
 *
 * @since 0.1.0
 * @category postgres
 */
export type PostgresJsLike = { reserve(): Promise<PostgresJsReservedLike> }

/**
 * A database client the store takes: a `pg` pool (or anything of its shape) or a postgres.js sql
 * client.
 *
 * @since 0.1.0
 * @category postgres
 */
export type PostgresClient = PgPoolLike | PostgresJsLike

/**
 * The client library that reaches PostgreSQL: `pg` (node-postgres) or `postgres` (postgres.js).
 *
 * @since 0.1.0
 * @category postgres
 */
export type PostgresDriver = 'pg' | 'postgres'

/**
 * A pool over a postgres.js sql client: each connection one reserved from it. A connection that
 * broke is released as any other: postgres.js replaces a closed connection itself.
 *
 * @example
 * import postgres from 'postgres'
 * import { fromPostgresJs } from 'chatfold/postgres'
 * const sql = postgres('postgres://chat@127.0.0.1:5432/chat', { max: 10 })
 * const pool = fromPostgresJs(sql) // what openPostgresStore(sql) uses
 *
 * @since 0.1.0
 * @category postgres
 */
export const fromPostgresJs = (sql: PostgresJsLike): PgPoolLike => ({
  connect: async (): Promise<PgClientLike> => {
    const reserved = await sql.reserve()
    let released = false
    return {
      query: async (text, values) => ({ rows: await reserved.unsafe(text, values ?? []) }),
      release: () => {
        if (released) return
        released = true
        reserved.release()
      },
    }
  },
})

/**
 * The pool of a client the store takes: a `pg` pool as it is, a postgres.js client through
 * `fromPostgresJs`.
 *
 * @example
 * import { poolOf, type PostgresClient } from 'chatfold/postgres'
 * declare const client: PostgresClient // new pg.Pool(…) or postgres(…)
 * const pool = poolOf(client)
 *
 * @since 0.1.0
 * @category postgres
 */
export const poolOf = (client: PostgresClient): PgPoolLike => ('connect' in client ? client : fromPostgresJs(client))
