import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as E from 'fp-ts/Either'
import { InMemorySessionStore, type SessionKey, type SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { createChatStore } from '../../src/store/store.ts'
import { createChatHandler } from '../../src/store/http.ts'
import { fromClaudeCode } from '../../src/sessions/claude-code.ts'
import { chatStoreSessionStore, httpChatLog, storeChatLog } from '../../src/claude-agent-sdk/mod.ts'

const inProcess = () => chatStoreSessionStore(storeChatLog(createChatStore({ maxHistorySize: Infinity })))
const served = () => {
  const handler = createChatHandler(createChatStore({ maxHistorySize: Infinity }), { token: 'secret' })
  return chatStoreSessionStore(httpChatLog({ url: 'http://store.test', token: 'secret', fetch: (input, init) => handler(new Request(input, init)) }))
}

const main: SessionKey = { projectKey: '/home/dev/app', sessionId: 's-1' }
const sub: SessionKey = { ...main, subpath: 'subagents/agent-a1' }
const entry = (uuid: string | undefined, text: string): SessionStoreEntry => ({
  type: 'user',
  ...(uuid === undefined ? {} : { uuid }),
  timestamp: '2026-01-01T00:00:00.000Z',
  message: { role: 'user', content: [{ type: 'text', text }] },
  nested: { list: [1, null, true, { a: 'b' }] },
})

describe('chatStoreSessionStore: the SessionStore contract', () => {
  for (const [name, make] of [['in process', inProcess], ['over HTTP with a token', served]] as const) {
    it(`keeps append order, skips a uuid it holds, appends entries without one, loads deep-equal (${name})`, async () => {
      const store = make()
      expect(await store.load(main)).toBeNull()
      const first = [entry('u1', 'a'), entry(undefined, 'title'), entry('u2', 'b')]
      await store.append(main, first)
      await store.append(main, [entry('u2', 'b'), entry('u3', 'c'), entry(undefined, 'title'), entry('u3', 'c')]) // a retry, and a uuid twice in a batch
      expect(await store.load(main)).toEqual([...first, entry('u3', 'c'), entry(undefined, 'title')])
    })

    it(`lists main transcripts with their last write, subagent ones as subkeys; delete empties both (${name})`, async () => {
      const store = make()
      await store.append(main, [entry('u1', 'a')])
      await store.append({ ...main, sessionId: 's-2' }, [entry('v1', 'x')])
      await store.append(sub, [entry('w1', 'y')])
      await store.append({ projectKey: 'other', sessionId: 's-9' }, [entry('z', 'z')])
      const listed = await store.listSessions(main.projectKey)
      expect(listed.map((s) => s.sessionId).sort()).toEqual(['s-1', 's-2'])
      for (const s of listed) expect(Number.isInteger(s.mtime)).toBe(true)
      const s1 = listed.find((s) => s.sessionId === 's-1')?.mtime ?? 0
      const s2 = listed.find((s) => s.sessionId === 's-2')?.mtime ?? 0
      expect(s2).toBeGreaterThan(s1) // written later
      expect(await store.listSubkeys(main)).toEqual(['subagents/agent-a1'])
      expect(await store.load(sub)).toEqual([entry('w1', 'y')])
      await store.delete(main)
      expect(await store.load(main)).toBeNull()
      expect(await store.load(sub)).toBeNull()
      expect(await store.listSubkeys(main)).toEqual([])
      expect((await store.listSessions(main.projectKey)).map((s) => s.sessionId)).toEqual(['s-2'])
      // written again after a deletion: a new transcript, the same uuids welcome
      await store.append(main, [entry('u1', 'again')])
      expect(await store.load(main)).toEqual([entry('u1', 'again')])
    })
  }

  it("answers as the SDK's InMemorySessionStore does, for entries with distinct uuids", async () => {
    const keys: ReadonlyArray<SessionKey> = [main, sub, { ...main, sessionId: 's-2' }]
    const op = fc.oneof(
      fc.record({ op: fc.constant('append' as const), key: fc.nat(2), n: fc.integer({ min: 0, max: 3 }), uuid: fc.boolean() }),
      fc.record({ op: fc.constant('delete' as const), key: fc.nat(2) }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 10 }), async (ops) => {
        const ours = inProcess()
        const theirs = new InMemorySessionStore()
        let n = 0
        for (const o of ops) {
          const key = keys[o.key] as SessionKey
          if (o.op === 'delete') {
            await ours.delete(key)
            await theirs.delete(key)
          } else {
            const batch = Array.from({ length: o.n }, () => entry(o.uuid ? `u${n}` : undefined, `e${n++}`))
            await ours.append(key, batch)
            await theirs.append(key, batch)
          }
        }
        for (const key of keys) {
          const theirsLoaded = await theirs.load(key)
          // the SDK's keeps an emptied key as [] where ours answers null: the contract allows either
          expect(await ours.load(key)).toEqual(theirsLoaded?.length === 0 ? null : theirsLoaded)
        }
        const ids = async (s: { listSessions: (p: string) => Promise<Array<{ sessionId: string }>> }) =>
          (await s.listSessions(main.projectKey)).map((x) => x.sessionId).sort()
        const nonEmpty = []
        for (const id of await ids(theirs)) if (((await theirs.load({ ...main, sessionId: id })) ?? []).length > 0) nonEmpty.push(id)
        expect(await ids(ours)).toEqual(nonEmpty)
      }),
      { numRuns: 60 },
    )
  })

  it('refuses a transcript the store has cut, rather than load part of it; one deleted since reads again', async () => {
    const store = chatStoreSessionStore(storeChatLog(createChatStore({ maxHistorySize: 2 })))
    // a batch is one record: three batches, of which the store keeps the last two
    for (const [uuid, text] of [['u1', 'a'], ['u2', 'b'], ['u3', 'c']] as const) await store.append(main, [entry(uuid, text)])
    await expect(store.load(main)).rejects.toThrow(/dropped its first 1 records.*maxHistorySize/)
    await store.delete(main)
    await store.append(main, [entry('u1', 'again')])
    expect(await store.load(main)).toEqual([entry('u1', 'again')])
  })

  it('keeps one entry of a uuid when two writers race past the check', async () => {
    const log = storeChatLog(createChatStore({ maxHistorySize: Infinity }))
    const [a, b] = [chatStoreSessionStore(log), chatStoreSessionStore(log)]
    await Promise.all([a.append(main, [entry('u1', 'a'), entry('u2', 'b')]), b.append(main, [entry('u1', 'a'), entry('u3', 'c')])])
    const loaded = (await a.load(main)) ?? []
    expect(loaded.map((e) => e.uuid).sort()).toEqual(['u1', 'u2', 'u3'])
  })

  it('refuses an empty subpath and a key too long for the store, saying why', async () => {
    const store = inProcess()
    await expect(store.append({ ...main, subpath: '' }, [entry('u', 'a')])).rejects.toThrow(/empty subpath/)
    await expect(store.load({ projectKey: 'p'.repeat(300), sessionId: 's' })).rejects.toThrow(/over the store's 256/)
  })
})

