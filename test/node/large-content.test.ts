/**
 * Large content on the file store: a screenshot repeated in 40 turns is kept once in its log and
 * its snapshot, and read back whole; on disk, the log's first record carries the screenshot and
 * every later one a small reference to it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type DurableChatStore, openDurableStore } from '../../src/store/durable.ts'
import { fileStorage } from '../../src/node/file-storage.ts'
import { commitByFlush, copiesIn, largeContentCases, screenshot, turnOf } from '../support/large-content-cases.ts'

const dirs: string[] = []
const closing: DurableChatStore[] = []
afterEach(async () => {
  await Promise.all(closing.splice(0).map((s) => s.close()))
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

describe('large content: the file store', () => {
  largeContentCases(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatfold-large-'))
    dirs.push(dir)
    const store = await openDurableStore(fileStorage(dir))({ startTime: '2024-03-15T10:00:00Z', snapshotEvery: 8 })
    return {
      store,
      commit: commitByFlush(store),
      logBytes: async () => {
        let n = 0
        for (const name of await readdir(dir)) if (name.startsWith('log-')) n += (await stat(join(dir, name))).size
        return n
      },
      reopen: async () => {
        await store.close()
        const again = await openDurableStore(fileStorage(dir))({ snapshotEvery: 8 })
        closing.push(again)
        return again
      },
    }
  })
})

it('writes the screenshot into one line of its log, and a reference to it into each of the 39 others', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chatfold-large-'))
  dirs.push(dir)
  const store = await openDurableStore(fileStorage(dir))({ startTime: '2024-03-15T10:00:00Z', snapshotEvery: 10_000 })
  closing.push(store)
  const data = screenshot()
  for (let i = 0; i < 40; i++) expect(store.submit(turnOf(i, data))._tag).toBe('Right')
  await store.flush?.()
  const files = await readdir(dir)
  const segments = files.filter((f) => /^log-\d+\.jsonl$/.test(f)).sort()
  const lines = (await Promise.all(segments.map((f) => readFile(join(dir, f), 'utf8')))).join('').split('\n')
  const turns = lines.filter((l) => /"message_id":"s\d+"/.test(l))
  expect(turns).toHaveLength(40)
  expect(turns.map((l) => copiesIn(l, data))).toEqual(Array.from({ length: 40 }, (_, i) => (i === 0 ? 1 : 0)))
  // each later turn names the screenshot by its digest: a line of a few hundred bytes (and the long text every eighth turn)
  for (const [i, l] of turns.entries()) {
    if (i === 0) continue
    expect(l).toContain('"chatfold:blob"')
    expect(l.length).toBeLessThan(i % 8 === 0 ? 151_000 : 1_000)
  }
  // everything the store wrote: the screenshot's bytes once, with the long texts and the records around them
  let bytes = 0
  for (const f of files) bytes += (await stat(join(dir, f))).size
  expect(bytes).toBeLessThan(data.length + 1_000_000)
  expect(bytes).toBeGreaterThan(data.length)
}, 240_000)
