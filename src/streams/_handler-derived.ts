/**
 * The streams the handler's owner keeps (a conversation of the chat store, durable elsewhere):
 * `publish` appends JSON messages to a read-only stream made on first use, shown to readers at
 * once and never written to the streams log.
 *
 * @module
 */
import { applyRecord, markDurable, pushAppend, type Stream } from './_state.ts'
import type { Core } from './_handler-core.ts'

/** Appends `values` (JSON) to the derived stream at `path`, made on first use. */
export const publish = (h: Core) => (path: string, values: ReadonlyArray<unknown>): void => {
  const { streams } = h
  let s = streams.byPath.get(path)
  if (s === undefined || !s.derived) {
    applyRecord(streams, { t: 'create', path, contentType: 'application/json', at: h.now(), data: [] }, true)
    s = streams.byPath.get(path) as Stream
    s.derived = true
  }
  if (values.length === 0) return
  const enc = new TextEncoder()
  // the bytes go in as they are: a mirror is never written to the streams log, so the record's
  // base64 (a pass over every byte each way, a slow one where the runtime has no native base64) is not needed
  pushAppend(s, values.map((v) => enc.encode(JSON.stringify(v))))
  s.durableEnd = s.end
  markDurable(streams, { t: 'append', path, data: [] }, s.end, s)
}
