/**
 * The contract every durable store backend meets, over HTTP as its users reach it: accepted steps
 * survive a SIGKILL and a clean restart, refused ones leave no trace, a retried message id is
 * stored once and the retry told so (409), concurrent requests never interleave a half-applied
 * input, the clock is the wall clock, and clients submitting through repeated kills lose nothing
 * that was acknowledged. Each backend's test file calls `storeContract` with a way to serve a
 * fresh store.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { call, killWhileSubmitting, messageOf, type ServedStore } from './served-store.ts'

export type ContractOptions = {
  /** Kills during the clients' run (each one a SIGKILL and a restart). */
  readonly kills: number
  readonly clients?: number
  readonly perClient?: number
  readonly killEveryMs?: readonly [number, number]
}

/** The observable state of a store: snapshot, event history and clock. */
const observe = async (url: string) => {
  const snapshot = await call(url, 'GET', '/environment/modalities/chat')
  const events = await call(url, 'GET', '/events')
  const clock = await call(url, 'GET', '/simulator')
  expect([snapshot.status, events.status, clock.status]).toEqual([200, 200, 200])
  return { snapshot: snapshot.body, events: events.body, clock: clock.body }
}

export const storeContract = (name: string, open: () => Promise<ServedStore>, options: ContractOptions): void => {
  describe(`the store contract: ${name}`, { timeout: 60_000 }, () => {
    const opened: ServedStore[] = []
    const fresh = async () => {
      const s = await open()
      opened.push(s)
      return s
    }
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.stop()))
    })

    it('keeps every accepted step across a SIGKILL and a clean restart, and nothing refused', async () => {
      const s = await fresh()
      expect((await call(s.url(), 'POST', '/modalities/chat/submit', { role: 'user', content: "What's the weather today?" })).status).toBe(201)
      expect(
        (await call(s.url(), 'POST', '/modalities/chat/submit', { role: 'assistant', content: 'Sunny.', message_id: 'm-2', conversation_id: 'c-1' })).status,
      ).toBe(201)
      expect((await call(s.url(), 'POST', '/modalities/chat/submit', { role: 'bot', content: '' })).status).toBe(400)
      expect((await call(s.url(), 'POST', '/modalities/chat/submit', { role: 'user', content: 'again', message_id: 'm-2', conversation_id: 'c-1' })).status)
        .toBe(409)
      const later = new Date(Date.parse((await call(s.url(), 'GET', '/simulator')).body.current_time) + 3_600_000).toISOString()
      expect((await call(s.url(), 'POST', '/events', { scheduled_time: later, modality: 'chat', data: { role: 'user', content: 'later' } })).status).toBe(202)
      expect(
        (await call(s.url(), 'POST', '/events', { scheduled_time: '2999-01-01T00:00:00Z', modality: 'chat', data: { role: 'user', content: 'much later' } }))
          .status,
      ).toBe(202)
      expect((await call(s.url(), 'POST', '/simulator/advance', { seconds: 7200 })).status).toBe(200)
      const before = await observe(s.url())
      expect(before.snapshot.update_count).toBe(3)
      expect(before.events.pending).toHaveLength(1)

      await s.restart('kill')
      expect(await observe(s.url())).toEqual(before)
      await s.restart('clean')
      expect(await observe(s.url())).toEqual(before)

      // the store goes on where it was: generated ids do not collide with the recovered ones
      expect((await call(s.url(), 'POST', '/modalities/chat/submit', { role: 'user', content: 'after' })).status).toBe(201)
      const after = await observe(s.url())
      expect(after.snapshot.update_count).toBe(4)
      expect(new Set(after.snapshot.messages.map((m: { input_id: string }) => m.input_id)).size).toBe(4)
    })

    it('keeps a message of 900 kB (a log record over many storage rows or parts) across a SIGKILL', async () => {
      const s = await fresh()
      const big = 'é'.repeat(300_000) + 'x'.repeat(300_000) // 900 kB of UTF-8
      expect((await call(s.url(), 'POST', '/modalities/chat/submit', { role: 'user', content: big, message_id: 'big' })).status).toBe(201)
      expect((await call(s.url(), 'POST', '/modalities/chat/submit', { role: 'user', content: 'small' })).status).toBe(201)
      await s.restart('kill')
      const snap = (await call(s.url(), 'GET', '/environment/modalities/chat')).body
      expect(snap.messages.map((m: { content: string }) => m.content.length)).toEqual([600_000, 5])
      expect(snap.messages[0].content).toBe(big)
    })

    it('keeps an acknowledged fork across a SIGKILL, both sides apart, the parent unchanged', async () => {
      const s = await fresh()
      const submit = (conversation_id: string, message_id: string) =>
        call(s.url(), 'POST', '/modalities/chat/submit', { role: 'user', content: message_id, conversation_id, message_id })
      const ids = async (conversation_id: string) =>
        (await call(s.url(), 'POST', '/environment/modalities/chat/query', { conversation_id })).body.messages.map((m: { message_id: string }) => m.message_id)
      for (const id of ['m1', 'm2', 'm3']) expect((await submit('main', id)).status).toBe(201)
      expect((await call(s.url(), 'POST', '/modalities/chat/fork', { conversation_id: 'main', message_id: 'm2', new_conversation_id: 'f' })).status).toBe(201)
      expect((await call(s.url(), 'POST', '/modalities/chat/fork', { conversation_id: 'main', message_id: 'nope', new_conversation_id: 'g' })).status).toBe(404)
      await s.restart('kill')
      expect(await ids('f')).toEqual(['m1', 'm2'])
      expect((await submit('f', 'f1')).status).toBe(201)
      expect((await submit('main', 'm4')).status).toBe(201)
      expect((await call(s.url(), 'POST', '/modalities/chat/fork', { conversation_id: 'f', message_id: 'f1', new_conversation_id: 'ff' })).status).toBe(201)
      await s.restart('kill')
      expect([await ids('main'), await ids('f'), await ids('ff'), await ids('g')]).toEqual([
        ['m1', 'm2', 'm3', 'm4'],
        ['m1', 'm2', 'f1'],
        ['m1', 'm2', 'f1'],
        [],
      ])
    })

    it('commits a compaction over HTTP only on the head it names, the append that overtook it kept, across a SIGKILL', async () => {
      const s = await fresh()
      const submit = (message_id: string) =>
        call(s.url(), 'POST', '/modalities/chat/submit', { role: 'user', content: message_id, conversation_id: 'k', message_id })
      const compact = (head: string) => call(s.url(), 'POST', '/modalities/chat/compact', { conversation_id: 'k', from: 'k1', head, summary: `k1…${head}` })
      for (const id of ['k1', 'k2']) expect((await submit(id)).status).toBe(201)
      // computed from k2 while k3 was appended: refused, naming k3
      expect((await submit('k3')).status).toBe(201)
      const stale = await compact('k2')
      expect([stale.status, stale.body.error.code, stale.body.error.head]).toEqual([409, 'stale_head', 'k3'])
      expect((await compact('k3')).status).toBe(201)
      await s.restart('kill')
      const read = (await call(s.url(), 'GET', '/environment/modalities/chat/overlays?conversation_id=k')).body
      expect([read.head, read.overlays.map((o: { head: string; summary: string }) => [o.head, o.summary])]).toEqual(['k3', [['k3', 'k1…k3']]])
      const ids = (await call(s.url(), 'POST', '/environment/modalities/chat/query', { conversation_id: 'k' })).body.messages
      expect(ids.map((m: { message_id: string }) => m.message_id)).toEqual(['k1', 'k2', 'k3'])
    })

    it('logs an image sent again as a reference to the first, and gives every copy back whole across a SIGKILL', async () => {
      const s = await fresh()
      const bytes = new Uint8Array(200_000).map((_, i) => (i * 7919) & 0xff)
      let binary = ''
      for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
      const data = btoa(binary)
      for (const id of ['i1', 'i2', 'i3']) {
        const content = [{ type: 'text', text: id }, { type: 'image', source: 'base64', data, media_type: 'image/png' }]
        expect((await call(s.url(), 'POST', '/modalities/chat/submit', { role: 'user', content, conversation_id: 'img', message_id: id })).status).toBe(201)
      }
      await s.restart('kill')
      const got = (await call(s.url(), 'POST', '/environment/modalities/chat/query', { conversation_id: 'img' })).body.messages
      expect(got.map((m: { message_id: string; content: Array<{ data?: string }> }) => [m.message_id, m.content[1]?.data === data])).toEqual([
        ['i1', true],
        ['i2', true],
        ['i3', true],
      ])
    })

    it('reads the wall clock from its first request, not the epoch', async () => {
      const s = await fresh()
      const t0 = Date.now()
      const clock = (await call(s.url(), 'GET', '/simulator')).body
      // within a day of the test's own clock: a store that read a frozen or zero clock is decades off
      expect(Math.abs(Date.parse(clock.current_time) - t0)).toBeLessThan(86_400_000)
    })

    it('stores a message retried after a lost answer once, and tells the retry (409)', async () => {
      const s = await fresh()
      const m = { role: 'user', content: 'Hello', message_id: 'retry-1' }
      expect((await call(s.url(), 'POST', '/modalities/chat/submit', m)).status).toBe(201)
      await s.restart('kill') // the answer might never have reached the client
      const retry = await call(s.url(), 'POST', '/modalities/chat/submit', m)
      expect(retry.status).toBe(409)
      expect(retry.body.error.message_id).toBe('retry-1')
      const snap = (await call(s.url(), 'GET', '/environment/modalities/chat')).body
      expect(snap.messages.filter((x: { message_id: string }) => x.message_id === 'retry-1')).toHaveLength(1)
    })

    it('applies concurrent requests on one store one at a time, every one whole', async () => {
      const s = await fresh()
      const n = 40
      const replies = await Promise.all(
        Array.from(
          { length: n },
          (_, i) =>
            call(s.url(), 'POST', '/modalities/chat/submit', {
              role: i % 2 === 0 ? 'user' : 'assistant',
              content: `m${i}`,
              message_id: `p-${i}`,
              conversation_id: `c-${i % 3}`,
            }),
        ),
      )
      expect(replies.map((r) => r.status)).toEqual(Array(n).fill(201))
      // every event's id is the input id of exactly one stored message: no step saw another half-done
      const seen = await observe(s.url())
      expect(seen.snapshot.update_count).toBe(n)
      expect(seen.events.events.map((e: { status: string }) => e.status)).toEqual(Array(n).fill('applied'))
      const inputIds = seen.snapshot.messages.map((m: { input_id: string }) => m.input_id).sort()
      expect(inputIds).toEqual(seen.events.events.map((e: { event_id: string }) => e.event_id).sort())
      expect(new Set(inputIds).size).toBe(n)
      const counts = Object.values(seen.snapshot.conversations as Record<string, { message_count: number }>).map((c) => c.message_count)
      expect(counts.reduce((a, b) => a + b, 0)).toBe(n)
      await s.restart('kill')
      expect(await observe(s.url())).toEqual(seen)
    })

    it(`loses nothing acknowledged while ${options.clients ?? 50} clients submit through ${options.kills} SIGKILLs`, async () => {
      const s = await fresh()
      const clients = options.clients ?? 50
      const run = await killWhileSubmitting(s, {
        clients,
        perClient: options.perClient ?? 40,
        kills: options.kills,
        killEveryMs: options.killEveryMs ?? [0, 200],
        deadlineMs: 150_000,
        seed: 20261123,
      })
      expect(run.kills).toBe(options.kills)
      expect(run.lostAnswers).toBeGreaterThan(0) // the kills did land mid-run
      expect(run.unknown.size).toBe(0)
      expect(run.acknowledged.size).toBe(clients * (options.perClient ?? 40))
      expect(run.refused.size).toBe(0)
      await s.restart('kill')
      const snap = (await call(s.url(), 'GET', '/environment/modalities/chat')).body
      const ids: string[] = snap.messages.map((m: { message_id: string }) => m.message_id)
      // every acknowledged submit present exactly once, nothing else
      expect(ids.length).toBe(new Set(ids).size)
      expect(new Set(ids)).toEqual(run.acknowledged)
      // each client's messages in the order it sent them
      for (let c = 0; c < clients; c++) {
        const mine = snap.messages.filter((m: { conversation_id: string }) => m.conversation_id === `client-${c}`).map((m: { message_id: string }) =>
          m.message_id
        )
        const sent = Array.from({ length: mine.length }, (_, n) => messageOf(c, n).message_id)
        expect(mine).toEqual(sent)
      }
    }, 200_000)
  })
}
