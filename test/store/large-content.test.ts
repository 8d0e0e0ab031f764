import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { memoryStorage, openDurableStore } from '../../src/store/durable.ts'
import { createChatStore } from '../../src/store/store.ts'
import { encodeSimulator, restoreSimulator } from '../../src/store/log.ts'
import { internBlobs, resolveBlobs } from '../../src/store/_snapshot-blobs.ts'
import { getConversation } from '../../src/store/query.ts'
import { toSnapshot } from '../../src/store/snapshot.ts'
import { commitByFlush, largeContentCases } from '../support/large-content-cases.ts'

describe('large content: a durable store on memory storage', () => {
  largeContentCases(async () => {
    const storage = memoryStorage()
    const store = await openDurableStore(storage)({ startTime: '2024-03-15T10:00:00Z', snapshotEvery: 8 })
    return {
      store,
      commit: commitByFlush(store),
      reopen: async () => {
        await store.close()
        const again = await openDurableStore(storage)({ snapshotEvery: 8 })
        expect(again.recovery.snapshotSeq).toBeGreaterThan(0)
        return again
      },
    }
  })
})

describe('large content: a durable store on memory storage, replayed from its log alone', () => {
  largeContentCases(async () => {
    const storage = memoryStorage()
    const store = await openDurableStore(storage)({ startTime: '2024-03-15T10:00:00Z' })
    return {
      store,
      commit: commitByFlush(store),
      logBytes: async () => JSON.stringify(storage.records()).length,
      reopen: async () => {
        await store.close()
        const again = await openDurableStore(storage)()
        expect([again.recovery.snapshotSeq, again.recovery.replayed]).toEqual([0, 41])
        return again
      },
    }
  })
})

describe('the large strings of a snapshot', () => {
  const big = 'a'.repeat(70_000)
  it('are kept once and read back in place; a snapshot without any is as it was', () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    for (const id of ['m1', 'm2']) store.submit({ role: 'user', content: big, message_id: id, metadata: { note: big } })
    const json = encodeSimulator(store.simulator())
    expect(JSON.stringify(json).length).toBeLessThan(big.length + 10_000)
    const back = restoreSimulator(JSON.parse(JSON.stringify(json)))
    if (E.isLeft(back)) throw new Error(back.left)
    expect(getConversation('default')(back.right.state).map((m) => m.metadata?.['note'] === big)).toEqual([true, true])
    const small = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    small.submit({ role: 'user', content: 'hi' })
    expect(Object.keys(encodeSimulator(small.simulator()) as object)).not.toContain('blobs')
  })

  it('keep a value that holds the reference key already as it is, and name a reference no string stands for', () => {
    expect(internBlobs({ a: big, b: { 'chatfold:blob': 'x' } })).toBeUndefined()
    expect(internBlobs({ a: 'small' })).toBeUndefined()
    const interned = internBlobs([big, { c: big }])
    expect(interned && Object.keys(interned.blobs)).toHaveLength(1)
    expect(resolveBlobs({ a: { 'chatfold:blob': 'nope' } }, {})).toEqual(E.left('the snapshot references a large string it does not hold (nope)'))
  })
})

describe('the large strings of a log record', () => {
  const big = 'b'.repeat(70_000)
  const other = 'c'.repeat(70_000)
  it('replay a message that holds one large string twice, and one held already next to a new one', async () => {
    const storage = memoryStorage()
    const store = await openDurableStore(storage)({ startTime: '2024-03-15T10:00:00Z' })
    // the second of each pair is logged as a reference to the first, within the same record
    store.submit({ role: 'user', content: big, message_id: 'twice', metadata: { note: big } })
    store.submit({ role: 'user', content: other, message_id: 'both', metadata: { note: big, again: other } })
    await store.flush()
    expect(JSON.stringify(storage.records()).length).toBeLessThan(2 * big.length + 10_000)
    await store.close()
    const again = await openDurableStore(storage)()
    expect([again.recovery.snapshotSeq, again.recovery.replayed]).toEqual([0, 3])
    expect(toSnapshot(again.state()).messages.map((m) => [m.message_id, m.content === (m.message_id === 'twice' ? big : other), m.metadata]))
      .toEqual([['twice', true, { note: big }], ['both', true, { note: big, again: other }]])
    await again.close()
  })
})
