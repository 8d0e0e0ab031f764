/**
 * The store's log and snapshot in Deno KV (a local SQLite file under `deno serve --unstable-kv`,
 * FoundationDB on Deno Deploy). Records are UTF-8 JSON in parts of at most 60 kB (a KV value holds
 * 64 KiB), written with atomic commits; each commit also moves a head key to the last record it
 * completes, and checks the head it last saw, so a record is whole once the head covers it and a
 * second writer is refused. Parts beyond the head (a crash between the commits of one large
 * record, never acknowledged) are removed on load.
 *
 * @module
 */
import type { LogEntry, StoredLog, StoredSnapshot, StoreStorage } from '../store/durable.ts'

/** A Deno KV key. */
/** A Deno KV key (the parts `Deno.KvKeyPart` allows), so a real `Deno.Kv` is a `KvLike`. */
type Key = ReadonlyArray<string | number | bigint | boolean | Uint8Array | symbol>

/**
 * The part of Deno KV the store uses (`Deno.Kv`).
 *
 * @since 0.2.0
 * @category deno
 */
export type KvLike = {
  readonly get: (key: Key) => Promise<{ readonly value: unknown; readonly versionstamp: string | null }>
  readonly list: (selector: { readonly prefix: Key }) => AsyncIterable<{ readonly key: Key; readonly value: unknown }>
  readonly atomic: () => KvAtomicLike
  readonly close?: () => void
}

/**
 * The part of a Deno KV atomic operation the store uses (`Deno.AtomicOperation`).
 *
 * @since 0.2.0
 * @category deno
 */
export type KvAtomicLike = {
  check: (...checks: ReadonlyArray<{ readonly key: Key; readonly versionstamp: string | null }>) => KvAtomicLike
  set: (key: Key, value: unknown) => KvAtomicLike
  delete: (key: Key) => KvAtomicLike
  commit: () => Promise<{ readonly ok: boolean; readonly versionstamp?: string }>
}

const PART = 60_000
const COMMIT_BYTES = 600_000
const COMMIT_OPS = 500

const chunks = (bytes: Uint8Array): Uint8Array[] => {
  const out: Uint8Array[] = []
  for (let at = 0; at < bytes.length || out.length === 0; at += PART) out.push(bytes.slice(at, at + PART))
  return out
}

const join = (parts: ReadonlyArray<Uint8Array>): string => {
  const total = parts.reduce((n, p) => n + p.length, 0)
  const all = new Uint8Array(total)
  let at = 0
  for (const p of parts) {
    all.set(p, at)
    at += p.length
  }
  return new TextDecoder().decode(all)
}

/**
 * A store storage in Deno KV under the key prefix `["chatfold", storeId]`.
 *
 * @example
 * import { openDurableStore } from 'chatfold'
 * import { kvStorage } from 'chatfold/deno'
 * const kv = await Deno.openKv('./chat.sqlite3')
 * const store = await openDurableStore(kvStorage(kv, 'support'))()
 *
 * @since 0.2.0
 * @category deno
 */
