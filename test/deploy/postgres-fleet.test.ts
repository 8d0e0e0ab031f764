/**
 * Many `chatfold serve --postgres` processes on one real PostgreSQL database (a throwaway cluster
 * of Debian's `postgresql`), two and then four, under 24 concurrent writers while random processes
 * among them are SIGKILLed and started again (50 kills with two, 50 with four; `CHATFOLD_PG_KILLS`
 * sets each run's). Each writer submits to its own conversation, one message after another; a
 * message whose answer is lost (the process killed under it, or a 503) is sent again, with the
 * same message id, to another process that listens, and a 409 to such a retry says the first try
 * was committed. Everything acknowledged must be stored exactly once, in each writer's order, and
 * every process must answer the same, each writer's conversation stream too. Kills follow the writers' answers and the processes'
 * starts, never the clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, messageOf, TEST_TOKEN } from '../support/served-store.ts'
import { type PostgresServer, startPostgres } from '../support/postgres-server.ts'
import { bundleCli } from './support/bundled-cli.ts'
import { startFleet } from './support/postgres-fleet.ts'

const WRITERS = 24
/** Each writer's messages at least; it goes on until the kills are done. */
const PER_WRITER = 5
const KILLS = Number(process.env['CHATFOLD_PG_KILLS'] ?? 50)
/** Answers between one kill and the next (besides a process to kill being up). */
const STEP = 2

let server: PostgresServer | undefined
let bin = ''

beforeAll(async () => {
  ;[server, bin] = await Promise.all([startPostgres(), bundleCli()])
}, 300_000)
afterAll(async () => {
  await server?.stop()
})

const mulberry = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

type Message = { readonly message_id: string; readonly conversation_id: string }

describe('chatfold serve --postgres: 24 writers, random processes SIGKILLed', { timeout: 600_000 }, () => {
  for (const size of [2, 4]) {
    it(`${size} processes, ${KILLS} kills: every acknowledged message stored once, in each writer's order`, async () => {
      if (server === undefined) throw new Error('no PostgreSQL server')
      const began = performance.now()
      const random = mulberry(size)
      const url = await server.createDatabase(`fleet${size}`)
      // snapshots every 100 records: processes that start behind a snapshot read it
      const fleet = await startFleet({ bin, url, size, args: ['--snapshot-every', '100'] })
      const acknowledged = new Set<string>()
      const refused: string[] = []
      const sent = Array.from({ length: WRITERS }, () => 0)
      const inflight = new Map<string, number>()
      let answered = 0
      let lostAnswers = 0
      let killsDone = false
      // every answer and every process down or up wakes whoever waits on progress
      let waiters: Array<() => void> = []
      const progress = () => {
        const w = waiters
        waiters = []
        for (const f of w) f()
      }
      const next = () => new Promise<void>((resolve) => waiters.push(resolve))
      void (async () => {
        while (!killsDone) {
          await fleet.changed()
          progress()
        }
      })()

      const writer = async (w: number) => {
        for (let n = 0; !(killsDone && n >= PER_WRITER); n++) {
          const m = messageOf(w, n)
          sent[w] = n + 1
          let lost = false
          for (let attempt = 0;; attempt++) {
            const to = await fleet.pick(w + n + attempt)
            inflight.set(to, (inflight.get(to) ?? 0) + 1)
            const r = await call(to, 'POST', '/modalities/chat/submit', m).catch(() => undefined)
            inflight.set(to, (inflight.get(to) ?? 1) - 1)
            if (r !== undefined && r.status !== 503) {
              if (r.status === 201 || (r.status === 409 && lost)) acknowledged.add(m.message_id)
              else refused.push(`${m.message_id}: ${r.status} ${JSON.stringify(r.body)}`)
              answered++
              progress()
              break
            }
            lost = true
            lostAnswers++
            // the process it asked still listens (a 503): try again after the next answer or change, not in a tight loop
            if (fleet.up().some((i) => fleet.urlOf(i) === to)) await next()
          }
        }
      }

      let killedMidRequest = 0
      const restarts: Promise<void>[] = []
      const killer = async () => {
        let at = 0
        for (let k = 0; k < KILLS; k++) {
          while (answered < at + STEP || fleet.up().length === 0) await next()
          const up = fleet.up()
          const i = up[Math.floor(random() * up.length)] as number
          if ((inflight.get(fleet.urlOf(i) ?? '') ?? 0) > 0) killedMidRequest++
          restarts.push(fleet.kill(i))
          at = answered
        }
        killsDone = true
        progress()
      }

      try {
        await Promise.all([killer(), ...Array.from({ length: WRITERS }, (_, w) => writer(w))])
        await Promise.all(restarts)
        expect(fleet.unaskedExits()).toEqual([])
        expect(refused).toEqual([])
        expect(lostAnswers).toBeGreaterThan(0)
        expect(killedMidRequest).toBeGreaterThan(0)
        expect(acknowledged.size).toBe(sent.reduce((a, b) => a + b, 0))
        // every process answers the same: each acknowledged message once, each writer's in its order
        const snapshots = await Promise.all(fleet.up().map((i) => call(fleet.urlOf(i) as string, 'GET', '/environment/modalities/chat')))
        expect(snapshots).toHaveLength(size)
        const messages: ReadonlyArray<Message> = snapshots[0]?.body.messages
        const ids = messages.map((m) => m.message_id)
        expect(ids.length).toBe(new Set(ids).size)
        expect(new Set(ids)).toEqual(acknowledged)
        for (let w = 0; w < WRITERS; w++) {
          const mine = messages.filter((m) => m.conversation_id === `client-${w}`).map((m) => m.message_id)
          expect(mine).toEqual(Array.from({ length: sent[w] ?? 0 }, (_, n) => messageOf(w, n).message_id))
        }
        for (const s of snapshots) expect(s.body).toEqual(snapshots[0]?.body)
        // and each writer's conversation is a stream every process serves byte for byte alike: its acknowledged messages once, in order
        for (let w = 0; w < WRITERS; w++) {
          const bodies = await Promise.all(
            fleet.up().map(async (i) =>
              (await fetch(`${fleet.urlOf(i)}/streams/conversations/client-${w}?offset=-1`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })).text()
            ),
          )
          expect((JSON.parse(bodies[0] ?? '[]') as Message[]).map((m) => m.message_id)).toEqual(
            Array.from({ length: sent[w] ?? 0 }, (_, n) => messageOf(w, n).message_id),
          )
          for (const b of bodies) expect(b).toBe(bodies[0])
        }
        const seconds = (performance.now() - began) / 1000
        // printed for the report: what the kills cost the writers
        process.stdout.write(
          `postgres fleet of ${size}: ${KILLS} kills (${killedMidRequest} with a request in flight), ${acknowledged.size} acknowledged, ${lostAnswers} answers lost, ${
            seconds.toFixed(1)
          } s\n`,
        )
      } finally {
        killsDone = true
        progress()
        await Promise.allSettled(restarts)
        await fleet.stop()
      }
    })
  }
})
