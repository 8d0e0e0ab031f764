/**
 * A pool over one PGlite database (PostgreSQL in WASM, one connection): `connect` waits for the
 * connection taken before it to be released, so that transactions never interleave on it, as
 * two connections of a server would serialise on the store's lock. What the PostgreSQL store's
 * unit tests run on; `failNext` makes the next query matching a pattern fail, as a lost
 * connection would.
 */
import { PGlite } from '@electric-sql/pglite'
import type { PgClientLike, PgPoolLike } from '../../src/postgres/client.ts'

export type PglitePool = PgPoolLike & {
  readonly db: PGlite
  /** The next query whose text matches `pattern` rejects with `error` (once). */
  readonly failNext: (pattern: RegExp, error?: Error) => void
  readonly queries: () => ReadonlyArray<string>
}

export const pglitePool = async (db?: PGlite): Promise<PglitePool> => {
  const pg = db ?? (await PGlite.create())
  let held: Promise<void> = Promise.resolve()
  const failures: Array<{ pattern: RegExp; error: Error }> = []
  const log: string[] = []
  return {
    db: pg,
    failNext: (pattern, error = new Error('Connection terminated unexpectedly')) => void failures.push({ pattern, error }),
    queries: () => log,
    connect: async (): Promise<PgClientLike> => {
      let release!: () => void
      const previous = held
      held = new Promise<void>((r) => (release = r))
      await previous
      let released = false
      return {
        query: async (text, values) => {
          log.push(text)
          const i = failures.findIndex((f) => f.pattern.test(text))
          if (i >= 0) {
            const [f] = failures.splice(i, 1)
            throw f?.error
          }
          const r = await pg.query<Record<string, unknown>>(text, values)
          return { rows: r.rows }
        },
        release: () => {
          if (released) return
          released = true
          release()
        },
      }
    },
  }
}
