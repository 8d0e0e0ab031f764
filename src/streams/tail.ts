/**
 * A client that tails a JSON Durable Stream (a conversation, an answer being generated) from an
 * offset, by Server-Sent Events or long-poll, and reconnects by itself: after a dropped
 * connection it resumes from the last offset it delivered, so every message comes once, in
 * order, with no gap. Web-standard (`fetch`), for a page, a worker or a server.
 *
 * @module
 */

/**
 * Messages of a stream and the offset just after them: store `offset` to resume from there
 * later. `upToDate` says the batch reaches the stream's end (as it was); `closed` that the
 * stream is closed and the tail ends.
 *
 * @since 0.1.0
 * @category streams
 */
export type TailBatch = { readonly messages: ReadonlyArray<unknown>; readonly offset: string; readonly upToDate: boolean; readonly closed: boolean }

/**
 * Options of `tailStream`: where to start (`-1`, the start, by default; `now`, the end; or an
 * offset a batch gave), the live mode (`sse` by default, or `long-poll`), headers (a token),
 * an abort signal, the `fetch` to use, and how long to wait before reconnecting after a failed
 * connection (500 ms).
 *
 * @since 0.1.0
 * @category streams
 */
export type TailOptions = {
  readonly offset?: string
  readonly live?: 'sse' | 'long-poll'
  readonly headers?: Readonly<Record<string, string>>
  readonly signal?: AbortSignal
  readonly fetch?: (input: string, init: RequestInit) => Promise<Response>
  readonly retryMs?: number
}

/**
 * Why a tail stopped: the stream does not exist (`not_found`), was deleted (`gone`), or the
 * server refused the read (`refused`: a 4xx, such as a missing token).
 *
 * @example
 * import { TailError } from 'chatfold/streams'
 * const e = new TailError('gone', 410, 'The stream was deleted')
 * e.code // 'gone'
 *
 * @since 0.1.0
 * @category streams
 */
export class TailError extends Error {
  override readonly name = 'TailError'
  constructor(readonly code: 'not_found' | 'gone' | 'refused', readonly status: number, message: string) {
    super(message)
  }
}

const wait = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done)
  })

/** The refusal a status is, or undefined for one to retry (5xx). */
const refusal = async (response: Response): Promise<TailError | undefined> => {
  if (response.status < 400 || response.status >= 500) return undefined
  const text = await response.text().catch(() => '')
  const code = response.status === 404 ? 'not_found' : response.status === 410 ? 'gone' : 'refused'
  return new TailError(code, response.status, `The stream answered ${response.status}: ${text.slice(0, 200)}`)
}

/** The SSE events of a body, as they come: type and data. */
async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<{ readonly type: string; readonly data: string }> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      buffer += decoder.decode(value, { stream: true })
      for (let end = buffer.search(/\r?\n\r?\n/); end >= 0; end = buffer.search(/\r?\n\r?\n/)) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '')
        let type = 'message'
        const data: string[] = []
        for (const line of block.split(/\r?\n/)) {
          if (line.startsWith('event:')) type = line.slice(6).trim()
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''))
        }
        yield { type, data: data.join('\n') }
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}

/**
 * Tails the JSON stream at `url`: yields each batch of messages as it is kept, resuming after a
 * dropped connection from the last offset it yielded, until the stream is closed (its last batch
 * has `closed: true`) or `signal` aborts. A stream that does not exist, was deleted, or refuses
 * the read ends the tail with a `TailError`; a server error or a network failure is retried.
 *
 * @example
 * import { tailStream } from 'chatfold/streams'
 * const controller = new AbortController()
 * controller.abort()
 * const tail = tailStream('http://localhost:8787/streams/conversations/support-7', { signal: controller.signal })
 * // aborted before it started: the tail ends at once
 * const first = await tail.next()
 * first.done // true
 *
 * @since 0.1.0
 * @category streams
 */
export async function* tailStream(url: string, options: TailOptions = {}): AsyncGenerator<TailBatch, void, undefined> {
  const get = options.fetch ?? ((input: string, init: RequestInit) => fetch(input, init))
  const live = options.live ?? 'sse'
  const retryMs = options.retryMs ?? 500
  const signal = options.signal
  let offset = options.offset ?? '-1'
  let cursor: string | undefined
  while (signal?.aborted !== true) {
    const target = new URL(url)
    target.searchParams.set('offset', offset)
    target.searchParams.set('live', live)
    if (cursor !== undefined) target.searchParams.set('cursor', cursor)
    let response: Response
    try {
      response = await get(target.href, { headers: { ...options.headers }, ...(signal === undefined ? {} : { signal }) })
    } catch {
      await wait(retryMs, signal)
      continue
    }
    const refused = await refusal(response)
    if (refused !== undefined) throw refused
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined)
      await wait(retryMs, signal)
      continue
    }
    try {
      if (live === 'long-poll') {
        // the whole answer or nothing: a body cut short is read again from the same offset
        const text = response.status === 204 ? '' : await response.text()
        const next = response.headers.get('stream-next-offset') ?? offset
        const closed = response.headers.get('stream-closed') === 'true'
        cursor = response.headers.get('stream-cursor') ?? cursor
        const messages = text === '' ? [] : (JSON.parse(text) as unknown[])
        if (messages.length > 0 || closed || next !== offset) {
          offset = next
          yield { messages, offset, upToDate: response.headers.get('stream-up-to-date') === 'true', closed }
        }
        if (closed) return
        continue
      }
      if (response.body === null) continue
      // data events wait for the control event that gives their offset: a connection dropped
      // between the two delivers nothing of them, and the next one sends them again
      let pending: unknown[] = []
      for await (const e of events(response.body)) {
        if (e.type === 'data') pending.push(...(JSON.parse(e.data) as unknown[]))
        else if (e.type === 'control') {
          const c = JSON.parse(e.data) as { streamNextOffset?: string; streamCursor?: string; upToDate?: boolean; streamClosed?: boolean }
          const next = c.streamNextOffset ?? offset
          cursor = c.streamCursor ?? cursor
          const closed = c.streamClosed === true
          const messages = pending
          pending = []
          if (messages.length > 0 || closed || next !== offset) {
            offset = next
            yield { messages, offset, upToDate: c.upToDate === true, closed }
          }
          if (closed) return
        }
      }
    } catch (e) {
      if (e instanceof SyntaxError) throw new TailError('refused', response.status, `The stream is not a JSON stream: ${e.message}`)
      // a dropped connection: the loop resumes from the last offset yielded
    }
  }
}
