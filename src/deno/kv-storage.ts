/**
 * The store's log and snapshot in Deno KV (a local SQLite file under `deno serve --unstable-kv`,
 * FoundationDB on Deno Deploy). Records are UTF-8 JSON in parts of at most 60 kB (a KV value holds
 * 64 KiB), written with atomic commits; each commit also moves a head key to the last record it
 * completes, and checks the head it last saw, so a record is whole once the head covers it and a
 * second writer is refused. Parts beyond the head (a crash between the commits of one large
 * record, never acknowledged) are removed on load.
 *
 * One process owns a store: a lease key (`[…, "lease"]`: the owner's id and when the lease ends)
 * is taken on load and renewed by a timer; every commit checks it. A store whose lease another
 * process renews is refused with its owner named; a lease left by a process that died (no longer
 * renewed) is taken over once it ends, a few seconds later.
 *
 * @module
 */
import type { LogEntry, StoredLog, StoredSnapshot, StoreStorage } from '../store/durable.ts'

/** A Deno KV key (the parts `Deno.KvKeyPart` allows), so a real `Deno.Kv` is a `KvLike`. */
type Key = ReadonlyArray<string | number | bigint | boolean | Uint8Array | symbol>

/**
 * The part of Deno KV the store uses (`Deno.Kv`).
 *
 * @since 0.1.0
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
 * @since 0.1.0
 * @category deno
 */
export type KvAtomicLike = {
  check: (...checks: ReadonlyArray<{ readonly key: Key; readonly versionstamp: string | null }>) => KvAtomicLike
  set: (key: Key, value: unknown) => KvAtomicLike
  delete: (key: Key) => KvAtomicLike
  commit: () => Promise<{ readonly ok: boolean; readonly versionstamp?: string }>
}

/**
 * Options of `kvStorage`: the owner's id (random by default: one per process is what keeps two
 * apart), how long a lease lasts (3 s) and how often it is renewed (a third of that).
 *
 * @since 0.1.0
 * @category deno
 */
export type KvStorageOptions = { readonly owner?: string; readonly leaseMs?: number }

type Lease = { readonly owner: string; readonly expires: number }

const isLease = (u: unknown): u is Lease =>
  typeof u === 'object' && u !== null && typeof (u as Lease).owner === 'string' && typeof (u as Lease).expires === 'number'

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/**
 * A random owner id (16 hex digits): what tells one process's lease from another's.
 *
 * @example
 * import { newOwnerId } from 'chatfold/deno'
 * newOwnerId().length // 16
 *
 * @since 0.1.0
 * @category deno
 */
export const newOwnerId = (): string => Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('')

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

/** Deletes keys in batches (not under the head check: what they held is covered already). */
const removeKeys = async (kv: KvLike, keys: ReadonlyArray<Key>): Promise<void> => {
  for (let i = 0; i < keys.length; i += COMMIT_OPS) {
    let a = kv.atomic()
    for (const k of keys.slice(i, i + COMMIT_OPS)) a = a.delete(k)
    await a.commit()
  }
}

/** The snapshot the key `[...P, 'snapshot']` names, read from its parts, if there is one. */
const readSnapshot = async (kv: KvLike, P: Key): Promise<StoredSnapshot | undefined> => {
  const meta = (await kv.get([...P, 'snapshot'])).value as { seq: number; parts: number } | null
  if (meta === null) return undefined
  const parts: Uint8Array[] = []
  for await (const e of kv.list({ prefix: [...P, 'snapshot-part', meta.seq] })) parts.push(e.value as Uint8Array)
  if (parts.length !== meta.parts) throw new Error(`Cannot read the snapshot at record ${meta.seq}: ${parts.length} of its ${meta.parts} parts are in Deno KV`)
  return { seq: meta.seq, simulator: JSON.parse(join(parts)) }
}

/** The parts of the records after `after` up to the head `head`, by record, and the keys of the parts beyond the head. */
const readLog = async (kv: KvLike, P: Key, head: number, after: number): Promise<{ readonly records: Map<number, Uint8Array[]>; readonly torn: Key[] }> => {
  const records = new Map<number, Uint8Array[]>()
  const torn: Key[] = []
  for await (const e of kv.list({ prefix: [...P, 'log'] })) {
    const seq = e.key[3] as number
    if (seq > head) torn.push(e.key)
    else if (seq > after) records.set(seq, [...(records.get(seq) ?? []), e.value as Uint8Array])
  }
  return { records, torn }
}

