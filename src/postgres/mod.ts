/**
 * chatfold on PostgreSQL (`chatfold/postgres`): the chat store in a database that any number of
 * processes share (`openPostgresStore` over a `pg` pool, a `postgres` (postgres.js) sql client, or
 * any pool of the same shape), its HTTP handler (`postgresChatHandler`, one transaction a
 * request), the schema's migrations (`migratePostgres`), and `servePostgresStore`, what `chatfold
 * serve --postgres URL` runs. A Node
 * entry: it needs the `pg` package (an optional peer dependency) only to open a pool by URL, in
 * `servePostgresStore`.
 *
 * @example
 * import { openPostgresStore, type PgPoolLike } from 'chatfold/postgres'
 * declare const pool: PgPoolLike // a pg Pool: new pg.Pool({ connectionString: url })
 * const store = await openPostgresStore(pool)()
 *
 * @module
 */
export * from './client.ts'
export * from './schema.ts'
export * from './store.ts'
export * from './handler.ts'
export * from './serve.ts'
export * from './streams.ts'
