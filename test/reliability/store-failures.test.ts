/**
 * The file-backed store when its medium fails under it: never a 2xx for what the next start would
 * not read back (a removed data directory is a 503, a full disk a 507, reads served in both), a
 * complete record with a bad checksum stops the start and is moved aside by `repairFileStore`
 * only, a lock left by an unrelated process is taken over, and a store on a read-only mount is
 * served read-only. The real full disk and read-only mount are a small tmpfs, mounted when this
 * process may (root); otherwise those two are skipped, saying so.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createChatHandler } from '../../src/store/http.ts'
import { fileStorage } from '../../src/node/file-storage.ts'
import { repairFileStore } from '../../src/node/repair-store.ts'
import { serveChatStore } from '../../src/node/serve.ts'
import { type DurableChatStore, memoryStorage, openDurableStore, type StoreStorage } from '../../src/store/durable.ts'
import { StoreError } from '../../src/store/failure.ts'

const START = '2024-03-15T10:00:00Z'
const dirs: string[] = []
const mounts: string[] = []
const fresh = async () => {
  const d = await mkdtemp(join(tmpdir(), 'chatfold-failures-'))
  dirs.push(d)
  return d
}
afterEach(async () => {
  for (const m of mounts.splice(0)) spawnSync('umount', ['-l', m])
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

const submit = (handler: (r: Request) => Promise<Response>, content: string) =>
  handler(
    new Request('http://127.0.0.1/modalities/chat/submit', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'user', content }),
    }),
  )
const held = async (handler: (r: Request) => Promise<Response>): Promise<string[]> => {
  const r = await handler(new Request('http://127.0.0.1/environment/modalities/chat'))
  expect(r.status).toBe(200)
  return ((await r.json()) as { messages: Array<{ content: string }> }).messages.map((m) => m.content)
}

/** A small tmpfs at a fresh directory, or why there cannot be one here. */
const tmpfs = async (size: string): Promise<string> => {
  const d = await fresh()
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', d], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`cannot mount a tmpfs: ${r.stderr.trim() || r.error?.message}`)
  mounts.push(d)
  return d
}
const canMount = process.platform === 'linux' && process.getuid?.() === 0 && spawnSync('mount', ['--version']).status === 0
if (!canMount) console.warn('store-failures: the real full-disk and read-only tests need root on Linux (mount -t tmpfs); skipped')

