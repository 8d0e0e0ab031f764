/**
 * One owner per store, and no store left failing: two stores on one Deno KV (a KV in memory with
 * Deno's atomic semantics), the second refused while the first renews its lease and taken over
 * once it stops; and a served store whose commit failed answers 503 for that request only, then
 * opens again from what the storage holds.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { durableChatHandler } from '../../src/store/http-durable.ts'
import { type KvAtomicLike, type KvLike, kvStorage } from '../../src/deno/kv-storage.ts'
import { memoryStorage, openDurableStore, type StoreStorage } from '../../src/store/durable.ts'

type Key = ReadonlyArray<unknown>
const keyText = (k: Key): string => JSON.stringify(k)

/** A Deno KV in memory: versionstamps, checks, atomic commits, prefix lists. */
const memoryKv = () => {
  const data = new Map<string, { key: Key; value: unknown; stamp: string }>()
  let clock = 0
  const stamp = () => String(++clock).padStart(20, '0')
  const kv = (): KvLike => ({
    get: async (key) => {
      const e = data.get(keyText(key))
      return { value: e?.value ?? null, versionstamp: e?.stamp ?? null }
    },
    list: (selector) => {
      const p = keyText(selector.prefix).slice(0, -1)
      const hits = [...data.entries()].filter(([k]) => k.startsWith(p) && k.length > p.length).sort(([a], [b]) => (a < b ? -1 : 1))
      return (async function* () {
        for (const [, e] of hits) yield { key: e.key as never, value: e.value }
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
          if (checks.some((c) => (data.get(keyText(c.key))?.stamp ?? null) !== c.versionstamp)) return { ok: false }
          const s = stamp()
          for (const op of ops) {
            if (op.length === 2) data.set(keyText(op[0]), { key: op[0], value: op[1], stamp: s })
            else data.delete(keyText(op[0]))
          }
          return { ok: true, versionstamp: s }
        },
      }
      return a
    },
  })
  return { kv }
}

const opened: Array<{ close: () => Promise<void> }> = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close().catch(() => undefined)))
})

describe('one owner per store in Deno KV', () => {
  it('refuses a second process while the first renews its lease, naming the owner; takes over once the first closes', async () => {
    const db = memoryKv()
    const a = await openDurableStore(kvStorage(db.kv(), 'x', { owner: 'process-a', leaseMs: 600 }))()
    opened.push(a)
    a.submit({ role: 'user', content: 'Hi' })
    await a.flush()
    await expect(openDurableStore(kvStorage(db.kv(), 'x', { owner: 'process-b', leaseMs: 600 }))()).rejects.toThrow(
      /owned by another process \(owner process-a/,
    )
    // another store id in the same database is another store
    opened.push(await openDurableStore(kvStorage(db.kv(), 'y', { owner: 'process-b', leaseMs: 600 }))())
    await a.close()
    const b = await openDurableStore(kvStorage(db.kv(), 'x', { owner: 'process-b', leaseMs: 600 }))()
    opened.push(b)
    expect(b.state().updateCount).toBe(1)
  })

  it('takes over the lease of a process that died (no longer renewed) once it ends', async () => {
    const db = memoryKv()
    const base = db.kv()
    let alive = true
    // after its death, nothing it sends reaches the database
    const gone: KvAtomicLike = { check: () => gone, set: () => gone, delete: () => gone, commit: async () => Promise.reject(new Error('the process is gone')) }
    const deadKv: KvLike = { ...base, atomic: () => (alive ? base.atomic() : gone) }
    const dead = kvStorage(deadKv, 'x', { owner: 'dead', leaseMs: 600 })
    opened.push({ close: async () => dead.close?.() })
    await dead.load()
    alive = false
    const heir = await openDurableStore(kvStorage(db.kv(), 'x', { owner: 'heir', leaseMs: 600 }))()
    opened.push(heir)
    heir.submit({ role: 'user', content: 'after' })
    await heir.flush()
    expect(heir.state().updateCount).toBe(1)
  })
})

/** A storage whose appends fail while `failing` is set, and are otherwise kept in memory. */
const flaky = () => {
  const inner = memoryStorage()
  let failing = false
  const storage: StoreStorage = {
    ...inner,
    append: async (entries) => {
      if (failing) throw new Error('disk unavailable')
      await inner.append(entries)
    },
  }
  return { storage, inner, fail: (on: boolean) => void (failing = on) }
}

describe('a failed commit', () => {
  it('is a 503 for the requests it held, and the store opens again from its storage for the next', async () => {
    const f = flaky()
    let opens = 0
    const handler = durableChatHandler(async () => {
      opens++
      return openDurableStore(f.storage)({ startTime: '2024-03-15T10:00:00Z' })
    })
    const post = (content: string) =>
      handler(
        new Request('http://127.0.0.1/modalities/chat/submit', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ role: 'user', content }),
        }),
      )
    const read = async () =>
      (await (await handler(new Request('http://127.0.0.1/environment/modalities/chat'))).json()) as { messages: Array<{ content: string }> }
    expect((await post('one')).status).toBe(201)
    f.fail(true)
    const failed = await post('two')
    expect(failed.status).toBe(503)
    expect(((await failed.json()) as { error: { message: string } }).error.message).toContain('disk unavailable')
    f.fail(false)
    // not 500 forever: the next requests are served, from what the storage holds ("two" never was)
    expect((await read()).messages.map((m) => m.content)).toEqual(['one'])
    expect((await post('three')).status).toBe(201)
    expect((await read()).messages.map((m) => m.content)).toEqual(['one', 'three'])
    expect(opens).toBe(2)
  })
})
