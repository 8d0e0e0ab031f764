import { afterEach, describe, expect, it } from 'vitest'
import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { openDurableStore } from '../../src/store/durable.ts'
import { fileStorage } from '../../src/node/file-storage.ts'
import { encodeSimulator } from '../../src/store/log.ts'

const START = '2024-03-15T10:00:00Z'
const dirs: string[] = []
const fresh = async () => {
  const d = await mkdtemp(join(tmpdir(), 'chatfold-log-'))
  dirs.push(d)
  return d
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

const withMessages = async (dir: string, n: number, snapshotEvery?: number) => {
  const store = await openDurableStore(fileStorage(dir))({ startTime: START, ...(snapshotEvery === undefined ? {} : { snapshotEvery }) })
  for (let i = 0; i < n; i++) {
    store.submit({ role: 'user', content: `m${i}`, message_id: `m${i}` })
    await store.flush()
  }
  return store
}

const segments = async (dir: string) => (await readdir(dir)).filter((n) => n.startsWith('log-')).sort()

describe('fileStorage', () => {
  it('recovers every flushed record, and the simulator they made', async () => {
    const dir = await fresh()
    const a = await withMessages(dir, 20)
    const before = encodeSimulator(a.simulator())
    await a.close()
    const b = await openDurableStore(fileStorage(dir))()
    expect(b.recovery).toEqual({ snapshotSeq: 0, replayed: 21, seq: 21, messages: 20, repaired: [] })
    expect(encodeSimulator(b.simulator())).toEqual(before)
    await b.close()
  })

  it('cuts a torn last line (a crash mid-append, never acknowledged) and keeps what was acknowledged', async () => {
    const dir = await fresh()
    const a = await withMessages(dir, 3)
    await a.close()
    const [seg] = await segments(dir)
    const file = join(dir, seg as string)
    const whole = await readFile(file, 'utf8')
    await appendFile(file, '{"seq":5,"command":{"op":"submit","data":{"role":"us')
    const b = await openDurableStore(fileStorage(dir))()
    expect(b.recovery.messages).toBe(3)
    expect(b.recovery.repaired).toEqual([expect.stringMatching(/^cut a torn last record \(.*line 5, \d+ bytes: no checksum\); it was never acknowledged$/)])
    expect(await readFile(file, 'utf8')).toBe(whole)
    b.submit({ role: 'user', content: 'after the crash' })
    await b.close()
    const c = await openDurableStore(fileStorage(dir))()
    expect(c.recovery).toMatchObject({ messages: 4, repaired: [] })
    await c.close()
  })

  it('refuses a corrupt record in the middle of the log, naming the record, file and line', async () => {
    const dir = await fresh()
    const a = await withMessages(dir, 5)
    await a.close()
    const [seg] = await segments(dir)
    const file = join(dir, seg as string)
    const lines = (await readFile(file, 'utf8')).split('\n')
    lines[2] = (lines[2] as string).replace('m1', 'mX') // record 3: the second submit, its checksum no longer matches
    await writeFile(file, lines.join('\n'))
    await expect(openDurableStore(fileStorage(dir))()).rejects.toThrow(`Cannot recover the store: record 3 (${file}, line 3, byte `)
    await expect(openDurableStore(fileStorage(dir))()).rejects.toThrow(/is corrupt: checksum mismatch$/)
  })

  it('rotates: a snapshot every N records starts a new log segment and removes the old files', async () => {
    const dir = await fresh()
    const a = await withMessages(dir, 95, 10)
    const files = (await readdir(dir)).filter((n) => n !== 'LOCK').sort()
    // 96 records (create + 95): the snapshot at 90, the six after it in one segment
    expect(files).toEqual(['log-000000000091.jsonl', 'snapshot-000000000090.json'])
    expect((await readFile(join(dir, 'log-000000000091.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(6)
    const before = encodeSimulator(a.simulator())
    await a.close()
    const b = await openDurableStore(fileStorage(dir))()
    expect(b.recovery).toEqual({ snapshotSeq: 90, replayed: 6, seq: 96, messages: 95, repaired: [] })
    expect(encodeSimulator(b.simulator())).toEqual(before)
    await b.close()
  })

  it('refuses a snapshot whose checksum does not match, naming it', async () => {
    const dir = await fresh()
    const a = await withMessages(dir, 12, 10)
    await a.close()
    const file = join(dir, 'snapshot-000000000010.json')
    await writeFile(file, (await readFile(file, 'utf8')).replace('m3', 'm9'))
    await expect(openDurableStore(fileStorage(dir))()).rejects.toThrow(`Cannot recover the store: the snapshot ${file} is corrupt (checksum mismatch)`)
  })

  it('lets one process at a time open a directory', async () => {
    const dir = await fresh()
    const a = await withMessages(dir, 1)
    await expect(openDurableStore(fileStorage(dir))()).rejects.toThrow(/Cannot open the store in .*: this process holds it already/)
    await a.close()
  })
})

describe('fileStorage under Deno', () => {
  it('keeps the store across runs of a Deno process, and Node reads what Deno wrote', async () => {
    const dir = await fresh()
    const here = dirname(fileURLToPath(import.meta.url))
    const deno = join(here, '..', '..', 'node_modules', '.bin', 'deno')
    const outputs = ['one', 'two', 'three'].map((m) => {
      const r = spawnSync(deno, ['run', '--allow-read', '--allow-write', '--allow-env', join(here, 'support', 'deno-file-store.ts'), dir, m], {
        encoding: 'utf8',
        timeout: 60_000,
      })
      expect(r.status, r.stderr).toBe(0)
      return r.stdout.trim()
    })
    // a snapshot every 2 records: the third run starts from one
    expect(outputs).toEqual(['recovered 0 (snapshot at 0)\nholds 1', 'recovered 1 (snapshot at 2)\nholds 2', 'recovered 2 (snapshot at 2)\nholds 3'])
    const back = await openDurableStore(fileStorage(dir))()
    expect(back.state().updateCount).toBe(3)
    await back.close()
  }, 120_000)
})
