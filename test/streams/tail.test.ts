import { describe, expect, it } from 'vitest'
import { openStreamsHandler } from '../../src/streams/handler.ts'
import { memoryStreamsStorage } from '../../src/streams/log.ts'
import { type AnswerEvent, answerStreamPath, keepTextStream, openAnswerStream, replayTextStream } from '../../src/streams/answer.ts'
import { TailError, tailStream } from '../../src/streams/tail.ts'

/** A seeded generator of numbers in [0, 1) (mulberry32): the same cuts on every run. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** `body` cut after `at` bytes, as a dropped connection: the reader gets an error, the server's stream is cancelled. */
const cut = (body: ReadableStream<Uint8Array>, at: number, onCut: () => void): ReadableStream<Uint8Array> => {
  const reader = body.getReader()
  let sent = 0
  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      const { done, value } = await reader.read()
      if (done) return controller.close()
      const room = at - sent
      if (value.length < room) {
        sent += value.length
        return controller.enqueue(value)
      }
      if (room > 0) controller.enqueue(value.subarray(0, room))
      onCut()
      await reader.cancel()
      controller.error(new TypeError('the connection was dropped'))
    },
    cancel: () => reader.cancel(),
  })
}

const nextTick = () => new Promise<void>((r) => setImmediate(r))

describe('tailStream', () => {
  for (const live of ['sse', 'long-poll'] as const) {
    it(`${live}: 100 connections dropped at random bytes during a streamed answer; the client sees every event once, in order, with no gap`, async () => {
      const streams = await openStreamsHandler(memoryStreamsStorage())
      const path = answerStreamPath('c1', 'a1')
      const answer = await openAnswerStream(streams, path, 'a1')
      const next = random(live === 'sse' ? 7 : 11)
      let cuts = 0
      const fetchCut = async (input: string, init: RequestInit): Promise<Response> => {
        const r = await streams.handle(new Request(input, init))
        if (cuts >= 100 || r.body === null) return r
        return new Response(cut(r.body, 1 + Math.floor(next() * 600), () => cuts++), { status: r.status, headers: r.headers })
      }
      // the answer goes on while the client's connections drop, and ends after the hundredth
      let pieces = 0
      const writing = (async () => {
        while (cuts < 100) {
          await answer.delta(`piece ${pieces++} `)
          await nextTick()
        }
        await answer.finish({ message_id: 'a1', role: 'assistant', content: 'the whole answer' })
      })()
      const seen: AnswerEvent[] = []
      let closed = false
      for await (const batch of tailStream(`http://localhost/streams${path}`, { live, fetch: fetchCut, retryMs: 0 })) {
        seen.push(...(batch.messages as AnswerEvent[]))
        closed = batch.closed
      }
      await writing
      expect(cuts).toBe(100)
      expect(closed).toBe(true)
      expect(seen).toEqual([
        ...Array.from({ length: pieces }, (_, i): AnswerEvent => ({ type: 'delta', message_id: 'a1', delta: `piece ${i} ` })),
        { type: 'message', message: { message_id: 'a1', role: 'assistant', content: 'the whole answer' } },
      ])
    }, 120_000)
  }

  it('resumes from an offset it gave: only what came after', async () => {
    const streams = await openStreamsHandler(memoryStreamsStorage())
    const answer = await openAnswerStream(streams, '/a', 'm')
    await answer.delta('one')
    const get = (input: string, init: RequestInit) => streams.handle(new Request(input, init))
    const first = await tailStream('http://localhost/streams/a', { fetch: get }).next()
    const offset = first.done === true ? '' : first.value.offset
    await answer.delta('two')
    await answer.finish({ message_id: 'm' })
    const rest: unknown[] = []
    for await (const b of tailStream('http://localhost/streams/a', { fetch: get, offset, live: 'long-poll' })) rest.push(...b.messages)
    expect(rest).toEqual([{ type: 'delta', message_id: 'm', delta: 'two' }, { type: 'message', message: { message_id: 'm' } }])
  })

  it('ends with a TailError when the stream does not exist or the token is refused', async () => {
    const streams = await openStreamsHandler(memoryStreamsStorage(), { token: 'streams-test-token-0123456789' })
    const get = (input: string, init: RequestInit) => streams.handle(new Request(input, init))
    const tail = tailStream('http://localhost/streams/none', { fetch: get, headers: { authorization: 'Bearer streams-test-token-0123456789' } })
    await expect(tail.next()).rejects.toMatchObject({ code: 'not_found', status: 404 })
    await expect(tailStream('http://localhost/streams/none', { fetch: get }).next()).rejects.toBeInstanceOf(TailError)
  })
})

describe('keepTextStream and replayTextStream (the AI SDK resume path)', () => {
  it('a replay started mid-stream gets the whole stream once, live until its end; after the end there is nothing to resume', async () => {
    const streams = await openStreamsHandler(memoryStreamsStorage())
    let push!: ReadableStreamDefaultController<string>
    const source = new ReadableStream<string>({ start: (c) => void (push = c) })
    const keeping = keepTextStream(streams, '/ai/chat-1', source)
    push.enqueue('data: {"type":"start"}\n\n')
    push.enqueue('data: {"type":"text-delta","delta":"Hel"}\n\n')
    // the replay waits for what is kept: the first piece is there once the stream answers HEAD
    let replay = await replayTextStream(streams, '/ai/chat-1')
    for (let i = 0; i < 100 && replay.status === 204; i++) {
      await nextTick()
      replay = await replayTextStream(streams, '/ai/chat-1')
    }
    expect(replay.status).toBe(200)
    const reading = replay.text()
    push.enqueue('data: {"type":"text-delta","delta":"lo"}\n\n')
    push.enqueue('data: [DONE]\n\n')
    push.close()
    await keeping
    expect(await reading).toBe(
      'data: {"type":"start"}\n\ndata: {"type":"text-delta","delta":"Hel"}\n\ndata: {"type":"text-delta","delta":"lo"}\n\ndata: [DONE]\n\n',
    )
    expect((await replayTextStream(streams, '/ai/chat-1')).status).toBe(204)
  })

  it('an answer writer that cannot keep its writes rejects them (no silent loss)', async () => {
    const storage = memoryStreamsStorage()
    let fail = false
    const streams = await openStreamsHandler({ ...storage, append: (r) => (fail ? Promise.reject(new Error('disk full')) : storage.append(r)) })
    const answer = await openAnswerStream(streams, '/a', 'm')
    fail = true
    await expect(answer.delta('lost')).rejects.toMatchObject({ code: 'not_kept', status: 503 })
  })
})
