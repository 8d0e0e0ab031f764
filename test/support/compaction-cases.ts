/**
 * Compaction as a committed overlay, on any backend's store: a compaction computed from a head is
 * refused (stale_head, the newer head named) when an append landed while it was computed, the
 * append kept; computed again from the new head it commits, and the overlay, the archive under it
 * and the append are all there when the store is opened again. A fork starts without its parent's
 * overlays.
 */
import { expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import type { ChatStore } from '../../src/store/store.ts'
import { getConversation } from '../../src/store/query.ts'

type Compacting = Required<Pick<ChatStore, 'compact' | 'compacted' | 'fork'>> & ChatStore

/** The backend: a store, another writer on the same store (the same one, or a second process), and the store opened again. */
export type CompactionBackend = {
  readonly store: Compacting
  readonly writer: Compacting
  /** Runs a step on a store and makes it durable (a transaction, a flush). */
  readonly commit: <A>(store: Compacting, step: () => A) => Promise<A>
  readonly reopen: () => Promise<Compacting>
}

export const compactionCases = (open: () => Promise<CompactionBackend>): void => {
  it('refuses a compaction an append overtook, keeps the append, and commits it computed again', async () => {
    const b = await open()
    const say = (s: Compacting, id: string) => b.commit(s, () => s.submit({ role: 'user', content: id, message_id: id, conversation_id: 'c' }))
    for (const id of ['m1', 'm2', 'm3']) expect(E.isRight(await say(b.store, id))).toBe(true)
    // the compaction reads its head, and while its summary is computed another writer appends
    const head = getConversation('c')(b.store.state()).at(-1)?.id ?? ''
    let release = () => {}
    const computing = new Promise<string>((resolve) => (release = () => resolve(`summary of m1…${head}`)))
    const append = say(b.writer, 'm4')
    release()
    const summary = await computing
    await append
    const stale = await b.commit(b.store, () => b.store.compact('c', 'm1', head, summary))
    expect(stale).toEqual(E.left({ kind: 'stale_head', conversationId: 'c', expected: 'm3', head: 'm4' }))
    expect(getConversation('c')(b.store.state()).map((m) => m.id)).toEqual(['m1', 'm2', 'm3', 'm4'])
    // computed again from the head it was told
    const done = await b.commit(b.store, () => b.store.compact('c', 'm1', 'm4', 'summary of m1…m4'))
    expect(E.isRight(done) && done.right).toMatchObject({ conversation_id: 'c', from: 'm1', head: 'm4' })
    expect(b.store.compacted('c').map((m) => m.id)).toEqual(['compaction:m4'])
    expect(E.isRight(await say(b.writer, 'm5'))).toBe(true)
    const forked = await b.commit(b.store, () => b.store.fork('c', 'm5', 'f'))
    expect(E.isRight(forked)).toBe(true)
    const again = await b.reopen()
    // the archive stays readable; the overlay stands for its range; the fork has none of it
    expect(getConversation('c')(again.state()).map((m) => m.id)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5'])
    expect(again.compacted('c').map((m) => m.id)).toEqual(['compaction:m4', 'm5'])
    expect(again.compacted('f').map((m) => m.id)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5'])
  })
}
