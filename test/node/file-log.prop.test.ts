/**
 * Torn against corrupt, as laws over a small file-backed log: any prefix of the log (a crash
 * mid-append) recovers exactly the records whose line ends it holds, the rest cut; any single
 * changed byte (a complete record damaged, its line end included) stops the start as corrupt,
 * naming the record, and leaves the file as it was.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fileStorage } from '../../src/node/file-storage.ts'
import { openDurableStore } from '../../src/store/durable.ts'
import { isStoreError } from '../../src/store/failure.ts'

let dir = ''
let log = new Uint8Array()
const FILE = 'log-000000000001.jsonl'

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatfold-log-prop-'))
  const s = await openDurableStore(fileStorage(dir))({ startTime: '2024-03-15T10:00:00Z' })
  for (const m of ['m0', 'm1', 'm2', 'm3']) {
    s.submit({ role: 'user', content: `${m} é`, message_id: m })
    await s.flush()
  }
  await s.close()
  log = new Uint8Array(await readFile(join(dir, FILE)))
})
afterAll(async () => {
  if (dir !== '') await rm(dir, { recursive: true, force: true })
})

/** Opens the store on `bytes` as its only segment: the records recovered, or the failure. */
const openOn = async (bytes: Uint8Array) => {
  await writeFile(join(dir, FILE), bytes)
  try {
    const s = await openDurableStore(fileStorage(dir))()
    const seq = s.recovery.seq
    await s.close()
    return { seq, file: new Uint8Array(await readFile(join(dir, FILE))) }
  } catch (e) {
    return { failure: e, file: new Uint8Array(await readFile(join(dir, FILE))) }
  }
}

describe('the file log, torn or corrupt', () => {
  it('recovers from any prefix exactly the records whose line ends it holds, cutting the rest', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: log.length }), async (cut) => {
        const prefix = log.subarray(0, cut)
        const ends = prefix.filter((b) => b === 10).length
        const r = await openOn(prefix)
        expect(r.failure).toBeUndefined()
        expect(r.seq).toBe(ends)
        const kept = prefix.lastIndexOf(10) + 1
        expect(Buffer.from(r.file).equals(Buffer.from(prefix.subarray(0, kept)))).toBe(true)
      }),
      { numRuns: 60 },
    )
  })

  it('refuses any single changed byte as corrupt, and leaves the file as it was', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: log.length - 1 }), fc.integer({ min: 1, max: 255 }), async (at, delta) => {
        const damaged = new Uint8Array(log)
        damaged[at] = ((damaged[at] as number) + delta) % 256
        const r = await openOn(damaged)
        expect(isStoreError(r.failure) && r.failure.code).toBe('corrupt')
        expect((r.failure as Error).message).toMatch(new RegExp(`^Cannot recover the store: record \\d+ \\(.*${FILE}, line \\d+, byte \\d+\\) is corrupt: `))
        expect(Buffer.from(r.file).equals(Buffer.from(damaged))).toBe(true)
      }),
      { numRuns: 80 },
    )
  })
})
