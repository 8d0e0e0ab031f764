/**
 * Random interleavings of appends, forks, compactions, session clears and kills on a store shared
 * by two processes, against a model (what each process of a backend answers is checked after every
 * step, and by a third process opened at the end):
 *
 * - appends to plain conversations, each acknowledged one kept once and in order, including one
 *   whose commit died (before it ran, or after it ran with its answer lost), its process killed and
 *   the message sent again, with its id, to the other process (stored, or refused as the duplicate
 *   of the first try);
 * - forks, and overlays (compactions committed with compare-and-append, one raced by an append
 *   from the other process and refused as stale): a conversation reads only its own overlays;
 * - OpenAI Agents sessions (`chatStoreSession` over `storeChatLog`): items added, the session
 *   cleared, and compacted, while the other process adds an item or clears the session between the
 *   compaction's read and its write: the compaction is then refused, so nothing cleared comes back
 *   and nothing added is replaced unseen;
 * - kills: a process dropped between steps and opened again from the database.
 */
import fc from 'fast-check'
import { expect } from 'vitest'
import * as E from 'fp-ts/Either'
import type { AgentInputItem } from '@openai/agents'
import type { ChatStore } from '../../src/store/store.ts'
import { getConversation } from '../../src/store/query.ts'
import { chatStoreSession, storeChatLog } from '../../src/openai-agents/mod.ts'
import type { PgPoolLike } from '../../src/postgres/client.ts'
import { openPostgresStore } from '../../src/postgres/store.ts'
import { type DurableChatStore, openDurableStore, type StoreStorage } from '../../src/store/durable.ts'

type Store = ChatStore & Required<Pick<ChatStore, 'fork' | 'compact' | 'compacted'>>

/** A process of the backend: its store, a step committed (a transaction), and catching up with the others. */
export type Process = {
  readonly store: Store
  readonly commit: <A>(step: () => A) => Promise<A>
  readonly refresh: () => Promise<void>
}

/** A backend: a new process on the store's data (each run its own store), and a commit that dies. */
export type InterleavingBackend = {
  /** `one`: a single process owns the store (the file store), so opening one ends the one before, and both processes are it. */
  readonly owners?: 'one' | 'many'
  /** A store of its own for one run; `open` makes a process of it (the first creates it). */
  readonly fresh: () => Promise<{
    readonly open: () => Promise<Process>
    /** The next commit of the last process opened dies: before it runs, or once it ran (its answer lost). */
    readonly dieAtNextCommit: (after: boolean) => void
  }>
}

export type Op =
  | { readonly op: 'append'; readonly p: number; readonly to: number }
  | { readonly op: 'fork'; readonly p: number; readonly from: number; readonly at: number }
  | { readonly op: 'compact'; readonly p: number; readonly conv: number; readonly from: number; readonly race: boolean }
  | { readonly op: 'add'; readonly p: number; readonly session: number; readonly n: number }
  | { readonly op: 'clear'; readonly p: number; readonly session: number }
  | { readonly op: 'squash'; readonly p: number; readonly session: number; readonly race: 'none' | 'add' | 'clear' }
  | { readonly op: 'kill'; readonly p: number }
  | { readonly op: 'die'; readonly p: number; readonly to: number; readonly after: boolean }

const p = fc.integer({ min: 0, max: 1 })
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('append' as const), p, to: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('fork' as const), p, from: fc.nat(), at: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('compact' as const), p, conv: fc.nat(), from: fc.nat(), race: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('add' as const), p, session: fc.nat(1), n: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const), p, session: fc.nat(1) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('squash' as const),
      p,
      session: fc.nat(1),
      race: fc.constantFrom('none' as const, 'add' as const, 'clear' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('kill' as const), p }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('die' as const), p, to: fc.nat(), after: fc.boolean() }) },
)

