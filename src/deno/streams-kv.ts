/**
 * The Durable Streams log in Deno KV: each record UTF-8 JSON in parts of at most 60 kB (a KV value
 * holds 64 KiB), written with atomic commits of at most 600 kB; each commit moves a head key to the
 * last record it completes and checks the head it last saw, so a record is kept once the head
 * covers it (only then is its append acknowledged), and a second writer is refused. Parts beyond
 * the head (a crash between the commits of one large batch, never acknowledged) are removed on load.
 *
 * @module
 */
import type { StreamRecord, StreamsStorage } from '../streams/log.ts'
import type { KvLike } from './kv-storage.ts'

type Key = Parameters<KvLike['get']>[0]

const PART = 60_000
const COMMIT_BYTES = 600_000
const COMMIT_OPS = 500

const parts = (bytes: Uint8Array): Uint8Array[] => {
  const out: Uint8Array[] = []
  for (let at = 0; at < bytes.length || out.length === 0; at += PART) out.push(bytes.slice(at, at + PART))
  return out
}

const joined = (chunks: ReadonlyArray<Uint8Array>): string => {
  const all = new Uint8Array(chunks.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of chunks) {
    all.set(p, at)
    at += p.length
  }
  return new TextDecoder().decode(all)
}

/**
 * The streams log in Deno KV under the key prefix `["chatfold-streams", name]`.
 *
 * @example
 * import { kvStreamsStorage } from 'chatfold/deno'
 * // the log `openStreamsHandler` (chatfold/streams) replays and appends to
 * const storage = kvStreamsStorage(await Deno.openKv('./chat.sqlite3'), 'support')
 * const records = await storage.load()
 *
 * @since 0.1.0
 * @category deno
 */
export const kvStreamsStorage = (kv: KvLike, name = 'default'): StreamsStorage => {
  const P: Key = ['chatfold-streams', name]
  const HEAD: Key = [...P, 'head']
  let head = 0
  let headStamp: string | null = null

  const commit = async (ops: ReadonlyArray<readonly [Key, Uint8Array]>, to: number): Promise<void> => {
    let a = kv.atomic().check({ key: HEAD, versionstamp: headStamp })
    for (const [k, v] of ops) a = a.set(k, v)
    const r = await a.set(HEAD, to).commit()
    if (!r.ok || r.versionstamp === undefined) throw new Error(`Another writer changed the streams log ${JSON.stringify(name)} in Deno KV`)
    headStamp = r.versionstamp
    head = to
  }

  return {
    load: async () => {
      const h = await kv.get(HEAD)
      headStamp = h.versionstamp
      head = typeof h.value === 'number' ? h.value : 0
      const byRecord = new Map<number, Uint8Array[]>()
      const torn: Key[] = []
      for await (const e of kv.list({ prefix: [...P, 'log'] })) {
        const seq = e.key[3] as number
        if (seq > head) torn.push(e.key)
        else byRecord.set(seq, [...(byRecord.get(seq) ?? []), e.value as Uint8Array])
      }
      for (let i = 0; i < torn.length; i += COMMIT_OPS) {
        let a = kv.atomic().check({ key: HEAD, versionstamp: headStamp })
        for (const k of torn.slice(i, i + COMMIT_OPS)) a = a.delete(k)
        if (!(await a.commit()).ok) throw new Error(`Another writer changed the streams log ${JSON.stringify(name)} in Deno KV`)
      }
      return [...byRecord.entries()].sort(([a], [b]) => a - b).map(([seq, chunks]) => {
        try {
          return JSON.parse(joined(chunks)) as StreamRecord
        } catch {
          throw new Error(`Cannot recover the streams log: record ${seq} (Deno KV ${JSON.stringify([...P, 'log', seq])}) is not JSON`)
        }
      })
    },
    append: async (records) => {
      let ops: Array<readonly [Key, Uint8Array]> = []
      let bytes = 0
      let seq = head
      let complete = head
      for (const r of records) {
        seq++
        for (const [i, part] of parts(new TextEncoder().encode(JSON.stringify(r))).entries()) {
          if (ops.length > 0 && (bytes + part.length > COMMIT_BYTES || ops.length >= COMMIT_OPS)) {
            await commit(ops, complete)
            ops = []
            bytes = 0
          }
          ops.push([[...P, 'log', seq, i], part])
          bytes += part.length
        }
        complete = seq
      }
      await commit(ops, complete)
    },
    close: async () => {
      kv.close?.()
    },
  }
}
