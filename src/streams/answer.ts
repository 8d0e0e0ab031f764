/**
 * An answer kept in a Durable Stream as it is generated, so that a client that reconnects
 * mid-answer reads the rest: `openAnswerStream` writes a JSON stream of partial messages (text
 * deltas) and then the final message, and closes it; `keepTextStream` keeps any text stream (the
 * AI SDK's UI message stream, as Server-Sent Events) and `replayTextStream` serves it again from
 * its start, live until it ends (what the AI SDK's `useChat({ resume: true })` asks of the server).
 * Each write is acknowledged once the streams log keeps it; writes made meanwhile go together.
 *
 * @module
 */
import type { StreamsHandler } from './handler.ts'

/**
 * An event of an answer stream: a piece of the answer's text as it comes (`delta`), then the final
 * message (`message`, the message as the chat store keeps it), after which the stream is closed.
 *
 * @since 0.1.0
 * @category streams
 */
export type AnswerEvent =
  | { readonly type: 'delta'; readonly message_id: string; readonly delta: string }
  | { readonly type: 'message'; readonly message: unknown }

/**
 * Why an answer could not be kept: the streams log refused or failed the write (`not_kept`, with
 * the HTTP status the handler gave).
 *
 * @example
 * import { AnswerStreamError } from 'chatfold/streams'
 * const e = new AnswerStreamError('not_kept', 503, 'The streams log cannot be written')
 * e.status // 503
 *
 * @since 0.1.0
 * @category streams
 */
export class AnswerStreamError extends Error {
  override readonly name = 'AnswerStreamError'
  constructor(readonly code: 'not_kept', readonly status: number, message: string) {
    super(message)
  }
}

/**
 * The stream path of an answer: `/answers/<conversation id>/<message id>`, both URL-encoded.
 *
 * @example
 * import { answerStreamPath } from 'chatfold/streams'
 * answerStreamPath('support 7', 'a1') // '/answers/support%207/a1'
 *
 * @since 0.1.0
 * @category streams
 */
export const answerStreamPath = (conversationId: string, messageId: string): string =>
  `/answers/${encodeURIComponent(conversationId)}/${encodeURIComponent(messageId)}`

/**
 * Where an answer's stream is written: a streams handler in this process (`openStreamsHandler`;
 * its writes pass no gate, being the server's own), or a served store's streams over HTTP
 * (`url`, its `/streams` base such as `http://127.0.0.1:8787/streams`, with the store's `token`).
 *
 * @since 0.1.0
 * @category streams
 */
export type StreamsTarget =
  | Pick<StreamsHandler, 'gated'>
  | { readonly url: string; readonly token?: string; readonly fetch?: (input: string, init: RequestInit) => Promise<Response> }

const ORIGIN = 'http://streams.local'

/** A request to the streams of `target` at `path`. */
const local = (target: StreamsTarget, path: string, init: RequestInit, query = ''): Promise<Response> => {
  if ('gated' in target) return target.gated({})(new Request(`${ORIGIN}/streams${path}${query}`, init))
  const headers = new Headers(init.headers)
  if (target.token !== undefined) headers.set('authorization', `Bearer ${target.token}`)
  const get = target.fetch ?? ((input: string, i: RequestInit) => fetch(input, i))
  return get(`${target.url.replace(/\/+$/, '')}${path}${query}`, { ...init, headers })
}

const kept = async (response: Response, what: string): Promise<void> => {
  const text = await response.text().catch(() => '')
  if (response.status >= 300) throw new AnswerStreamError('not_kept', response.status, `${what} was not kept (${response.status}): ${text.slice(0, 200)}`)
}

/**
 * A writer whose pieces go to the stream in order, those written while one append is being kept
 * together in the next: `write` resolves once its piece is kept; `end` closes the stream after them.
 */
const appender = <A>(send: (pieces: ReadonlyArray<A>, close: boolean) => Promise<void>) => {
  let queue: Array<{ readonly piece: A; readonly done: (e?: unknown) => void }> = []
  let closing: ((e?: unknown) => void) | undefined
  let running = false
  const run = async () => {
    running = true
    while (queue.length > 0 || closing !== undefined) {
      const batch = queue
      queue = []
      const close = closing
      closing = undefined
      try {
        await send(batch.map((b) => b.piece), close !== undefined)
        for (const b of batch) b.done()
        close?.()
      } catch (e) {
        for (const b of batch) b.done(e)
        close?.(e)
      }
    }
    running = false
  }
  const settle = (register: (done: (e?: unknown) => void) => void): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      register((e) => (e === undefined ? resolve() : reject(e)))
      if (!running) void run()
    })
  return {
    write: (piece: A) => settle((done) => queue.push({ piece, done })),
    end: () => settle((done) => (closing = done)),
  }
}

/**
 * A writer of one answer's stream: `delta` keeps a piece of its text, `finish` keeps the final
 * message and closes the stream. Each resolves once kept; calls need not wait for each other.
 *
 * @since 0.1.0
 * @category streams
 */