/** One interleaving that reaches every case (each fault, each way a compaction ends), run before the random ones. */
export const EVERY_CASE_INTERLEAVING: ReadonlyArray<Op> = [
  { op: 'append', p: 0, to: 0 },
  { op: 'append', p: 1, to: 0 },
  { op: 'append', p: 0, to: 0 },
  { op: 'fork', p: 1, from: 0, at: 1 },
  { op: 'append', p: 0, to: 1 },
  { op: 'compact', p: 1, conv: 1, from: 0, race: false },
  { op: 'compact', p: 0, conv: 0, from: 1, race: true },
  { op: 'compact', p: 1, conv: 0, from: 0, race: false },
  { op: 'die', p: 0, to: 0, after: true },
  { op: 'die', p: 1, to: 1, after: false },
  { op: 'add', p: 0, session: 0, n: 3 },
  { op: 'squash', p: 1, session: 0, race: 'none' },
  { op: 'add', p: 1, session: 0, n: 2 },
  { op: 'squash', p: 0, session: 0, race: 'add' },
  { op: 'squash', p: 1, session: 0, race: 'clear' },
  { op: 'add', p: 0, session: 1, n: 2 },
  { op: 'clear', p: 1, session: 1 },
  { op: 'kill', p: 0 },
  { op: 'append', p: 0, to: 1 },
]

/** The interleavings to run: `maxLength` steps at most. */
export const interleavingArb = (maxLength: number): fc.Arbitrary<ReadonlyArray<Op>> => fc.array(opArb, { minLength: 1, maxLength })

type Plain = { ids: string[]; overlays: Array<{ readonly from: string; readonly head: string }> }
type Session = { live: string[]; summarized: boolean }

const ORIGINAL = /^item-\d+$/
const textOf = (item: AgentInputItem): string => ('content' in item && typeof item.content === 'string' ? item.content : JSON.stringify(item))

/** What the runs went through, to check they reached every case: steps by kind, and how the compactions ended. */
export type InterleavingStats = Record<string, number>

