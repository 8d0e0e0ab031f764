/**
 * Large content on any backend's store: a 3 MB screenshot repeated in 40 turns (with text around
 * it) is kept once in the store's log and in its snapshot, however many messages and events hold
 * it, and comes back whole after the store is opened again: from a query, the snapshot route and
 * an export.
 */
import { expect, it } from 'vitest'
import type { ChatStore } from '../../src/store/store.ts'
import { createChatHandler } from '../../src/store/http.ts'
import { toSnapshot } from '../../src/store/snapshot.ts'
import { encodeSimulator } from '../../src/store/log.ts'

/** The backend: a fresh store that writes a snapshot every few records, and the same store opened again. */
export type LargeContentBackend = {
  readonly store: ChatStore
  readonly commit: <A>(step: () => A) => Promise<A>
  readonly reopen: () => Promise<ChatStore>
  /** The bytes of the log records the backend holds now, where it can tell. */
  readonly logBytes?: () => Promise<number>
}

/** The commit of a durable store: the step taken, then the store's flush awaited (what the backends' tests give `commit`). */
export const commitByFlush = (store: ChatStore) => async <A>(step: () => A): Promise<A> => {
  const r = step()
  await store.flush?.()
  return r
}

/** A screenshot of 3 MB (bytes that do not repeat in a short period), as base64. */
export const screenshot = (): string => {
  const bytes = new Uint8Array(3 * 1024 * 1024)
  let x = 2463534242
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    bytes[i] = x & 0xff
  }
  let s = ''
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(s)
}

/** The long text of every eighth turn: with the screenshot once, the 40 turns make a history of about 10 MB. */
const LONG_TEXT = 'x'.repeat(150_000)

/** Turn `i` of the 40: a question (a long one every eighth turn) and the screenshot. */
export const turnOf = (i: number, data: string) => ({
  role: 'user' as const,
  content: [{ type: 'text', text: `turn ${i}: ${i % 8 === 0 ? LONG_TEXT : 'what is on the screen?'}` }, {
    type: 'image',
    source: 'base64',
    data,
    media_type: 'image/png',
  }],
  conversation_id: 'shots',
  message_id: `s${i}`,
})

/** How many times `whole` appears in `text`. */
export const copiesIn = (text: string, whole: string): number => text.split(whole).length - 1

export const largeContentCases = (open: () => Promise<LargeContentBackend>): void => {
  it(
    'keeps a 3 MB screenshot repeated in 40 turns once in its log and its snapshot, and gives every turn back whole after reopening',
    async () => {
      const b = await open()
      const data = screenshot()
      for (let i = 0; i < 40; i++) {
        const r = await b.commit(() => b.store.submit(turnOf(i, data)))
        expect(r._tag).toBe('Right')
      }
      // the log carries the screenshot the first time, and a reference to it every later time
      if (b.logBytes !== undefined) expect(await b.logBytes()).toBeLessThan(data.length + 1_500_000)
      const snapshot = JSON.stringify(encodeSimulator(b.store.simulator()))
      // the screenshot once (and the long texts), not 80 times (40 messages, 40 events)
      expect(snapshot.length).toBeLessThan(data.length + 1_500_000)
      const again = await b.reopen()
      const h = createChatHandler(again)
      const query = await h(
        new Request('http://127.0.0.1/environment/modalities/chat/query', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ conversation_id: 'shots' }),
        }),
      )
      const messages: ReadonlyArray<{ readonly message_id: string; readonly content: ReadonlyArray<{ readonly data?: string }> }> =
        (await query.json()).messages
      expect(messages.map((m) => m.message_id)).toEqual(Array.from({ length: 40 }, (_, i) => `s${i}`))
      for (const m of messages) expect(m.content[1]?.data === data).toBe(true)
      const exported = toSnapshot(again.state()).messages
      expect(exported.filter((m) => Array.isArray(m.content) && m.content[1]?.type === 'image' && 'data' in m.content[1] && m.content[1].data === data))
        .toHaveLength(40)
      const served = await h(new Request('http://127.0.0.1/environment/modalities/chat'))
      expect(served.status).toBe(200)
      expect((await served.json()).messages).toHaveLength(40)
    },
    240_000,
  )
}