export type AnswerWriter = {
  readonly path: string
  readonly delta: (text: string) => Promise<void>
  readonly finish: (message: unknown) => Promise<void>
}

/**
 * Opens the JSON stream of an answer at `path` (made when missing) on `streams` (a handler in this
 * process, or a served store's streams over HTTP).
 *
 * @example
 * import { answerStreamPath, memoryStreamsStorage, openAnswerStream, openStreamsHandler } from 'chatfold/streams'
 * const streams = await openStreamsHandler(memoryStreamsStorage())
 * const answer = await openAnswerStream(streams, answerStreamPath('c1', 'a1'), 'a1')
 * await answer.delta('Hel')
 * await answer.delta('lo')
 * await answer.finish({ message_id: 'a1', role: 'assistant', content: 'Hello' })
 * const read = await streams.handle(new Request('http://localhost/streams/answers/c1/a1?offset=-1'))
 * const events = await read.json()
 * events.length // 3
 *
 * @since 0.1.0
 * @category streams
 */
export const openAnswerStream = async (streams: StreamsTarget, path: string, messageId: string): Promise<AnswerWriter> => {
  await kept(await local(streams, path, { method: 'PUT', headers: { 'content-type': 'application/json' } }), `The answer stream ${path}`)
  const out = appender<AnswerEvent>(async (events, close) => {
    const response = await local(streams, path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(close ? { 'stream-closed': 'true' } : {}) },
      ...(events.length === 0 ? {} : { body: JSON.stringify(events) }),
    })
    await kept(response, `An append to ${path}`)
  })
  return {
    path,
    delta: (text) => out.write({ type: 'delta', message_id: messageId, delta: text }),
    finish: (message) => {
      const last = out.write({ type: 'message', message })
      return Promise.all([last, out.end()]).then(() => undefined)
    },
  }
}

/**
 * Keeps a text stream at `path` (a stream made anew: one there before is deleted) as it comes,
 * and closes it at its end: the copy of an AI SDK UI message stream (`consumeSseStream`), for
 * `replayTextStream` to serve again. Resolves once the whole is kept.
 *
 * @example
 * import { keepTextStream, memoryStreamsStorage, openStreamsHandler } from 'chatfold/streams'
 * const streams = await openStreamsHandler(memoryStreamsStorage())
 * await keepTextStream(streams, '/ai/chat-1', new Response('data: {"type":"start"}\n\n').body!.pipeThrough(new TextDecoderStream()))
 *
 * @since 0.1.0
 * @category streams
 */
export const keepTextStream = async (streams: StreamsTarget, path: string, stream: ReadableStream<string>): Promise<void> => {
  await local(streams, path, { method: 'DELETE' }).then((r) => r.body?.cancel())
  await kept(await local(streams, path, { method: 'PUT', headers: { 'content-type': 'text/plain; charset=utf-8' } }), `The stream ${path}`)
  const out = appender<string>(async (pieces, close) => {
    const text = pieces.join('')
    const response = await local(streams, path, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8', ...(close ? { 'stream-closed': 'true' } : {}) },
      ...(text === '' ? {} : { body: text }),
    })
    await kept(response, `An append to ${path}`)
  })
  const writes: Array<Promise<void>> = []
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (value !== '') writes.push(out.write(value))
  }
  writes.push(out.end())
  await Promise.all(writes)
}

/**
 * The text stream at `path` from its start, live until it is closed, as a `Response` with
 * `headers` (for the AI SDK, its UI message stream headers); 204 when there is none or it has
 * ended (no answer being generated: what `useChat({ resume: true })` takes as nothing to resume).
 *
 * @example
 * import { memoryStreamsStorage, openStreamsHandler, replayTextStream } from 'chatfold/streams'
 * const streams = await openStreamsHandler(memoryStreamsStorage())
 * const none = await replayTextStream(streams, '/ai/nothing')
 * none.status // 204
 *
 * @since 0.1.0
 * @category streams
 */
export const replayTextStream = async (
  streams: StreamsTarget,
  path: string,
  headers: Readonly<Record<string, string>> = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
): Promise<Response> => {
  const head = await local(streams, path, { method: 'HEAD' })
  if (head.status !== 200 || head.headers.get('stream-closed') === 'true') return new Response(null, { status: 204 })
  let offset = '-1'
  const enc = new TextEncoder()
  const controller = new AbortController()
  const body = new ReadableStream<Uint8Array>({
    pull: async (out) => {
      for (;;) {
        const r = await local(streams, path, { method: 'GET', signal: controller.signal }, `?offset=${offset}&live=long-poll`)
        if (r.status !== 200 && r.status !== 204) {
          await r.body?.cancel()
          out.close()
          return
        }
        const text = r.status === 200 ? await r.text() : ''
        offset = r.headers.get('stream-next-offset') ?? offset
        if (text !== '') out.enqueue(enc.encode(text))
        if (r.headers.get('stream-closed') === 'true') {
          out.close()
          return
        }
        if (text !== '') return
      }
    },
    cancel: () => controller.abort(),
  })
  return new Response(body, { status: 200, headers })
}
