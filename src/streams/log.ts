/**
 * The durable log behind the Durable Streams handler: the records it keeps (a stream created,
 * bytes appended, a stream closed or deleted), the small storage interface a runtime gives it
 * (load every record, append a batch durably), and an in-memory storage for tests.
 *
 * @module
 */

/**
 * The producer that wrote an append: its id, epoch and sequence number (idempotent producers).
 *
 * @since 0.1.0
 * @category streams
 */
export type StreamProducer = { readonly id: string; readonly epoch: number; readonly seq: number }

/**
 * One record of the streams log. Data is kept as base64 (`data`: one entry per message for JSON
 * streams, one per append otherwise). Times are milliseconds since the epoch. A stream created
 * `derived` is the chat store's (a conversation): clients may read it, not write it.
 *
 * @since 0.1.0
 * @category streams
 */
export type StreamRecord =
  | {
    readonly t: 'create'
    readonly path: string
    readonly contentType: string
    readonly at: number
    readonly ttl?: number
    readonly expiresAt?: number
    readonly closed?: boolean
    readonly data: ReadonlyArray<string>
    readonly fork?: { readonly from: string; readonly offset: number }
    /** Kept by the chat store (a conversation, published in the store's own transactions): read-only over HTTP. */
    readonly derived?: true
  }
  | {
    readonly t: 'append'
    readonly path: string
    readonly data: ReadonlyArray<string>
    readonly streamSeq?: string
    readonly producer?: StreamProducer
    readonly close?: boolean
  }
  | { readonly t: 'close'; readonly path: string; readonly producer?: StreamProducer }
  | { readonly t: 'delete'; readonly path: string }

/**
 * Where the streams log lives: `load` reads every record kept (in order), `append` keeps a batch
 * and resolves only once it survives a crash, `close` releases it; `shared` when other processes
 * write it too.
 *
 * @since 0.1.0
 * @category streams
 */
export type StreamsStorage = {
  readonly load: () => Promise<ReadonlyArray<StreamRecord>>
  readonly append: (records: ReadonlyArray<StreamRecord>) => Promise<void>
  readonly close: () => Promise<void>
  /** Set when other processes write the same log (a database): the handler then writes through it. */
  readonly shared?: SharedStreamsLog
}

/**
 * A streams log other processes write too: `sync` hands the records they kept since this process
 * last looked (in order) to `apply`; `exclusive` runs `write` in one transaction holding the log's
 * write lock, after handing it the records kept by others since, and `keep` appends records in that
 * transaction (kept once `exclusive` resolves); `watch` calls `wake` when others may have kept
 * records (a notification, a periodic re-check) and returns how to stop. The calls of one process
 * run one at a time, in order.
 *
 * @since 0.1.0
 * @category streams
 */
export type SharedStreamsLog = {
  readonly sync: (apply: (records: ReadonlyArray<StreamRecord>) => void) => Promise<void>
  readonly exclusive: <A>(
    write: (fresh: ReadonlyArray<StreamRecord>, keep: (records: ReadonlyArray<StreamRecord>) => Promise<void>) => Promise<A>,
  ) => Promise<A>
  readonly watch: (wake: () => void) => () => void
}

/**
 * A streams log in memory: nothing survives the process (tests, a page, a worker that holds its
 * streams only while it runs). `fileStreamsStorage` (`chatfold/node`) keeps one on disk.
 *
 * @example
 * import { memoryStreamsStorage, openStreamsHandler } from 'chatfold/streams'
 * const streams = await openStreamsHandler(memoryStreamsStorage())
 * await streams.handle(new Request('http://localhost/streams/notes', { method: 'PUT', headers: { 'content-type': 'text/plain' } }))
 * const sent = await streams.handle(new Request('http://localhost/streams/notes', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' }))
 * sent.status // 204
 *
 * @since 0.1.0
 * @category streams
 */
export const memoryStreamsStorage = (): StreamsStorage => {
  const records: StreamRecord[] = []
  return {
    load: () => Promise.resolve([...records]),
    append: (batch) => {
      records.push(...batch)
      return Promise.resolve()
    },
    close: () => Promise.resolve(),
  }
}
