/**
 * The fork cases on the file store: a fork is one record of the log, read back after the store is
 * opened again (and from a snapshot); and a compaction overtaken by an append is refused, the append kept.
 */
import { afterEach, describe } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type DurableChatStore, openDurableStore } from '../../src/store/durable.ts'
import { createChatHandler } from '../../src/store/http.ts'
import { fileStorage } from '../../src/node/file-storage.ts'
import { forkCases } from '../support/fork-cases.ts'
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
