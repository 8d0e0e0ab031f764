/**
 * The streams handler's `POST`: appends to a stream (and closes it, with `Stream-Closed`), checking
 * `Stream-Seq` and an idempotent producer's epoch and sequence number, so that a retried append is
 * answered as done without being kept twice.
 *
 * @module
 */
import type { StreamProducer, StreamRecord } from './log.ts'
import { baseType, toBase64 } from './_state.ts'
import { answer, isTrue, jsonMessages, parseWhole, readBytes, refuse, showOffset } from './_http.ts'
import type { Core } from './_handler-core.ts'

/** The producer headers of a request: none, all three valid, or why not. */
const producerOf = (request: Request): StreamProducer | undefined | string => {
  const id = request.headers.get('producer-id')
  const epoch = request.headers.get('producer-epoch')
  const seq = request.headers.get('producer-seq')
  if (id === null && epoch === null && seq === null) return undefined
  if (id === null || epoch === null || seq === null) return 'Producer-Id, Producer-Epoch and Producer-Seq go together'
  const e = parseWhole(epoch.trim())
  const s = parseWhole(seq.trim())
  if (id.trim() === '' || e === undefined || s === undefined) return 'The producer headers are not valid'
  return { id, epoch: e, seq: s }
}

/** Answers a `POST` to `path`. */
export const append = (h: Core) => async (request: Request, path: string): Promise<Response> => {
  const s0 = h.live(path)
  if (s0 instanceof Response) return s0
  const producer = producerOf(request)
  if (typeof producer === 'string') return refuse(400, producer)
  const closing = isTrue(request.headers.get('stream-closed'))
  const bytes = await readBytes(request, h.limit)
  if (bytes === 'too_large') return refuse(413, 'The body is too large')
  const s = h.live(path)
  if (s instanceof Response) return s
  if (s !== s0) return refuse(404, 'The stream does not exist')
  const ct = request.headers.get('content-type')
  if (bytes.length === 0 && !closing) return refuse(400, 'An empty body appends nothing')
  if (bytes.length > 0) {
    if (ct === null) return refuse(400, 'Content-Type is required')
    if (baseType(ct) !== baseType(s.contentType)) return refuse(409, "The content type is not the stream's")
  }
  const tail = { 'stream-next-offset': showOffset(s.durableEnd) }
  let producerHeaders: Record<string, string> = {}
  let fresh = true
  if (producer !== undefined) {
    const state = s.producers.get(producer.id)
    if (state !== undefined && producer.epoch < state.epoch)
      return refuse(403, 'A newer producer epoch holds this producer', { 'producer-epoch': String(state.epoch) })
    if (state === undefined || producer.epoch > state.epoch) {
      if (producer.seq !== 0) return refuse(400, 'A new producer epoch starts at sequence 0')
    } else if (producer.seq <= state.seq) {
      fresh = false
    } else if (producer.seq > state.seq + 1) {
      return refuse(409, 'A producer sequence number was skipped', {
        'producer-expected-seq': String(state.seq + 1),
        'producer-received-seq': String(producer.seq),
      })
    }
    producerHeaders = { 'producer-epoch': String(producer.epoch), 'producer-seq': String(fresh ? producer.seq : (state as { seq: number }).seq) }
    if (!fresh) return answer(204, null, { ...tail, ...producerHeaders, ...(s.closed ? { 'stream-closed': 'true' } : {}) })
  }
  if (s.closed) {
    if (closing && bytes.length === 0) return answer(204, null, { ...tail, 'stream-closed': 'true' })
    return refuse(409, 'The stream is closed', { ...tail, 'stream-closed': 'true' })
  }
  const streamSeq = request.headers.get('stream-seq')
  if (streamSeq !== null && s.streamSeq !== undefined && streamSeq <= s.streamSeq) return refuse(409, 'Stream-Seq must increase')
  let data: ReadonlyArray<Uint8Array> = []
  if (bytes.length > 0) {
    const messages = s.json ? jsonMessages(bytes, false) : [bytes]
    if (typeof messages === 'string') return refuse(400, messages)
    data = messages
  }
  const record: StreamRecord = data.length === 0 ? { t: 'close', path, ...(producer === undefined ? {} : { producer }) } : {
    t: 'append',
    path,
    data: data.map(toBase64),
    ...(streamSeq === null ? {} : { streamSeq }),
    ...(producer === undefined ? {} : { producer }),
    ...(closing ? { close: true } : {}),
  }
  return h.commit(record, (kept) =>
    answer(producer === undefined || data.length === 0 ? 204 : 200, null, {
      'stream-next-offset': showOffset(kept?.durableEnd ?? 0),
      ...producerHeaders,
      ...(closing ? { 'stream-closed': 'true' } : {}),
    }))
}
