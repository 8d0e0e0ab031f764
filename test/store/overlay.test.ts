/**
 * Compaction as a committed overlay on a durable store over memory storage: the shared compaction
 * cases, and the record a compaction leaves in the log (one record; nothing before it removed).
 */
import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
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

it('commits a compaction as one record after the ones it covers, which all stay in the log', async () => {
  const storage = memoryStorage()
  const store = await openDurableStore(storage)({ startTime: '2024-03-15T10:00:00Z', snapshotEvery: 10_000 })
  for (const id of ['m1', 'm2', 'm3']) expect(E.isRight(store.submit({ role: 'user', content: id, message_id: id, conversation_id: 'c' }))).toBe(true)
  await store.flush?.()
  const before = [...storage.records()]
  expect(E.isRight(store.compact('c', 'm1', 'm3', 'summary of m1…m3'))).toBe(true)
  await store.flush?.()
  const after = storage.records()
  expect(after.slice(0, before.length)).toEqual(before)
  expect(after.slice(before.length).map((r) => r.command)).toEqual([{
    op: 'compact',
    conversation_id: 'c',
    from: 'm1',
    head: 'm3',
    summary: 'summary of m1…m3',
  }])
  await store.close()
})
