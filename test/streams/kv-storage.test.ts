import { describe, expect, it } from 'vitest'
import { type KvAtomicLike, type KvLike } from '../../src/deno/kv-storage.ts'
import { kvStreamsStorage } from '../../src/deno/streams-kv.ts'
import { openStreamsHandler } from '../../src/streams/handler.ts'

type Key = Parameters<KvLike['get']>[0]
const keyText = (k: Key): string => JSON.stringify(k.map((p) => (typeof p === 'number' ? `n${String(p).padStart(12, '0')}` : p)))

/** A Deno KV in memory (versionstamps, checks, atomic commits, prefix lists) that refuses a value over 64 KiB; `failAfter` makes commits fail from that many on. */
const memoryKv = () => {
  const data = new Map<string, { key: Key; value: unknown; stamp: string }>()
  let clock = 0
  let commits = 0
  let failAfter = Infinity
  const kv: KvLike = {
    get: async (key) => {
      const e = data.get(keyText(key))
      return { value: e?.value ?? null, versionstamp: e?.stamp ?? null }
    },
    list: (selector) => {
      const p = keyText(selector.prefix).slice(0, -1)
      const hits = [...data.entries()].filter(([k]) => k.startsWith(p) && k.length > p.length).sort(([a], [b]) => (a < b ? -1 : 1))
      return (async function* () {
        for (const [, e] of hits) yield { key: e.key, value: e.value }
      })()
    },
    atomic: () => {
      const checks: Array<{ key: Key; versionstamp: string | null }> = []
      const ops: Array<readonly [Key, unknown] | readonly [Key]> = []
      const a: KvAtomicLike = {
        check: (...cs) => (checks.push(...cs), a),
        set: (key, value) => (ops.push([key, value]), a),
        delete: (key) => (ops.push([key]), a),
        commit: async () => {
          if (commits++ >= failAfter) throw new Error('the process is gone')
          for (const op of ops) if (op.length === 2 && op[1] instanceof Uint8Array && op[1].length > 65_536) throw new Error('a value over 64 KiB')
          if (checks.some((c) => (data.get(keyText(c.key))?.stamp ?? null) !== c.versionstamp)) return { ok: false }
          const s = String(++clock).padStart(20, '0')
          for (const op of ops) {
            if (op.length === 2) data.set(keyText(op[0]), { key: op[0], value: op[1], stamp: s })
            else data.delete(keyText(op[0]))
          }
          return { ok: true, versionstamp: s }
        },
      }
      return a
    },
  }
  return { kv, keys: () => [...data.values()].map((e) => e.key), failFrom: (n: number) => (failAfter = commits + n) }
}

const url = 'http://localhost/streams/s'
const put = new Request(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' } })
const post = (bytes: Uint8Array<ArrayBuffer>) => new Request(url, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: bytes })

describe('kvStreamsStorage', () => {
  it('keeps an append larger than a KV value in parts, and reads it back whole after a restart', async () => {
    const db = memoryKv()
    const a = await openStreamsHandler(kvStreamsStorage(db.kv))
    expect((await a.handle(put)).status).toBe(201)
    const big = Uint8Array.from({ length: 3_000_000 }, (_, i) => i & 255)
    expect((await a.handle(post(big))).status).toBe(204)
    const b = await openStreamsHandler(kvStreamsStorage(db.kv), { maxReadBytes: 4_000_000 })
    const read = new Uint8Array(await (await b.handle(new Request(`${url}?offset=-1`))).arrayBuffer())
    expect(read.length).toBe(big.length)
    expect(read.findIndex((b, i) => b !== big[i])).toBe(-1)
  })

  it('a batch cut short between its commits is not acknowledged, and its parts are gone after a restart', async () => {
    const db = memoryKv()
    const a = await openStreamsHandler(kvStreamsStorage(db.kv))
    expect((await a.handle(put)).status).toBe(201)
    expect((await a.handle(post(new Uint8Array([1, 2, 3])))).status).toBe(204)
    db.failFrom(1) // the first commit of the next batch goes through, the rest do not
    expect((await a.handle(post(new Uint8Array(2_000_000)))).status).toBe(503)
    expect(db.keys().filter((k) => k[2] === 'log' && k[3] === 3).length).toBeGreaterThan(0) // some of its parts were written
    db.failFrom(Infinity)
    const b = await openStreamsHandler(kvStreamsStorage(db.kv))
    expect(db.keys().filter((k) => k[2] === 'log' && k[3] === 3)).toEqual([])
    expect(new Uint8Array(await (await b.handle(new Request(`${url}?offset=-1`))).arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]))
    expect((await b.handle(post(new Uint8Array([4])))).status).toBe(204)
  })

  it('a second writer of the same log is refused (503), and the first goes on', async () => {
    const db = memoryKv()
    const first = await openStreamsHandler(kvStreamsStorage(db.kv))
    const second = await openStreamsHandler(kvStreamsStorage(db.kv))
    expect((await first.handle(put)).status).toBe(201)
    const refused = await second.handle(new Request('http://localhost/streams/t', { method: 'PUT', headers: { 'content-type': 'text/plain' } }))
    expect(refused.status).toBe(503)
    expect(await refused.text()).toContain('Another writer')
    expect((await first.handle(post(new Uint8Array([9])))).status).toBe(204)
  })
})
