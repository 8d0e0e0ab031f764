/**
 * The fork cases every backend of the chat store passes, over its HTTP handler as users reach it:
 * a fork holds its parent's history up to the message it was forked at, a fork of a fork works,
 * appends to either side never show on the other, the parent is never changed, a fork at a message
 * the conversation does not hold is a 404 naming both, and a fork is still there (and the same)
 * when the store is opened again. Each backend's test file calls `forkCases` with a way to open a
 * fresh store and to open it again.
 */
import { describe, expect, it } from 'vitest'

export type Handler = (request: Request) => Promise<Response>

/** A store opened for the cases: its handler, the same store opened again (a new process), and its end. */
export type ForkBackend = { readonly handler: Handler; readonly reopen: () => Promise<Handler>; readonly close: () => Promise<void> }

// deno-lint-ignore no-explicit-any -- a JSON answer, read field by field
export const post = async (h: Handler, path: string, body: unknown): Promise<{ readonly status: number; readonly body: any }> => {
  const r = await h(new Request(`http://127.0.0.1${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))
  return { status: r.status, body: await r.json() }
}

export const say = (h: Handler, conversation_id: string, message_id: string, content = message_id) =>
  post(h, '/modalities/chat/submit', { role: message_id.startsWith('a') ? 'assistant' : 'user', content, conversation_id, message_id })

/** The message ids of a conversation, in order, and its metadata's count. */
export const idsOf = async (h: Handler, conversation_id: string): Promise<ReadonlyArray<string>> => {
  const r = await post(h, '/environment/modalities/chat/query', { conversation_id })
  expect(r.status).toBe(200)
  for (const m of r.body.messages) expect(m.conversation_id).toBe(conversation_id)
  return r.body.messages.map((m: { message_id: string }) => m.message_id)
}

export const forkCases = (name: string, open: () => Promise<ForkBackend>): void => {
  describe(`forks: ${name}`, { timeout: 60_000 }, () => {
    it('shares the prefix, keeps both sides apart, forks a fork, and reads the same after reopening', async () => {
      const b = await open()
      try {
        const h = b.handler
        for (const id of ['u1', 'a1', 'u2', 'a2']) expect((await say(h, 'main', id)).status).toBe(201)
        const f = await post(h, '/modalities/chat/fork', { conversation_id: 'main', message_id: 'a1', new_conversation_id: 'retry' })
        expect(f.status).toBe(201)
        expect(f.body.conversation).toMatchObject({ conversation_id: 'retry', message_count: 2, participant_roles: ['user', 'assistant'] })
        expect(await idsOf(h, 'retry')).toEqual(['u1', 'a1'])
        expect((await say(h, 'retry', 'u3', 'try again')).status).toBe(201)
        expect((await say(h, 'main', 'u4')).status).toBe(201)
        // a fork of the fork, at a message the fork itself added
        expect((await post(h, '/modalities/chat/fork', { conversation_id: 'retry', message_id: 'u3', new_conversation_id: 'retry-2' })).status).toBe(201)
        expect((await say(h, 'retry-2', 'a3')).status).toBe(201)
        const expected = { main: ['u1', 'a1', 'u2', 'a2', 'u4'], retry: ['u1', 'a1', 'u3'], 'retry-2': ['u1', 'a1', 'u3', 'a3'] }
        const read = async (hh: Handler) => ({ main: await idsOf(hh, 'main'), retry: await idsOf(hh, 'retry'), 'retry-2': await idsOf(hh, 'retry-2') })
        expect(await read(h)).toEqual(expected)
        // the snapshot (an export) lists a fork as a whole conversation
        const snap = await (await h(new Request('http://127.0.0.1/environment/modalities/chat'))).json()
        expect(snap.conversations['retry'].message_count).toBe(3)
        expect(snap.messages.filter((m: { conversation_id: string }) => m.conversation_id === 'retry-2').map((m: { content: string }) => m.content))
          .toEqual(['u1', 'a1', 'try again', 'a3'])
        const again = await b.reopen()
        expect(await read(again)).toEqual(expected)
        // the reopened store goes on: appends still stay on their side
        expect((await say(again, 'retry', 'a4')).status).toBe(201)
        expect(await idsOf(again, 'main')).toEqual(expected.main)
        expect(await idsOf(again, 'retry-2')).toEqual(expected['retry-2'])
      } finally {
        await b.close()
      }
    })

    it('refuses a fork at a message the conversation does not hold, or onto a conversation that exists, changing nothing', async () => {
      const b = await open()
      try {
        const h = b.handler
        expect((await say(h, 'c-1', 'u1')).status).toBe(201)
        expect((await say(h, 'c-2', 'u9')).status).toBe(201)
        const missing = await post(h, '/modalities/chat/fork', { conversation_id: 'c-1', message_id: 'u9', new_conversation_id: 'x' })
        expect(missing.status).toBe(404)
        expect(missing.body.error).toMatchObject({ code: 'unknown_message', conversation_id: 'c-1', message_id: 'u9' })
        expect(missing.body.error.message).toBe('Conversation "c-1" holds no message "u9"')
        expect((await post(h, '/modalities/chat/fork', { conversation_id: 'nowhere', message_id: 'u1', new_conversation_id: 'x' })).status).toBe(404)
        const exists = await post(h, '/modalities/chat/fork', { conversation_id: 'c-1', message_id: 'u1', new_conversation_id: 'c-2' })
        expect(exists.status).toBe(409)
        expect(exists.body.error.code).toBe('conversation_exists')
        const bad = await post(h, '/modalities/chat/fork', { conversation_id: 'c-1', message_id: 7, extra: true })
        expect(bad.status).toBe(400)
        expect(bad.body.error.issues.map((i: { path: string }) => i.path)).toEqual(['message_id', 'extra'])
        expect(await idsOf(h, 'c-2')).toEqual(['u9'])
        const snap = await (await h(new Request('http://127.0.0.1/environment/modalities/chat'))).json()
        expect(Object.keys(snap.conversations).sort()).toEqual(['c-1', 'c-2'])
        // a generated id: a new conversation each time
        const g1 = await post(h, '/modalities/chat/fork', { conversation_id: 'c-1', message_id: 'u1' })
        const g2 = await post(h, '/modalities/chat/fork', { conversation_id: 'c-1', message_id: 'u1' })
        expect([g1.status, g2.status]).toEqual([201, 201])
        expect(g1.body.conversation.conversation_id).not.toBe(g2.body.conversation.conversation_id)
        expect(await idsOf(h, g2.body.conversation.conversation_id)).toEqual(['u1'])
      } finally {
        await b.close()
      }
    })
  })
}