/** Runs one interleaving on a fresh store of the backend, checking the model after every step; counts what it did into `stats`. */
export const runInterleaving = async (backend: InterleavingBackend, ops: ReadonlyArray<Op>, stats: InterleavingStats = {}): Promise<void> => {
  const count = (k: string) => void (stats[k] = (stats[k] ?? 0) + 1)
  const b = await backend.fresh()
  const shared = backend.owners === 'one'
  const first = await b.open()
  const procs: Process[] = [first, shared ? first : await b.open()]
  const reopen = async (i: number) => {
    const fresh = await b.open()
    if (shared) procs.splice(0, 2, fresh, fresh)
    else procs[i % 2] = fresh
  }
  const plain = new Map<string, Plain>([['c0', { ids: [], overlays: [] }]])
  const sessions: Session[] = [{ live: [], summarized: false }, { live: [], summarized: false }]
  let n = 0
  let items = 0
  const proc = (i: number) => procs[i % 2] as Process
  const sessionOf = (pr: Process, s: number, summarize?: () => Promise<string>) =>
    chatStoreSession({
      log: storeChatLog(pr.store),
      sessionId: `s${s}`,
      compaction: { contextWindow: 100_000, keepRecentTokens: 1, ...(summarize === undefined ? {} : { summarize }) },
    })
  const addItems = async (pr: Process, s: number, count: number) => {
    const added = Array.from({ length: count }, () => `item-${items++}`)
    await pr.refresh()
    await sessionOf(pr, s).addItems(added.map((content) => ({ role: 'user', content })))
    sessions[s]?.live.push(...added)
  }
  const clear = async (pr: Process, s: number) => {
    await pr.refresh()
    await sessionOf(pr, s).clearSession()
    sessions[s] = { live: [], summarized: false }
  }

  const check = async (pr: Process, squashed?: number) => {
    await pr.refresh()
    for (const [c, m] of plain) {
      expect(getConversation(c)(pr.store.state()).map((x) => x.id)).toEqual(m.ids)
      const last = m.overlays.at(-1)
      const view = last === undefined
        ? m.ids
        : [...m.ids.slice(0, m.ids.indexOf(last.from)), `compaction:${last.head}`, ...m.ids.slice(m.ids.indexOf(last.head) + 1)]
      expect(pr.store.compacted(c).map((x) => x.id)).toEqual(view)
    }
    for (const [s, m] of sessions.entries()) {
      const texts = (await sessionOf(pr, s).getItems()).map(textOf)
      const originals = texts.filter((t) => ORIGINAL.test(t))
      if (s === squashed && originals.length < m.live.length) {
        // a compaction that went through: what it kept is the newest of the session, after its summary
        expect(m.live.slice(m.live.length - originals.length)).toEqual(originals)
        expect(texts.length).toBeGreaterThan(originals.length)
        m.live = originals
        m.summarized = true
        count('session compacted')
      }
      // nothing cleared comes back, nothing added is lost, and a summary only where a compaction went through
      expect(originals).toEqual(m.live)
      if (!m.summarized) expect(texts).toEqual(m.live)
    }
  }

  for (const o of ops) {
    const pr = proc(o.p)
    const other = proc(o.p + 1)
    let squashed: number | undefined
    if (o.op === 'append' || o.op === 'die') {
      const names = [...plain.keys()]
      const to = names[o.to % names.length] as string
      const id = `m${n++}`
      const submit = (x: Process) => x.commit(() => x.store.submit({ role: 'user', content: id, message_id: id, conversation_id: to }))
      if (o.op === 'append') {
        await pr.refresh()
        expect(E.isRight(await submit(pr))).toBe(true)
      } else {
        // the commit dies with its process; the writer sends the same message to the other process
        const dying = await b.open()
        await dying.refresh()
        b.dieAtNextCommit(o.after)
        await expect(submit(dying)).rejects.toThrow()
        // a single owner: the writer waits for the store to be opened again, and sends it there
        if (shared) await reopen(0)
        const retry = await submit(shared ? proc(0) : other)
        if (o.after) expect(retry).toMatchObject(E.left({ kind: 'duplicate_message', messageId: id }))
        else expect(E.isRight(retry)).toBe(true)
        count(o.after ? 'died after its commit' : 'died before its commit')
      }
      plain.get(to)?.ids.push(id)
    } else if (o.op === 'fork') {
      const names = [...plain.keys()]
      const from = names[o.from % names.length] as string
      const held = plain.get(from)?.ids ?? []
      const at = held[o.at % Math.max(1, held.length)]
      if (at === undefined) continue
      const r = await pr.commit(() => pr.store.fork(from, at))
      if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
      plain.set(r.right.conversation_id, { ids: held.slice(0, held.indexOf(at) + 1), overlays: [] })
    } else if (o.op === 'compact') {
      const names = [...plain.keys()]
      const conv = names[o.conv % names.length] as string
      const m = plain.get(conv) as Plain
      const head = m.ids.at(-1)
      const from = m.ids[o.from % Math.max(1, m.ids.length)]
      if (head === undefined || from === undefined) continue
      if (o.race) {
        // computed from `head` while the other process appends: refused, naming the newer head
        const id = `m${n++}`
        await other.refresh()
        expect(E.isRight(await other.commit(() => other.store.submit({ role: 'user', content: id, message_id: id, conversation_id: conv })))).toBe(true)
        m.ids.push(id)
      }
      const r = await pr.commit(() => pr.store.compact(conv, from, head, `summary of ${from}…${head}`))
      if (o.race) {
        expect(r).toEqual(E.left({ kind: 'stale_head', conversationId: conv, expected: head, head: m.ids.at(-1) }))
        count('overlay refused as stale')
      } else {
        expect(E.isRight(r)).toBe(true)
        m.overlays.push({ from, head })
        count(names.indexOf(conv) === 0 ? 'overlay committed' : 'overlay committed on a fork')
      }
    } else if (o.op === 'add') await addItems(pr, o.session, o.n)
    else if (o.op === 'clear') {
      await clear(pr, o.session)
      count('cleared')
    } else if (o.op === 'squash') {
      await pr.refresh()
      const race = o.race
      const squash = sessionOf(pr, o.session, async () => {
        // between the compaction's read and its write, the other process changes the session
        if (race !== 'none') count(`session compaction raced by ${race === 'add' ? 'an add' : 'a clear'}`)
        if (race === 'add') await addItems(other, o.session, 1)
        else if (race === 'clear') await clear(other, o.session)
        return 'a summary of the session so far'
      }).compact()
      if (race === 'none') {
        await squash
        squashed = o.session
      } else {
        // refused: at the position it read, or, this process being behind the other's commit, as a conflict
        await squash.catch((e: unknown) => expect(e).toMatchObject({ code: 'conflict' }))
      }
    } else if (o.op === 'kill') {
      // dropped between steps, with nothing pending: opened again from the database
      await reopen(o.p)
      count('killed')
    }
    await check(proc(0), squashed)
    await check(proc(1))
  }
  await check(await b.open())
}

