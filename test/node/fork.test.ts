/**
 * The fork cases on the file store: a fork is one record of the log, read back after the store is
 * opened again (and from a snapshot); and a compaction overtaken by an append is refused, the append kept.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type DurableChatStore, openDurableStore } from '../../src/store/durable.ts'
import { createChatHandler } from '../../src/store/http.ts'
import { fileStorage } from '../../src/node/file-storage.ts'
import { forkCases, post, say } from '../support/fork-cases.ts'
import { compactionCases } from '../support/compaction-cases.ts'

const dirs: string[] = []
const closing: DurableChatStore[] = []
afterEach(async () => {
  await Promise.all(closing.splice(0).map((s) => s.close()))
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

for (const snapshotEvery of [10_000, 3]) {
  forkCases(`the file store, a snapshot every ${snapshotEvery} records`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatfold-fork-'))
    dirs.push(dir)
    let store: DurableChatStore = await openDurableStore(fileStorage(dir))({ startTime: '2024-03-15T10:00:00Z', snapshotEvery })
    return {
      handler: createChatHandler(store),
      reopen: async () => {
        await store.close()
        store = await openDurableStore(fileStorage(dir))({ snapshotEvery })
        return createChatHandler(store)
      },
      close: () => store.close(),
    }
  })
}

/** The log's records, in order, read from its segment files (each line a record's JSON, a tab and its checksum). */
const logRecords = async (dir: string): Promise<ReadonlyArray<{ readonly command: { readonly op: string } }>> => {
  const segments = (await readdir(dir)).filter((f) => /^log-\d+\.jsonl$/.test(f)).sort()
  const lines = (await Promise.all(segments.map((f) => readFile(join(dir, f), 'utf8')))).join('').split('\n').filter((l) => l !== '')
  return lines.map((l) => JSON.parse(l.slice(0, l.lastIndexOf('\t'))))
}

it('writes a fork as one small record, never a copy of the history it shares', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chatfold-fork-'))
  dirs.push(dir)
  const store = await openDurableStore(fileStorage(dir))({ startTime: '2024-03-15T10:00:00Z', snapshotEvery: 10_000 })
  closing.push(store)
  const h = createChatHandler(store)
  const long = 'x'.repeat(20_000)
  for (const id of ['u1', 'a1', 'u2', 'a2']) expect((await say(h, 'main', id, `${id} ${long}`)).status).toBe(201)
  await store.flush?.()
  const before = await logRecords(dir)
  expect((await post(h, '/modalities/chat/fork', { conversation_id: 'main', message_id: 'a2', new_conversation_id: 'copy' })).status).toBe(201)
  await store.flush?.()
  const after = await logRecords(dir)
  expect(after.slice(0, before.length)).toEqual(before)
  expect(after.slice(before.length).map((r) => r.command.op)).toEqual(['fork'])
  expect(JSON.stringify(after.at(-1)).length).toBeLessThan(500)
})

describe('compaction as a committed overlay: the file store', () => {
  compactionCases(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatfold-compact-'))
    dirs.push(dir)
    const store = await openDurableStore(fileStorage(dir))({ startTime: '2024-03-15T10:00:00Z', snapshotEvery: 4 })
    return {
      store,
      writer: store,
      commit: async (s, step) => {
        const r = step()
        await s.flush?.()
        return r
      },
      reopen: async () => {
        await store.close()
        const again = await openDurableStore(fileStorage(dir))({ snapshotEvery: 4 })
        closing.push(again)
        return again
      },
    }
  })
})
