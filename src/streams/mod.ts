/**
 * chatfold/streams: the Durable Streams protocol (append-only HTTP streams read from an offset,
 * tailed by long-poll or Server-Sent Events, with idempotent producers and forks) as a
 * Web-standard handler over a durable log, and each conversation of a chat store as a stream a
 * client can resume. `chatfold serve` mounts it under `/streams/`.
 *
 * @example
 * import { memoryStreamsStorage, openStreamsHandler } from 'chatfold/streams'
 * const streams = await openStreamsHandler(memoryStreamsStorage())
 * const created = await streams.handle(new Request('http://localhost/streams/chat', { method: 'PUT', headers: { 'content-type': 'application/json' } }))
 * created.status // 201
 *
 * @module
 */
export { openStreamsHandler, type StreamsHandler, type StreamsHandlerOptions } from './handler.ts'
export { memoryStreamsStorage, type SharedStreamsLog, type StreamProducer, type StreamRecord, type StreamsStorage } from './log.ts'
export { type TailBatch, TailError, type TailOptions, tailStream } from './tail.ts'
export {
  type AnswerEvent,
  AnswerStreamError,
  answerStreamPath,
  type AnswerWriter,
  keepTextStream,
  openAnswerStream,
  replayTextStream,
  type StreamsTarget,
} from './answer.ts'
