/**
 * The streams handler's `PUT`: creates a stream (its content type, TTL or expiry, closed or not,
 * its first data), or a fork of another from an offset (and a sub-offset into the append there),
 * and answers a create repeated with the same configuration as done (200), another as a conflict.
 *
 * @module
 */
import type { StreamRecord } from './log.ts'
import { baseType, chunksFrom, isJsonType, type Stream, toBase64 } from './_state.ts'
import { answer, isTrue, jsonMessages, parseOffset, parseWhole, readBytes, refuse, showOffset } from './_http.ts'
import type { Core } from './_handler-core.ts'

/** Answers a `PUT` to `path`. */
export const create = (h: Core) => async (request: Request, path: string): Promise<Response> => {
  const ct = request.headers.get('content-type')?.trim() || 'application/octet-stream'
  const ttlText = request.headers.get('stream-ttl')
  const expText = request.headers.get('stream-expires-at')
  if (ttlText !== null && expText !== null) return refuse(400, 'Stream-TTL and Stream-Expires-At do not go together')
  const ttl0 = ttlText === null ? undefined : parseWhole(ttlText.trim())
  if (ttlText !== null && ttl0 === undefined) return refuse(400, 'Stream-TTL must be whole seconds')
  const expiresAt0 = expText === null ? undefined : Date.parse(expText)
  if (expiresAt0 !== undefined && Number.isNaN(expiresAt0)) return refuse(400, 'Stream-Expires-At must be an RFC 3339 time')
  const closed = isTrue(request.headers.get('stream-closed'))
  const forkFrom = request.headers.get('stream-forked-from')
  const bytes = await readBytes(request, h.limit)
  if (bytes === 'too_large') return refuse(413, 'The body is too large')
  const json = isJsonType(ct)
  const messages = json ? (bytes.length === 0 ? [] : jsonMessages(bytes, true)) : bytes.length === 0 ? [] : [bytes]
  if (typeof messages === 'string') return refuse(400, messages)
  const subText = request.headers.get('stream-fork-sub-offset')
  const sub = subText === null ? 0 : parseWhole(subText.trim())
  if (sub === undefined) return refuse(400, 'Stream-Fork-Sub-Offset must be a whole number')
  if (subText !== null && forkFrom === null) return refuse(400, 'Stream-Fork-Sub-Offset needs Stream-Forked-From')
  let fork: { readonly from: string; readonly offset: number } | undefined
  let source: Stream | undefined
  let ttl = ttl0
  let expiresAt = expiresAt0
  if (forkFrom !== null) {
    const found = h.at(forkFrom)
    if (found === undefined) return refuse(404, 'The stream to fork does not exist')
    if (found === 'gone') return refuse(409, 'The stream to fork was deleted')
    source = found
    const offsetText = request.headers.get('stream-fork-offset')
    if (sub > 0 && offsetText === null) return refuse(400, 'Stream-Fork-Sub-Offset needs Stream-Fork-Offset')
    const o = parseOffset(offsetText)
    let offset = offsetText === null ? source.durableEnd : o.kind === 'at' ? o.position : o.kind === 'now' ? source.durableEnd : o.kind === 'start' ? 0 : -1
    if (offset < 0 || offset > source.durableEnd) return refuse(400, 'The fork offset is not in the stream')
    if (sub > 0) {
      // a sub-offset counts into the append that starts at the offset: bytes, or JSON messages
      const pieces = chunksFrom(source, offset, source.durableEnd)
      const first = pieces[0]
      if (first === undefined || first.start !== offset) return refuse(400, 'No append starts at the fork offset')
      const ofAppend = pieces.filter((c) => c.append === first.append)
      if (source.json) {
        if (sub > ofAppend.length) return refuse(400, 'The fork sub-offset is past its append')
        offset = (ofAppend[sub - 1] as { end: number }).end
      } else {
        const size = ofAppend.reduce((n, c) => n + c.bytes.length, 0)
        if (sub > size) return refuse(400, 'The fork sub-offset is past its append')
        offset += sub
      }
    }
    if (request.headers.get('content-type') !== null && baseType(ct) !== baseType(source.contentType))
      return refuse(409, "A fork keeps its stream's content type")
    fork = { from: forkFrom, offset }
    if (ttlText === null && expText === null) {
      ttl = source.ttl
      expiresAt = source.expiresAt
    }
  }
  const existing = h.at(path)
  if (existing === 'gone') return refuse(409, "A deleted stream's path is not taken again while forks of it live")
  if (existing !== undefined) {
    const same = baseType(existing.contentType) === baseType(source?.contentType ?? ct) && existing.ttl === ttl && existing.expiresAt === expiresAt &&
      existing.closed === closed && existing.fork?.from === fork?.from && existing.fork?.offset === fork?.offset
    if (!same) return refuse(409, 'The stream exists with another configuration')
    return answer(200, null, { 'content-type': existing.contentType, 'stream-next-offset': showOffset(existing.durableEnd) })
  }
  const contentType = source?.contentType ?? ct
  const record: StreamRecord = {
    t: 'create',
    path,
    contentType,
    at: h.now(),
    ...(ttl === undefined ? {} : { ttl }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    ...(closed ? { closed } : {}),
    data: messages.map(toBase64),
    ...(fork === undefined ? {} : { fork }),
  }
  return h.commit(record, (s) =>
    answer(201, null, {
      location: request.url,
      'content-type': contentType,
      'stream-next-offset': showOffset(s?.durableEnd ?? 0),
      ...(closed ? { 'stream-closed': 'true' } : {}),
    }))
}
