// A Worker whose Durable Object runs the random interleavings (test/support/interleavings.ts) on
// its own SQLite storage (`ctx.storage`, the storage `chatStoreObject` gives `sqlStorage`), for
// test/deploy/durable-workerd-interleavings.test.ts. `POST /run?seed=…&runs=…` answers
// `{ ok, stats, state }` or `{ ok: false, error }`; `GET /state` the state of the store of the last run, as a new process
// reads it (the test asks it once workerd is killed and started again). Each run's store is the object's tables, dropped
// before the run. A process is a `sqlStorage` of the object's storage; killed, it answers nothing
// more (its store's memory gone, its lease left behind, waited out by the next); a commit dies in
// the SQLite transaction of an append: rolled back before it commits, or committed, its answer lost.
import fc from 'fast-check'
import { type DurableObjectStorageLike, sqlStorage } from '../../../src/cloudflare/sql-storage.ts'
import {
  EVERY_CASE_INTERLEAVING,
  type Fate,
  interleavingArb,
  type InterleavingBackend,
  type InterleavingStats,
  openRunStore,
  runInterleaving,
  singleOwnerBackend,
} from '../../support/interleavings.ts'

/** A process's view of the object's storage: refused once dead; its next append's transaction dies when asked. */
const processStorage = (storage: DurableObjectStorageLike, me: Fate): DurableObjectStorageLike => {
  const alive = () => {
    if (me.dead) throw new Error('the process is gone')
  }
  let wroteLog = false
  return {
    sql: {
      exec: (query, ...bindings) => {
        alive()
        if (query.startsWith('INSERT INTO chatfold_log')) wroteLog = true
        return storage.sql.exec(query, ...bindings)
      },
    },
    transactionSync: (closure) => {
      alive()
      wroteLog = false
      const dies = me.dies
      const r = storage.transactionSync(() => {
        const a = closure()
        if (dies !== undefined && wroteLog && !dies.after) {
          me.dies = undefined
          me.dead = true
          // thrown inside the transaction: SQLite rolls the append back
          throw new Error('killed before the commit')
        }
        return a
      })
      if (dies !== undefined && wroteLog) {
        me.dies = undefined
        me.dead = true
        throw new Error('killed once committed')
      }
      return r
    },
  }
}

/** The store of the process opened last, as it stands after a run. */
type Last = { store?: { state(): unknown } }

const openStore = (storage: DurableObjectStorageLike, me: Fate) => openRunStore(sqlStorage(processStorage(storage, me), { leaseMs: 300 }))

// the process before dies: nothing more of it reaches the storage, its lease is left behind
const backendOn = (storage: DurableObjectStorageLike, last: Last = {}): InterleavingBackend =>
  singleOwnerBackend(async () => {
    for (const t of ['chatfold_log', 'chatfold_snapshot', 'chatfold_lease']) storage.sql.exec(`DROP TABLE IF EXISTS ${t}`)
    return (fate) => sqlStorage(processStorage(storage, fate), { leaseMs: 300 })
  }, (store) => (last.store = store))

export class ChatStoreObject {
  constructor(private readonly ctx: { readonly storage: DurableObjectStorageLike }) {}

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url)
    if (url.pathname === '/state') {
      // a process of a workerd started again: the store as its SQLite storage holds it
      const store = await openStore(this.ctx.storage, { dead: false, dies: undefined })
      return Response.json({ state: store.state() })
    }
    const seed = Number(url.searchParams.get('seed') ?? '1')
    const numRuns = Number(url.searchParams.get('runs') ?? '20')
    const stats: InterleavingStats = {}
    try {
      await fc.assert(fc.asyncProperty(interleavingArb(20), (ops) => runInterleaving(backendOn(this.ctx.storage), ops, stats)), {
        seed,
        numRuns,
        examples: [[EVERY_CASE_INTERLEAVING]],
      })
      // once more the interleaving that reaches every case: its store is left to the workerd that follows this one
      const last: Last = {}
      await runInterleaving(backendOn(this.ctx.storage, last), EVERY_CASE_INTERLEAVING)
      return Response.json({ ok: true, stats, state: last.store?.state() })
    } catch (e) {
      // fast-check's message names the seed and the counterexample, its cause the assertion that failed
      const cause = e instanceof Error && e.cause instanceof Error ? `\n${e.cause.message}` : ''
      return Response.json({ ok: false, error: `${e instanceof Error ? e.message : String(e)}${cause}` })
    }
  }
}

type Env = { readonly CHAT_STORE: { idFromName(name: string): unknown; get(id: unknown): { fetch(r: Request): Promise<Response> } } }

export default {
  fetch: (request: Request, env: Env): Promise<Response> =>
    ['/run', '/state'].includes(new URL(request.url).pathname)
      ? env.CHAT_STORE.get(env.CHAT_STORE.idFromName('interleavings')).fetch(request)
      : Promise.resolve(new Response('up')),
}
