/**
 * A page that loses its connection mid-answer, over real sockets: `chatfold serve` streams an
 * answer (written over HTTP with `openAnswerStream`), and a reader tailing it with `tailStream`
 * has its connection torn down (the request aborted) after a random number of bytes, 100 times;
 * it resumes from its last offset each time and ends with every event once, in order.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { serveChatStore } from '../../src/node/serve.ts'
import { type AnswerEvent, answerStreamPath, openAnswerStream } from '../../src/streams/answer.ts'
import { tailStream } from '../../src/streams/tail.ts'

const dirs: string[] = []
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

/** A seeded generator of numbers in [0, 1) (mulberry32). */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

describe('chatfold serve: connections dropped mid-answer', () => {
  for (const live of ['sse', 'long-poll'] as const) {
    it(`${live}: 100 connections aborted at random bytes; the reader sees every event once, in order, with no gap`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'chatfold-streams-drop-'))
      dirs.push(dir)
      const served = await serveChatStore({ dataDir: dir, port: 0, log: () => undefined, handleSignals: false })
      try {
        const base = `${served.url}/streams`
        const path = answerStreamPath('c1', `a-${live}`)
        const answer = await openAnswerStream({ url: base }, path, 'a1')
        const next = random(live === 'sse' ? 3 : 5)
        let drops = 0
        /** fetch, with the connection aborted after a random number of body bytes while drops are due. */
        const dropping = async (input: string, init: RequestInit): Promise<Response> => {
          const controller = new AbortController()
          const r = await fetch(input, { ...init, signal: controller.signal })
          if (drops >= 100 || r.body === null) return r
          const at = 1 + Math.floor(next() * 600)
          const reader = r.body.getReader()
          let seen = 0
          const body = new ReadableStream<Uint8Array>({
            pull: async (c) => {
              const { done, value } = await reader.read()
              if (done) return c.close()
              if (seen + value.length < at) {
                seen += value.length
                return c.enqueue(value)
              }
              c.enqueue(value.subarray(0, at - seen))
              drops++
              controller.abort() // the socket goes; the server sees its reader leave
              c.error(new TypeError('the connection was dropped'))
            },
            cancel: () => controller.abort(),
          })
          return new Response(body, { status: r.status, headers: r.headers })
        }
        let pieces = 0
        const writing = (async () => {
          while (drops < 100) await answer.delta(`piece ${pieces++} `)
          await answer.finish({ message_id: 'a1', role: 'assistant', content: 'done' })
        })()
        const seen: AnswerEvent[] = []
        for await (const batch of tailStream(`${base}${path}`, { live, fetch: dropping, retryMs: 0 })) seen.push(...(batch.messages as AnswerEvent[]))
        await writing
        expect(drops).toBe(100)
        expect(seen).toEqual([
          ...Array.from({ length: pieces }, (_, i): AnswerEvent => ({ type: 'delta', message_id: 'a1', delta: `piece ${i} ` })),
          { type: 'message', message: { message_id: 'a1', role: 'assistant', content: 'done' } },
        ])
      } finally {
        await served.close()
      }
    }, 180_000)
  }
})
