/**
 * A history of about 10 MB holding a 3 MB screenshot in each of its 40 turns, sent over HTTP to
 * each served backend (workerd with a Durable Object, `deno serve` with Deno KV, `chatfold serve`
 * with the file store, and `chatfold serve --postgres` on a throwaway PostgreSQL cluster, each
 * taking bodies of up to 8 MiB), SIGKILLed and restarted: what the backend keeps (the bytes on
 * disk; for PostgreSQL, the size of the store's tables) is a few screenshots' worth, not forty,
 * and every turn is served back whole. On PostgreSQL, the live rows of the log and the snapshot
 * also hold the screenshot exactly once. The same 40 turns run in
 * process on the file store and PGlite (test/node/large-content.test.ts,
 * test/postgres/large-content.test.ts). Each form prints how long its 40 turns and (for `chatfold
 * serve`) its restart took.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { type Child, servedEnv, type ServedStore, startChild, stopChild } from '../support/served-store.ts'
import { type PostgresServer, startPostgres } from '../support/postgres-server.ts'
import { serveDeno as serveDenoIn } from './support/deno.ts'
import { ROOT, serveWorkerd } from './support/workerd.ts'
import { screenshot } from '../support/large-content-cases.ts'

const dirs: string[] = []
let cluster: PostgresServer | undefined
afterAll(async () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
  await cluster?.stop()
})

/** A served backend, and what it keeps now in bytes (on disk, or in its database's tables). */
type LargeServed = ServedStore & { readonly kept: () => Promise<number>; readonly check?: (screenshot: string) => Promise<void> }

/** The bytes of every file under a directory. */
const sizeOf = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? sizeOf(join(dir, e.name)) : statSync(join(dir, e.name)).size), 0)

const onDisk = <S extends ServedStore & { readonly dir: string }>(s: S): LargeServed => ({ ...s, kept: () => Promise.resolve(sizeOf(s.dir)) })

const serveDeno = async (): Promise<LargeServed> => {
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-large-deno-'))
  dirs.push(dir)
  return onDisk(await serveDenoIn(join('test', 'deploy', 'support', 'deno-serve-large.ts'), dir))
}

const serveDurableObject = async (): Promise<LargeServed> => {
  const w = await serveWorkerd(join(ROOT, 'test', 'deploy', 'support', 'workerd-store-large.ts'), { durable: true, path: '/stores/large' })
  dirs.push(w.dir)
  return onDisk(w)
}

/** `chatfold serve` on the file store (Node), as the package's bin runs it, taking bodies of up to 8 MiB. */
const serveNode = async (): Promise<LargeServed> => {
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-large-node-'))
  dirs.push(dir)
  const bin = join(ROOT, 'bin', 'chatfold.mjs')
  const args = [bin, 'serve', '--data', dir, '--port', '0', '--max-body-bytes', String(8 * 1024 * 1024), '--snapshot-every', '16']
  const start = () => startChild(process.execPath, args, /listening on (http:\/\/127\.0\.0\.1:\d+)\n/, { env: servedEnv(), timeoutMs: 120_000 })
  let child: Child & { readonly match: RegExpExecArray } = await start()
  return onDisk({
    dir,
    url: () => child.match[1] as string,
    restart: async (how) => {
      await stopChild(child.process, how === 'kill' ? 'SIGKILL' : 'SIGTERM')
      const t = performance.now()
      child = await start()
      console.log(`chatfold serve: restarted in ${((performance.now() - t) / 1000).toFixed(1)} s`)
    },
    stop: () => stopChild(child.process, 'SIGKILL'),
  })
}

/** The store's tables (with their TOAST and indexes): what the database holds for it, live rows and dead alike. */
const TABLES_SIZE =
  `SELECT sum(pg_total_relation_size(c))::bigint AS n FROM unnest(ARRAY['chatfold_store', 'chatfold_log', 'chatfold_snapshot']::regclass[]) AS c`

/**
 * `chatfold serve --postgres` on a fresh database of a throwaway cluster (started once, for this
 * form only), taking bodies of up to 8 MiB; what it keeps is the size of the store's tables, and
 * `check` reads their rows: the screenshot whole in exactly one of them.
 */