export const kvStorage = (kv: KvLike, storeId = 'default'): StoreStorage => {
  const P: Key = ['chatfold', storeId]
  const HEAD: Key = [...P, 'head']
  const META: Key = [...P, 'snapshot']
  let headStamp: string | null = null
  let head = 0

  /** Commits `ops`, checking the head last seen and moving it to `to`. */
  const commit = async (ops: ReadonlyArray<readonly [Key, unknown] | readonly [Key]>, to: number): Promise<void> => {
    let a = kv.atomic().check({ key: HEAD, versionstamp: headStamp })
    for (const op of ops) a = op.length === 2 ? a.set(op[0], op[1]) : a.delete(op[0])
    a = a.set(HEAD, to)
    const r = await a.commit()
    if (!r.ok || r.versionstamp === undefined) throw new Error(`Another writer changed the store ${JSON.stringify(storeId)} in Deno KV`)
    headStamp = r.versionstamp
    head = to
  }

  /** Deletes keys in batches (not under the head check: what they held is covered already). */
  const remove = async (keys: ReadonlyArray<Key>): Promise<void> => {
    for (let i = 0; i < keys.length; i += COMMIT_OPS) {
      let a = kv.atomic()
      for (const k of keys.slice(i, i + COMMIT_OPS)) a = a.delete(k)
      await a.commit()
    }
  }

  const load = async (): Promise<StoredLog> => {
    const h = await kv.get(HEAD)
    headStamp = h.versionstamp
    head = typeof h.value === 'number' ? h.value : 0
    const meta = (await kv.get(META)).value as { seq: number; parts: number } | null
    let snapshot: StoredSnapshot | undefined
    if (meta !== null) {
      const parts: Uint8Array[] = []
      for await (const e of kv.list({ prefix: [...P, 'snapshot-part', meta.seq] })) parts.push(e.value as Uint8Array)
      if (parts.length !== meta.parts) throw new Error(`Cannot read the snapshot at record ${meta.seq}: ${parts.length} of its ${meta.parts} parts are in Deno KV`)
      snapshot = { seq: meta.seq, simulator: JSON.parse(join(parts)) }
    }
    const records = new Map<number, Uint8Array[]>()
    const torn: Key[] = []
    for await (const e of kv.list({ prefix: [...P, 'log'] })) {
      const seq = e.key[3] as number
      if (seq > head) torn.push(e.key)
      else if (seq > (snapshot?.seq ?? 0)) records.set(seq, [...(records.get(seq) ?? []), e.value as Uint8Array])
    }
    const repaired: string[] = []
    if (torn.length > 0) {
      await remove(torn)
      repaired.push(`removed ${torn.length} parts of records after the head (record ${head}): never acknowledged`)
    }
    const tail = [...records.entries()].map(([seq, parts]) => {
      try {
        return { seq, command: JSON.parse(join(parts)) as unknown }
      } catch {
        throw new Error(`Cannot recover the store: record ${seq} (Deno KV ${JSON.stringify([...P, 'log', seq])}) is not JSON`)
      }
    })
    return { snapshot, tail, repaired }
  }

  const append = async (entries: ReadonlyArray<LogEntry>): Promise<void> => {
    let ops: Array<readonly [Key, unknown]> = []
    let bytes = 0
    let complete = head
    for (const e of entries) {
      const parts = chunks(new TextEncoder().encode(JSON.stringify(e.command)))
      for (const [i, part] of parts.entries()) {
        if (ops.length > 0 && (bytes + part.length > COMMIT_BYTES || ops.length >= COMMIT_OPS)) {
          await commit(ops, complete)
          ops = []
          bytes = 0
        }
        ops.push([[...P, 'log', e.seq, i], part])
        bytes += part.length
      }
      complete = e.seq
    }
    await commit(ops, complete)
  }

  const writeSnapshot = async (s: StoredSnapshot): Promise<void> => {
    const parts = chunks(new TextEncoder().encode(JSON.stringify(s.simulator)))
    for (let i = 0; i < parts.length; i += 8) {
      let a = kv.atomic()
      parts.slice(i, i + 8).forEach((p, j) => (a = a.set([...P, 'snapshot-part', s.seq, i + j], p)))
      await a.commit()
    }
    const old = (await kv.get(META)).value as { seq: number } | null
    await commit([[META, { seq: s.seq, parts: parts.length }]], head)
    const stale: Key[] = []
    for await (const e of kv.list({ prefix: [...P, 'log'] })) if ((e.key[3] as number) <= s.seq) stale.push(e.key)
    if (old !== null) for await (const e of kv.list({ prefix: [...P, 'snapshot-part', old.seq] })) stale.push(e.key)
    await remove(stale)
  }

  return { load, append, writeSnapshot, ...(kv.close === undefined ? {} : { close: async () => kv.close?.() }) }
}
