/**
 * The chat store's tables in PostgreSQL, created and migrated by the package: a migration table
 * (`chatfold_migrations`: one row a version applied, with its name and when), and the versions in
 * order. `migratePostgres` applies the missing ones in one transaction, under a transaction-level
 * advisory lock, so that any number of processes starting at once migrate a database once; a
 * database migrated by a newer chatfold (a version this one does not know) is refused.
 *
 * Version 1: `chatfold_store` (one row a store: its name and the last record committed, the row
 * every write locks), `chatfold_log` (the records: store, position, the command as JSON text,
 * when committed; the primary key (store, seq) holds one record a position), `chatfold_snapshot`
 * (one row a store: the position it covers and the simulator as JSON text).
 *
 * Version 2: the Durable Streams log (`postgresStreamsStorage`): `chatfold_streams_head` (one row,
 * the last record kept: the row every streams write locks) and `chatfold_streams_log` (the
 * records: position, the stream's path, the record as JSON text, when committed).
 *
 * @module
 */
import { StoreError } from '../store/failure.ts'
import { type PgClientLike, type PgPoolLike, poolOf, type PostgresClient } from './client.ts'

/** One migration: its version, name and statements, run in order. */
type Migration = { readonly version: number; readonly name: string; readonly statements: ReadonlyArray<string> }

const MIGRATIONS: ReadonlyArray<Migration> = [
  {
    version: 1,
    name: 'store, log and snapshot',
    statements: [
      'CREATE TABLE chatfold_store (store text PRIMARY KEY, head bigint NOT NULL)',
      'CREATE TABLE chatfold_log (store text NOT NULL, seq bigint NOT NULL, command text NOT NULL, committed_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (store, seq))',
      'CREATE TABLE chatfold_snapshot (store text PRIMARY KEY, seq bigint NOT NULL, simulator text NOT NULL)',
    ],
  },
  {
    version: 2,
    name: 'durable streams',
    statements: [
      'CREATE TABLE chatfold_streams_head (id smallint PRIMARY KEY, seq bigint NOT NULL)',
      'INSERT INTO chatfold_streams_head (id, seq) VALUES (1, 0)',
      'CREATE TABLE chatfold_streams_log (seq bigint PRIMARY KEY, path text NOT NULL, record text NOT NULL, committed_at timestamptz NOT NULL DEFAULT now())',
    ],
  },
]

/**
 * The schema version this chatfold writes.
 *
 * @example
 * import { POSTGRES_SCHEMA_VERSION } from 'chatfold/postgres'
 * POSTGRES_SCHEMA_VERSION // 2
 *
 * @since 0.1.0
 * @category postgres
 */
export const POSTGRES_SCHEMA_VERSION: number = MIGRATIONS.length

/** The advisory lock key migrations hold (any number: one for every chatfold). */
const MIGRATION_LOCK = 73_117_001

/** Runs `f` in a transaction on one connection of the pool: committed when it resolves, rolled back when it throws. */
const inTransaction = async <A>(pool: PgPoolLike, f: (client: PgClientLike) => Promise<A>): Promise<A> => {
  const client = await pool.connect()
  let broken: Error | undefined
  try {
    await client.query('BEGIN')
    const a = await f(client)
    await client.query('COMMIT')
    return a
  } catch (e) {
    await client.query('ROLLBACK').catch((r: unknown) => void (broken = r instanceof Error ? r : new Error(String(r))))
    throw e
  } finally {
    client.release(broken ?? false)
  }
}

/**
 * Creates or migrates the store's tables (over a `pg` pool or a postgres.js client): applies, in
 * one transaction, the versions the database lacks, and resolves to the versions applied (none
 * when it is up to date). Rejects with a `StoreError` of code `corrupt` when the database was
 * migrated by a newer chatfold.
 *
 * @example
 * import { migratePostgres, type PgPoolLike } from 'chatfold/postgres'
 * declare const pool: PgPoolLike // a pg Pool: new pg.Pool({ connectionString: url })
 * await migratePostgres(pool) // resolves to the versions applied: [1, 2] on a new database, none after
 *
 * @since 0.1.0
 * @category postgres
 */
export const migratePostgres = (db: PostgresClient): Promise<ReadonlyArray<number>> =>
  inTransaction(poolOf(db), async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
    await client.query(
      'CREATE TABLE IF NOT EXISTS chatfold_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    )
    const r = await client.query('SELECT coalesce(max(version), 0) AS version FROM chatfold_migrations')
    const at = Number(r.rows[0]?.['version'] ?? 0)
    if (at > POSTGRES_SCHEMA_VERSION) {
      throw new StoreError(
        'corrupt',
        `The database's chatfold schema is at version ${at}, made by a newer chatfold; this one knows versions up to ${POSTGRES_SCHEMA_VERSION}`,
      )
    }
    const applied: number[] = []
    for (const m of MIGRATIONS) {
      if (m.version <= at) continue
      for (const s of m.statements) await client.query(s)
      await client.query('INSERT INTO chatfold_migrations (version, name) VALUES ($1, $2)', [m.version, m.name])
      applied.push(m.version)
    }
    return applied
  })