describe('never acknowledging what is not kept', () => {
  it('answers 503 once the data directory is removed, keeps serving reads, and tells why once', async () => {
    const dir = join(await fresh(), 'data')
    const lines: string[] = []
    const served = await serveChatStore({ dataDir: dir, port: 0, handleSignals: false, log: (l) => void lines.push(l) })
    try {
      const post = (content: string) =>
        fetch(`${served.url}/modalities/chat/submit`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ role: 'user', content }),
        })
      expect((await post('kept')).status).toBe(201)
      await rm(dir, { recursive: true, force: true })
      const after = await Promise.all(['a', 'b', 'c'].map(post))
      expect(after.map((r) => r.status)).toEqual([503, 503, 503])
      const body = (await after[0]?.json()) as { error: { code: string; message: string } }
      expect(body.error.code).toBe('store_unavailable')
      expect(body.error.message).toMatch(/takes no more writes: its log .* was removed/)
      expect((await post('d')).status).toBe(503)
      const read = await fetch(`${served.url}/environment/modalities/chat`)
      expect(((await read.json()) as { messages: Array<{ content: string }> }).messages.map((m) => m.content)).toEqual(['kept'])
      expect(lines.filter((l) => l.includes('takes no more writes'))).toHaveLength(1)
    } finally {
      await served.close()
    }
  })

  it('answers 507 while the storage is full (the failed batch and the steps on top of it undone), reads go on, and writes again once there is space', async () => {
    const inner = memoryStorage()
    let full = false
    const storage: StoreStorage = {
      ...inner,
      append: async (entries) => {
        if (full) throw new StoreError('full', 'No space left (ENOSPC)')
        await inner.append(entries)
      },
    }
    const store = await openDurableStore(storage)({ startTime: START })
    const handler = createChatHandler(store)
    expect((await submit(handler, 'one')).status).toBe(201)
    full = true
    const refused = await Promise.all(['two', 'three', 'four'].map((c) => submit(handler, c)))
    expect(refused.map((r) => r.status)).toEqual([507, 507, 507])
    expect(refused[0]?.headers.get('retry-after')).not.toBeNull()
    expect(await held(handler)).toEqual(['one'])
    full = false
    expect((await submit(handler, 'five')).status).toBe(201)
    await store.close()
    const back = await openDurableStore(inner)()
    expect(back.state().updateCount).toBe(2)
    expect(await held(createChatHandler(back))).toEqual(['one', 'five'])
  })

  it.skipIf(!canMount)('on a real full disk: 507, the log cut back to whole records, reads served, and writes again once space returns', async () => {
    const dir = await tmpfs('256k')
    await writeFile(join(dir, 'filler'), Buffer.alloc(150 * 1024))
    const store: DurableChatStore = await openDurableStore(fileStorage(join(dir, 'data')))({ startTime: START })
    const handler = createChatHandler(store)
    const accepted: string[] = []
    let status = 201
    for (let i = 0; i < 100 && status === 201; i++) {
      const content = `${i}:${'x'.repeat(4000)}`
      status = (await submit(handler, content)).status
      if (status === 201) accepted.push(content)
    }
    expect(status).toBe(507)
    expect(accepted.length).toBeGreaterThan(0)
    expect((await submit(handler, `again:${'x'.repeat(4000)}`)).status).toBe(507) // still no room: the undone part did not leak
    expect(await held(handler)).toEqual(accepted)
    const segment = (await readdir(join(dir, 'data'))).find((n) => n.startsWith('log-')) as string
    const log = await readFile(join(dir, 'data', segment), 'utf8')
    expect(log.endsWith('\n')).toBe(true)
    expect(log.trimEnd().split('\n')).toHaveLength(accepted.length + 1) // the create record, then the submits
    await rm(join(dir, 'filler'))
    expect((await submit(handler, 'after')).status).toBe(201)
    await store.close()
    const back = await openDurableStore(fileStorage(join(dir, 'data')))()
    expect(back.recovery.repaired).toEqual([])
    expect(await held(createChatHandler(back))).toEqual([...accepted, 'after'])
    await back.close()
  })
})