const servePostgres = async (): Promise<LargeServed> => {
  cluster ??= await startPostgres()
  const url = await cluster.createDatabase('large')
  const bin = join(ROOT, 'bin', 'chatfold.mjs')
  const args = [bin, 'serve', '--postgres', url, '--port', '0', '--max-body-bytes', String(8 * 1024 * 1024), '--snapshot-every', '16']
  const start = () => startChild(process.execPath, args, /listening on (http:\/\/127\.0\.0\.1:\d+)\n/, { env: servedEnv(), timeoutMs: 120_000 })
  let child: Child & { readonly match: RegExpExecArray } = await start()
  const db = new pg.Pool({ connectionString: url, max: 1 })
  return {
    url: () => child.match[1] as string,
    restart: async (how) => {
      await stopChild(child.process, how === 'kill' ? 'SIGKILL' : 'SIGTERM')
      const t = performance.now()
      child = await start()
      console.log(`chatfold serve --postgres: restarted in ${((performance.now() - t) / 1000).toFixed(1)} s`)
    },
    stop: async () => {
      await stopChild(child.process, 'SIGKILL')
      await db.end()
    },
    kept: async () => Number((await db.query<{ n: string }>(TABLES_SIZE)).rows[0]?.n ?? 0),
    check: async (data) => {
      // every live row of the log (those after the snapshot: the ones before are folded into it) and the snapshot, with how often each holds the screenshot whole
      const rows = await db.query<{ bytes: number; copies: number }>(
        `SELECT octet_length(command) AS bytes, (length(command) - length(replace(command, $1, ''))) / length($1) AS copies FROM chatfold_log WHERE store = 'default'
         UNION ALL SELECT octet_length(simulator), (length(simulator) - length(replace(simulator, $1, ''))) / length($1) FROM chatfold_snapshot WHERE store = 'default'`,
        [data],
      )
      expect(rows.rows.length).toBeGreaterThan(1)
      expect(rows.rows.reduce((n, r) => n + r.copies, 0)).toBe(1)
      const held = rows.rows.reduce((n, r) => n + r.bytes, 0)
      expect(held).toBeLessThan(data.length + 2_000_000)
      console.log(`chatfold serve --postgres: ${rows.rows.length} rows (log and snapshot) hold ${(held / 1e6).toFixed(1)} MB, the screenshot once`)
    },
  }
}

/** A POST with a body of some MB (the shared client's 15 s timeout is for small ones). */
// deno-lint-ignore no-explicit-any -- a JSON answer, read field by field
const post = async (url: string, path: string, body: unknown): Promise<{ readonly status: number; readonly body: any }> => {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    signal: AbortSignal.timeout(120_000),
    headers: { authorization: `Bearer ${servedEnv()['CHATFOLD_TOKEN']}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() }
}

describe('a 10 MB history with a 3 MB screenshot repeated in 40 turns, served', { timeout: 600_000 }, () => {
  const data = screenshot()
  const long = 'x'.repeat(150_000)
  const forms = [
    ['workerd, a Durable Object', serveDurableObject],
    ['deno serve, Deno KV', serveDeno],
    ['chatfold serve, the file store', serveNode],
    ['chatfold serve --postgres, PostgreSQL', servePostgres],
  ] as const
  for (const [name, serve] of forms) {
    it(`is stored once and served whole: ${name}`, async () => {
      const s = await serve()
      try {
        const t = performance.now()
        for (let i = 0; i < 40; i++) {
          const content = [{ type: 'text', text: `turn ${i}: ${i % 8 === 0 ? long : 'what is on the screen?'}` }, {
            type: 'image',
            source: 'base64',
            data,
            media_type: 'image/png',
          }]
          const r = await post(s.url(), '/modalities/chat/submit', { role: 'user', content, conversation_id: 'shots', message_id: `s${i}` })
          expect(r.status).toBe(201)
        }
        console.log(`${name}: 40 turns taken in ${((performance.now() - t) / 1000).toFixed(1)} s`)
        await s.restart('kill')
        // what the backend keeps: the screenshot a few times at most (the log's first record, a snapshot, storage overhead), not forty times
        const kept = await s.kept()
        expect(kept).toBeLessThan(10 * data.length)
        await s.check?.(data)
        for (const i of [0, 13, 27, 39]) {
          const r = await post(s.url(), '/environment/modalities/chat/query', { conversation_id: 'shots', search: `turn ${i}:` })
          expect(r.status).toBe(200)
          expect(r.body.messages.map((m: { message_id: string; content: Array<{ data?: string }> }) => [m.message_id, m.content[1]?.data === data])).toEqual([
            [`s${i}`, true],
          ])
        }
        const last = await post(s.url(), '/environment/modalities/chat/query', { conversation_id: 'shots', limit: 5 })
        expect(last.body.messages.map((m: { content: Array<{ data?: string }> }) => m.content[1]?.data === data)).toEqual([true, true, true, true, true])
        console.log(
          `${name}: 40 turns of ${(data.length / 1e6).toFixed(1)} MB of base64 kept in ${(kept / 1e6).toFixed(1)} MB${
            s.check === undefined ? ' on disk' : ' of tables'
          }`,
        )
      } finally {
        await s.stop()
      }
    })
  }
})
