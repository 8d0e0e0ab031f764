import { describe } from 'vitest'
import { memoryStorage, openDurableStore } from '../../src/store/durable.ts'
import { compactionCases } from '../support/compaction-cases.ts'

describe('compaction as a committed overlay: a durable store on memory storage', () => {
  for (const snapshotEvery of [10_000, 2]) {
    describe(`a snapshot every ${snapshotEvery} records`, () => {
      compactionCases(async () => {
        const storage = memoryStorage()
        const store = await openDurableStore(storage)({ startTime: '2024-03-15T10:00:00Z', snapshotEvery })
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
            return openDurableStore(storage)({ snapshotEvery })
          },
        }
      })
    })
  }
})