describe('chatStoreSessionStore.history', () => {
  it('reads the stored transcript as Claude Code’s reader does, its compact_boundary as the compaction', async () => {
    const text = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'claude-code', '9a3f6e21-7b4c-4d8a-b2e5-0c1d9f8e7a36.jsonl'), 'utf8')
    const records = text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as SessionStoreEntry)
    expect(records.some((r) => r['subtype'] === 'compact_boundary')).toBe(true)
    const store = inProcess()
    await store.append(main, records.slice(0, 10))
    await store.append(main, records.slice(10))
    const read = await store.history(main)
    const expected = fromClaudeCode()(text)
    if (E.isLeft(expected)) throw new Error('the fixture must read')
    expect(read?.compactions.length).toBeGreaterThan(0)
    expect(read?.compactions).toEqual(expected.right.compactions)
    expect(read?.messages).toEqual(expected.right.messages)
    expect(read?.archive).toEqual(expected.right.archive)
    expect(await store.history({ ...main, sessionId: 'never' })).toBeUndefined()
  })

  for (const form of ['in process', 'over HTTP'] as const) {
    it(`keeps an entry another writer appends while the SDK writes its compaction, and reads the compaction (${form})`, async () => {
      const text = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'claude-code', '9a3f6e21-7b4c-4d8a-b2e5-0c1d9f8e7a36.jsonl'), 'utf8')
      const records = text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as SessionStoreEntry)
      const boundary = records.findIndex((r) => r['subtype'] === 'compact_boundary')
      const chat = createChatStore({ maxHistorySize: Infinity })
      const handler = createChatHandler(chat)
      const log = () =>
        form === 'in process' ? storeChatLog(chat) : httpChatLog({ url: 'http://store.test', fetch: (input, init) => handler(new Request(input, init)) })
      // two clients of one transcript, each with its own log: the compaction's batch and another write race
      const [sdk, other] = [chatStoreSessionStore(log()), chatStoreSessionStore(log())]
      await sdk.append(main, records.slice(0, boundary))
      await Promise.all([sdk.append(main, records.slice(boundary)), other.append(main, [entry('meanwhile', 'written meanwhile')])])
      const loaded = await sdk.load(main)
      expect(loaded).toHaveLength(records.length + 1)
      expect(loaded).toContainEqual(entry('meanwhile', 'written meanwhile'))
      expect(loaded?.filter((e) => e.uuid !== 'meanwhile')).toEqual(records)
      expect((await sdk.history(main))?.compactions.length).toBeGreaterThan(0)
    })
  }

  // The SDK computes a compaction in its own process and mirrors it here after its local write, naming the head it was
  // computed from (the boundary's logicalParentUuid); a batch the store refused would be retried and then dropped by
  // the SDK, so the store never refuses one: another process's write that lands meanwhile hangs off that head, a branch of its own
  for (const form of ['in process', 'over HTTP'] as const) {
    it(`keeps a write landing between the compaction's head and its boundary as a branch forked from that head, the compaction read as written (${form})`, async () => {
      const text = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'claude-code', '9a3f6e21-7b4c-4d8a-b2e5-0c1d9f8e7a36.jsonl'), 'utf8')
      const records = text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as SessionStoreEntry)
      const boundary = records.findIndex((r) => r['subtype'] === 'compact_boundary')
      const head = records[boundary - 1] as SessionStoreEntry
      expect(records[boundary]?.['logicalParentUuid']).toBe(head.uuid)
      const chat = createChatStore({ maxHistorySize: Infinity })
      const handler = createChatHandler(chat)
      const log = () =>
        form === 'in process' ? storeChatLog(chat) : httpChatLog({ url: 'http://store.test', fetch: (input, init) => handler(new Request(input, init)) })
      const [sdk, other] = [chatStoreSessionStore(log()), chatStoreSessionStore(log())]
      const meanwhile: SessionStoreEntry = {
        type: 'user',
        uuid: 'meanwhile',
        parentUuid: head.uuid,
        sessionId: head['sessionId'],
        timestamp: '2026-01-01T00:00:00.000Z',
        message: { role: 'user', content: 'written while the compaction was computed' },
      }
      await sdk.append(main, records.slice(0, boundary))
      await other.append(main, [meanwhile]) // after the head the compaction is computed from, before its boundary
      await sdk.append(main, records.slice(boundary))
      // nothing refused, nothing moved: the transcript in commit order
      expect(await sdk.load(main)).toEqual([...records.slice(0, boundary), meanwhile, ...records.slice(boundary)])
      const expected = fromClaudeCode()(text)
      if (E.isLeft(expected)) throw new Error('the fixture must read')
      const read = await sdk.history(main, { branches: 'all' })
      // the compaction, its archive and the history after it, as the SDK wrote them: the write it never saw is not in its archive
      expect(read?.compactions).toEqual(expected.right.compactions)
      expect(read?.archive).toEqual(expected.right.archive)
      expect(read?.messages.filter((m) => m.metadata?.['branch'] === undefined)).toEqual(expected.right.messages)
      // and that write, on a branch of its own forked from the compaction's head
      const branch = read?.messages.filter((m) => m.metadata?.['branch'] !== undefined) ?? []
      expect(branch.map((m) => [m.role, m.kind, m.metadata?.['branch']])).toEqual([['user', 'display', { index: 1, leaf: 'meanwhile', forkedFrom: head.uuid }]])
      expect(read?.branches).toEqual({ abandoned: 1, read: 1 })
    })
  }
})
