/** The fork cases on the file store: a fork is one record of the log, read back after the store is opened again (and from a snapshot). */
import { afterEach } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type DurableChatStore, openDurableStore } from '../../src/store/durable.ts'
import { createChatHandler } from '../../src/store/http.ts'
import { fileStorage } from '../../src/node/file-storage.ts'
import { forkCases } from '../support/fork-cases.ts'

const dirs: string[] = []
afterEach(async () => {
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