describe('a damaged log', () => {
  it('refuses to start on a flipped byte in the last record (complete, acknowledged), names it, and starts after repairFileStore moved it aside', async () => {
    const dir = await fresh()
    const a = await openDurableStore(fileStorage(dir))({ startTime: START })
    for (const m of ['m0', 'm1', 'm2']) {
      a.submit({ role: 'user', content: m, message_id: m })
      await a.flush()
    }
    await a.close()
    const file = join(dir, 'log-000000000001.jsonl')
    const whole = await readFile(file, 'utf8')
    const flipped = whole.replace('"m2"', '"m7"') // the last record, its line end kept
    await writeFile(file, flipped)
    const refused = openDurableStore(fileStorage(dir))()
    await expect(refused).rejects.toThrow(`Cannot recover the store: record 4 (${file}, line 4, byte `)
    await expect(refused).rejects.toMatchObject({ code: 'corrupt', message: expect.stringMatching(/is corrupt: checksum mismatch$/) })
    expect(await readFile(file, 'utf8')).toBe(flipped) // kept as it was

    const r = await repairFileStore(dir)
    expect(r.moved).toEqual([{
      file: 'log-000000000001.jsonl',
      line: 4,
      byte: expect.any(Number),
      problem: 'checksum mismatch',
      what: 'record 4, submit user message "m2": "m7"',
    }])
    expect(r.lastRecord).toBe(3)
    const quarantined = (await readFile(r.quarantine as string, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { text: string })
    expect(quarantined.map((q) => `${q.text}\n`)).toEqual([flipped.split('\n')[3] + '\n'])
    const b = await openDurableStore(fileStorage(dir))()
    expect(b.recovery).toMatchObject({ messages: 2, repaired: [] })
    await b.close()
  })
})

describe('the lock and the medium', () => {
  it('takes over a LOCK naming a live process that is not a chatfold server', async () => {
    const dir = await fresh()
    const other = spawn('sleep', ['30'], { stdio: 'ignore' })
    try {
      await writeFile(join(dir, 'LOCK'), String(other.pid))
      const store = await openDurableStore(fileStorage(dir))({ startTime: START })
      store.submit({ role: 'user', content: 'hi' })
      await store.close()
      expect(other.exitCode).toBeNull() // still running: the lock was stale, not the process
    } finally {
      other.kill('SIGKILL')
    }
  })

  it.skipIf(process.platform !== 'linux')('tells a live holder from a reused process id by the start time the LOCK names', async () => {
    const dir = await fresh()
    const other = spawn('sleep', ['30'], { stdio: 'ignore' })
    try {
      const stat = await readFile(`/proc/${other.pid}/stat`, 'utf8')
      const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
      await writeFile(join(dir, 'LOCK'), `${other.pid} ${start}`) // as the process would have written it: it holds the store
      await expect(openDurableStore(fileStorage(dir))()).rejects.toMatchObject({
        code: 'locked',
        message: expect.stringContaining(`process ${other.pid} holds it`),
      })
      await writeFile(join(dir, 'LOCK'), `${other.pid} 1`) // a process of that id that started at another time: gone
      const store = await openDurableStore(fileStorage(dir))({ startTime: START })
      await store.close()
    } finally {
      other.kill('SIGKILL')
    }
  })

  it('refuses a LOCK of another host (its process cannot be asked) and an empty LOCK, saying how to go on', async () => {
    const dir = await fresh()
    await writeFile(join(dir, 'LOCK'), '4242 - 00ff another-host 2024-03-15T10:00:00.000Z\n')
    await expect(openDurableStore(fileStorage(dir))()).rejects.toMatchObject({
      code: 'locked',
      message: expect.stringContaining(
        'process 4242 holds it (on another-host, since 2024-03-15T10:00:00.000Z); a server of another host cannot be asked whether it runs: remove the LOCK by hand once it is stopped',
      ),
    })
    await writeFile(join(dir, 'LOCK'), '')
    await expect(openDurableStore(fileStorage(dir))()).rejects.toMatchObject({
      code: 'locked',
      message: expect.stringMatching(/LOCK is empty .*remove it by hand if no server runs$/),
    })
    expect((await readdir(dir)).sort()).toEqual(['LOCK']) // nothing else left
  })

  it.skipIf(!canMount)('serves a store on a read-only mount: queries answered, writes 503 with the reason', async () => {
    const dir = await tmpfs('1m')
    const a = await openDurableStore(fileStorage(dir))({ startTime: START })
    a.submit({ role: 'user', content: 'written before' })
    await a.close()
    await writeFile(join(dir, 'LOCK'), String(spawnSync('true').pid)) // left by a server that is gone
    expect(spawnSync('mount', ['-o', 'remount,ro', dir]).status).toBe(0)
    const store = await openDurableStore(fileStorage(dir))()
    expect(store.recovery.readOnly).toMatch(/cannot be written \(EROFS on its LOCK file\)$/)
    const handler = createChatHandler(store)
    expect(await held(handler)).toEqual(['written before'])
    const w = await submit(handler, 'refused')
    expect(w.status).toBe(503)
    expect(((await w.json()) as { error: { message: string } }).error.message).toMatch(/EROFS/)
    expect(await held(handler)).toEqual(['written before'])
    await store.close()
  })
})
