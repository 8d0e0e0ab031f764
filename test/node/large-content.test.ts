/** Large content on the file store: a screenshot repeated in 40 turns is kept once in its log and its snapshot, and read back whole. */
import { afterEach, describe } from 'vitest'
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type DurableChatStore, openDurableStore } from '../../src/store/durable.ts'
import { fileStorage } from '../../src/node/file-storage.ts'
import { largeContentCases } from '../support/large-content-cases.ts'

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
      commit: async (step) => {
        const r = step()
        await store.flush()
        return r
      },
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