/** Each record's parts joined and read as its command. */
const decodeRecords = (P: Key, records: ReadonlyMap<number, ReadonlyArray<Uint8Array>>): StoredLog['tail'] =>
  [...records.entries()].map(([seq, parts]) => {
    try {
      return { seq, command: JSON.parse(join(parts)) as unknown }
    } catch {
      throw new Error(`Cannot recover the store: record ${seq} (Deno KV ${JSON.stringify([...P, 'log', seq])}) is not JSON`)
    }
  })

/** Writes the parts of the snapshot `s` (eight a commit), and returns how many there are. */
const writeSnapshotParts = async (kv: KvLike, P: Key, s: StoredSnapshot): Promise<number> => {
  const parts = chunks(new TextEncoder().encode(JSON.stringify(s.simulator)))
  for (let i = 0; i < parts.length; i += 8) {
    let a = kv.atomic()
    parts.slice(i, i + 8).forEach((p, j) => (a = a.set([...P, 'snapshot-part', s.seq, i + j], p)))
    await a.commit()
  }
  return parts.length
}

/** The keys a snapshot at record `seq` makes stale: the log up to it, and the parts of the snapshot before it (at `old`). */
const staleKeys = async (kv: KvLike, P: Key, seq: number, old: number | undefined): Promise<Key[]> => {
  const stale: Key[] = []
  for await (const e of kv.list({ prefix: [...P, 'log'] })) if ((e.key[3] as number) <= seq) stale.push(e.key)
  if (old !== undefined) { for await (const e of kv.list({ prefix: [...P, 'snapshot-part', old] })) stale.push(e.key) }
  return stale
}

/**
 * Takes the lease at `key` for `owner` for `ttl` ms, and returns its versionstamp: a lease free,
 * ours, or ended is taken; one no longer renewed is waited out; one renewed while waiting is
 * refused (`held` says by whom).
 */
const takeLease = async (kv: KvLike, key: Key, owner: string, ttl: number, held: (l: Lease) => Error): Promise<string> => {
  const beat = Math.floor(ttl / 3)
  let seen: string | null | undefined
  const giveUp = Date.now() + ttl + beat
  for (;;) {
    const cur = await kv.get(key)
    const l = isLease(cur.value) ? cur.value : undefined
    const now = Date.now()
    if (l === undefined || l.owner === owner || l.expires <= now) {
      const r = await kv.atomic().check({ key, versionstamp: cur.versionstamp }).set(key, { owner, expires: now + ttl }).commit()
      if (r.ok && r.versionstamp !== undefined) return r.versionstamp
      continue
    }
    // renewed since we first looked: its owner is alive (a lease renewed just before its owner died is waited out)
    if ((seen !== undefined && seen !== cur.versionstamp) || now > giveUp) throw held(l)
    seen = cur.versionstamp
    await sleep(Math.min(beat / 4, l.expires - now + 10))
  }
}

/**
 * A store storage in Deno KV under the key prefix `["chatfold", storeId]`.
 *
 * @example
 * import { openDurableStore } from 'chatfold/store'
 * import { kvStorage } from 'chatfold/deno'
 * const kv = await Deno.openKv('./chat.sqlite3')
 * const store = await openDurableStore(kvStorage(kv, 'support'))()
 *
 * @since 0.1.0
 * @category deno
 */
