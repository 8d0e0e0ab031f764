/**
 * `chatfold serve --postgres URL` on a real PostgreSQL server (a throwaway cluster of Debian's
 * `postgresql`): the store contract with two servers on one database (requests alternate between
 * them; each restart SIGKILLs one), then eight writers spread over two servers while one of them
 * is SIGKILLed three times: everything acknowledged is stored once, in each writer's order.
 */
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, type Child, messageOf, servedEnv, type ServedStore, startChild, stopChild } from '../support/served-store.ts'
import { storeContract } from '../support/store-contract.ts'
import { type PostgresServer, startPostgres } from '../support/postgres-server.ts'
import { servedPair } from './support/served-pair.ts'

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'chatfold.mjs')
let server: PostgresServer | undefined
let databases = 0

beforeAll(async () => {
  server = await startPostgres()
}, 120_000)
afterAll(async () => {
  await server?.stop()
})

/**
 * `chatfold serve` on the database at `url`, named by CHATFOLD_POSTGRES_URL or, with `flag`, by
 * `--postgres` (the simulator routes on: the contract moves the clock).
 */
const startServer = (url: string, flag = false) =>
  startChild(
    process.execPath,
    [bin, 'serve', '--port', '0', '--simulator', ...(flag ? ['--postgres', url] : [])],
    /listening on (http:\/\/127\.0\.0\.1:\d+)\n/,
    {
      env: servedEnv(flag ? {} : { CHATFOLD_POSTGRES_URL: url }),
    },
  )

/** Two servers on a fresh database: `url()` alternates between them, `restart` SIGKILLs (or stops) one of them, in turn, and starts it again. */
const serveTwo = async (): Promise<ServedStore> => {
  if (server === undefined) throw new Error('no PostgreSQL server')
  databases += 1
  const db = await server.createDatabase(`chat${databases}`)
  return servedPair(() => startServer(db))
}

storeContract('Node, PostgreSQL, two servers on one database', serveTwo, { kills: 3, clients: 16, perClient: 20 })

describe('chatfold serve --postgres, eight writers over two servers, one of them killed again and again', { timeout: 180_000 }, () => {
  it('keeps every acknowledged message once, in each writer order', async () => {
    if (server === undefined) throw new Error('no PostgreSQL server')
    const db = await server.createDatabase('writers')
    const children = await Promise.all([startServer(db), startServer(db, true)])
    const writers = 8
    const perWriter = 30
    const kills = 3
    // each writer goes on past its 30 messages until the kills are done (a restart takes seconds on a busy machine)
    const sent = Array.from({ length: writers }, () => 0)
    let killsDone = false
    const acknowledged = new Set<string>()
    const refused = new Set<string>()
    let answered = 0
    let lost = 0
    let stopped = false
    const writing = Array.from({ length: writers }, async (_, w) => {
      for (let n = 0; (n < perWriter || !killsDone) && n < 5_000; n++) {
        sent[w] = n + 1
        const m = messageOf(w, n)
        let lostOne = false
        for (let attempt = 0;; attempt++) {
          // each try to either server, in turn: a writer is served by both
          const url = children[(w + n + attempt) % 2]?.match[1] as string
          try {
            const r = await call(url, 'POST', '/modalities/chat/submit', m)
            if (r.status === 201 || (r.status === 409 && lostOne)) acknowledged.add(m.message_id)
            else refused.add(`${m.message_id}: ${r.status}`)
            answered++
            break
          } catch {
            lostOne = true
            lost++
            await new Promise((r) => setTimeout(r, 20))
          }
        }
      }
    })
    // SIGKILL server 0 each time the writers have had another 40 answers, and start it again on the same database
    let killed = 0
    let answeredAtLastKill = 0
    const killer = (async () => {
      for (let k = 1; k <= kills && !stopped; k++) {
        while (answered < answeredAtLastKill + 40 && !stopped) await new Promise((r) => setTimeout(r, 5))
        if (stopped) break
        await stopChild((children[0] as Child).process, 'SIGKILL')
        answeredAtLastKill = answered
        children[0] = await startServer(db)
        killed++
      }
      killsDone = true
    })()
    await Promise.all(writing)
    stopped = true
    await killer
    expect(killed).toBe(kills)
    expect(lost).toBeGreaterThan(0) // the kills did land mid-run
    expect(refused).toEqual(new Set())
    expect(acknowledged.size).toBe(sent.reduce((a, b) => a + b, 0))
    const snap = (await call(children[1]?.match[1] as string, 'GET', '/environment/modalities/chat')).body
    const ids: string[] = snap.messages.map((m: { message_id: string }) => m.message_id)
    expect(ids.length).toBe(new Set(ids).size)
    expect(new Set(ids)).toEqual(acknowledged)
    for (let w = 0; w < writers; w++) {
      const mine = snap.messages.filter((m: { conversation_id: string }) => m.conversation_id === `client-${w}`).map((m: { message_id: string }) =>
        m.message_id
      )
      expect(mine).toEqual(Array.from({ length: sent[w] ?? 0 }, (_, n) => messageOf(w, n).message_id))
    }
    // both servers answer the same
    expect((await call(children[0]?.match[1] as string, 'GET', '/environment/modalities/chat')).body).toEqual(snap)
    // printed for the report: what the kills cost the writers
    process.stdout.write(`postgres kill run: ${acknowledged.size} acknowledged, ${lost} answers lost to ${killed} kills\n`)
    await Promise.all(children.map((c) => stopChild(c.process, 'SIGKILL')))
  })
})