/** A process's fate, as the storage it writes through sees it: its next commit dies (`dies`); once the next process opened, it is `dead`. */
export type Fate = { dead: boolean; dies: { readonly after: boolean } | undefined }

/** A durable store opened as every run opens it, on the storage of one process. */
export const openRunStore = (storage: StoreStorage): Promise<DurableChatStore> =>
  openDurableStore(storage)({ startTime: '2024-03-15T10:00:00Z', snapshotEvery: 5 })

/**
 * A backend whose durable store one process owns at a time (a file, Deno KV, a Durable Object):
 * `fresh` readies a run's store and answers how a process makes the storage it writes through,
 * given its fate. Opening a process kills the one before (`dead`); a commit is a step and the
 * store's flush; `opened` hears of each store opened.
 */
export const singleOwnerBackend = (
  fresh: () => Promise<(fate: Fate) => StoreStorage | Promise<StoreStorage>>,
  opened?: (store: DurableChatStore) => void,
): InterleavingBackend => ({
  owners: 'one',
  fresh: async () => {
    const storageOf = await fresh()
    let current: Fate | undefined
    return {
      open: async () => {
        if (current !== undefined) current.dead = true
        const fate: Fate = { dead: false, dies: undefined }
        current = fate
        const store = await openRunStore(await storageOf(fate))
        opened?.(store)
        return {
          store,
          commit: async (step) => {
            const a = step()
            await store.flush()
            return a
          },
          refresh: async () => undefined,
        }
      },
      dieAtNextCommit: (after) => {
        if (current !== undefined) current.dies = { after }
      },
    }
  },
})

/**
 * The PostgreSQL store as a backend of the interleavings: each run a store of its own (named
 * `name()`), each process over its own pool (`pool()`: a new client of the database, or one
 * shared), whose next commit can be made to die (before PostgreSQL runs it, or once it ran).
 */
export const postgresBackend = (pool: () => PgPoolLike, name: () => string): InterleavingBackend => ({
  fresh: async () => {
    const store = name()
    let last: { dies: { readonly after: boolean } | undefined } = { dies: undefined }
    return {
      open: async () => {
        const me: { dies: { readonly after: boolean } | undefined } = { dies: undefined }
        last = me
        const under = pool()
        const mine: PgPoolLike = {
          connect: async () => {
            const c = await under.connect()
            return {
              release: (e) => c.release(e),
              query: async (text, values) => {
                const dies = me.dies
                if (dies === undefined || !text.startsWith('COMMIT')) return c.query(text, values)
                me.dies = undefined
                if (dies.after) await c.query(text, values)
                throw new Error('Connection terminated unexpectedly')
              },
            }
          },
        }
        const s = await openPostgresStore(mine)({ store, startTime: '2024-03-15T10:00:00Z', snapshotEvery: 5 })
        return { store: s, commit: (step) => s.transaction(step), refresh: () => s.refresh() }
      },
      dieAtNextCommit: (after) => void (last.dies = { after }),
    }
  },
})

/** The cases every run of the interleavings together must reach (`InterleavingStats`' keys). */
export const EVERY_CASE: ReadonlyArray<string> = [
  'cleared',
  'died after its commit',
  'died before its commit',
  'killed',
  'overlay committed',
  'overlay committed on a fork',
  'overlay refused as stale',
  'session compacted',
  'session compaction raced by a clear',
  'session compaction raced by an add',
]