export const kvStorage = (kv: KvLike, storeId = 'default', options: KvStorageOptions = {}): StoreStorage => {
  const P: Key = ['chatfold', storeId]
  const HEAD: Key = [...P, 'head']
  const META: Key = [...P, 'snapshot']
  const LEASE: Key = [...P, 'lease']
  const owner = options.owner ?? newOwnerId()
  const ttl = Math.max(300, options.leaseMs ?? 3_000)
  const beat = Math.floor(ttl / 3)
  let headStamp: string | null = null
  let head = 0
  let leaseStamp: string | null = null
  let lost: Error | undefined
  let timer: ReturnType<typeof setInterval> | undefined
  // commits and renewals both check the lease's versionstamp: one at a time
  let queue: Promise<unknown> = Promise.resolve()
  const exclusive = <A>(f: () => Promise<A>): Promise<A> => {
    const run = queue.then(f, f)
    queue = run.catch(() => undefined)
    return run
  }
  const name = JSON.stringify(storeId)

  const held = (l: Lease): Error =>
    new Error(
      `the store ${name} in Deno KV is owned by another process (owner ${l.owner}, lease renewed until ${
        new Date(l.expires).toISOString()
      }); one process serves a store at a time`,
    )

  /** Takes the lease (see `takeLease`). */
  const acquire = async (): Promise<void> => {
    leaseStamp = await takeLease(kv, LEASE, owner, ttl, held)
  }

  const renew = (): Promise<void> =>
    exclusive(async () => {
      if (lost !== undefined) return
      const expires = Date.now() + ttl
      try {
        const r = await kv.atomic().check({ key: LEASE, versionstamp: leaseStamp }).set(LEASE, { owner, expires }).commit()
        if (r.ok && r.versionstamp !== undefined) leaseStamp = r.versionstamp
        else {
          const now = (await kv.get(LEASE)).value
          lost = isLease(now) && now.owner !== owner ? held(now) : new Error(`the lease of the store ${name} changed under this process`)
        }
      } catch {
        // a renewal that could not be sent: the next one tries again; commits still check the lease
      }
    })

  const stopRenewing = () => {
    if (timer !== undefined) clearInterval(timer)
    timer = undefined
  }

  /** Commits `ops`, checking the head last seen and the lease, and moving the head to `to`. */
  const commit = (ops: ReadonlyArray<readonly [Key, unknown] | readonly [Key]>, to: number): Promise<void> =>
    exclusive(async () => {
      if (lost !== undefined) throw lost
      let a = kv.atomic().check({ key: HEAD, versionstamp: headStamp }, { key: LEASE, versionstamp: leaseStamp })
      for (const op of ops) a = op.length === 2 ? a.set(op[0], op[1]) : a.delete(op[0])
      a = a.set(HEAD, to)
      const r = await a.commit()
      if (!r.ok || r.versionstamp === undefined) {
        const l = (await kv.get(LEASE)).value
        throw isLease(l) && l.owner !== owner ? held(l) : new Error(`Another writer changed the store ${name} in Deno KV`)
      }
      headStamp = r.versionstamp
      head = to
    })

  const load = async (): Promise<StoredLog> => {
    await acquire()
    timer = setInterval(() => void renew(), beat)
    ;(globalThis as { Deno?: { unrefTimer?: (id: unknown) => void } }).Deno?.unrefTimer?.(timer)
    try {
      return await recover()
    } catch (e) {
      await close()
      throw e
    }
  }

  const recover = async (): Promise<StoredLog> => {
    const h = await kv.get(HEAD)
    headStamp = h.versionstamp
    head = typeof h.value === 'number' ? h.value : 0
    const snapshot = await readSnapshot(kv, P)
    const { records, torn } = await readLog(kv, P, head, snapshot?.seq ?? 0)
    const repaired: string[] = []
    if (torn.length > 0) {
      await removeKeys(kv, torn)
      repaired.push(`removed ${torn.length} parts of records after the head (record ${head}): never acknowledged`)
    }
    return { snapshot, tail: decodeRecords(P, records), repaired }
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
    const parts = await writeSnapshotParts(kv, P, s)
    const old = (await kv.get(META)).value as { seq: number } | null
    await commit([[META, { seq: s.seq, parts }]], head)
    await removeKeys(kv, await staleKeys(kv, P, s.seq, old?.seq))
  }

  const check = async (): Promise<void> => {
    if (lost !== undefined) throw lost
  }

  /** Stops renewing, lets the lease go (when still ours), closes the database. */
  const close = async (): Promise<void> => {
    stopRenewing()
    await exclusive(async () => {
      if (lost === undefined && leaseStamp !== null) await kv.atomic().check({ key: LEASE, versionstamp: leaseStamp }).delete(LEASE).commit()
      leaseStamp = null
    }).catch(() => undefined)
    kv.close?.()
  }

  return { load, append, writeSnapshot, check, close }
}
