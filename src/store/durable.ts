/**
 * A durable chat store: a `ChatStore` whose accepted steps go to a log kept by a `StoreStorage`
 * (a file, a Durable Object's SQLite, Deno KV, or memory), with snapshots so that recovery loads
 * the latest one and replays only the tail. Writes are grouped: the steps accepted while one
 * append is under way go out together in the next, and `flush()` resolves once every step
 * accepted before it is durable, so a server answers 2xx only for what its storage holds.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { applyCommand, decodeStoreCommand, encodeSimulator, restoreSimulator, type StoreCommand } from './log.ts'
import type { Simulator, SimulatorOptions } from './simulator.ts'
import { type ChatStore, createChatStore } from './store.ts'
import { isStoreError, StoreError } from './failure.ts'
import { wholeOption } from '../internal/number.ts'

// --- storage ---

/**
 * One record of a store's log: its position (1, 2, 3, … with no gap) and the command.
 *
 * @since 0.1.0
 * @category model
 */
export type LogEntry = { readonly seq: number; readonly command: StoreCommand }

/**
 * A snapshot of a store: the simulator's JSON form after the log's first `seq` records.
 *
 * @since 0.1.0
 * @category model
 */
export type StoredSnapshot = { readonly seq: number; readonly simulator: unknown }

/**
 * What a storage holds when a store opens: the latest snapshot, if any, and the log records after
 * it, in order (records as read, checked by the store).
 *
 * @since 0.1.0
 * @category model
 */
export type StoredLog = {
  readonly snapshot: StoredSnapshot | undefined
  readonly tail: ReadonlyArray<{ readonly seq: number; readonly command: unknown }>
  /** What the storage repaired while loading (e.g. "cut a torn last record of 37 bytes"). */
  readonly repaired?: ReadonlyArray<string>
  /** Why the storage can be read but not written (a read-only medium): the store then serves reads and refuses writes. */
  readonly readOnly?: string
}

/**
 * Where a durable store keeps its log and snapshots. `append` resolves once the records are
 * durable and will be read back by the next `load` (and rejects if they may not be); `writeSnapshot`
 * may drop the records it covers. A `StoreError` of code `full` from `append` means nothing of
 * the batch was kept (the storage undid any part of it) and a later append may succeed; of code
 * `lost` or `read-only`, that no append will. A storage is used by one store at a time, and its
 * calls never overlap. A storage that several processes can reach keeps one owner: `load` takes it
 * (or rejects, naming the owner), and `check`, called when a flush has nothing to write, rejects
 * once this store is no longer the owner, so that it stops answering from a state another process
 * may have moved on from.
 *
 * @since 0.1.0
 * @category model
 */
export type StoreStorage = {
  readonly load: () => Promise<StoredLog>
  readonly append: (entries: ReadonlyArray<LogEntry>) => Promise<void>
  readonly writeSnapshot: (snapshot: StoredSnapshot) => Promise<void>
  readonly check?: () => Promise<void>
  readonly close?: () => Promise<void>
}

// --- recovery ---

/**
 * What a store found when it opened: the snapshot's position, how many records it replayed after
 * it, the last position, and what the storage repaired.
 *
 * @since 0.1.0
 * @category model
 */
export type Recovery = {
  readonly snapshotSeq: number
  readonly replayed: number
  readonly seq: number
  readonly messages: number
  readonly repaired: ReadonlyArray<string>
  /** Why the store refuses writes from the start (a read-only medium), if it does. */
  readonly readOnly?: string
}

/**
 * Rebuilds the simulator from a stored log: restore the snapshot (trusted: written by the store,
 * its integrity checked by the storage), then replay the tail in order.
 * A record out of place, unreadable or refused on replay is an error naming it.
 *
 * @since 0.1.0
 * @category codecs
 */
export const replayLog = (
  log: StoredLog,
): E.Either<string, { readonly simulator: Simulator | undefined; readonly seq: number; readonly snapshotSeq: number }> => {
  let sim: Simulator | undefined
  const snapshotSeq = log.snapshot?.seq ?? 0
  if (log.snapshot !== undefined) {
    const d = restoreSimulator(log.snapshot.simulator)
    if (E.isLeft(d)) return E.left(`Cannot read the snapshot at record ${snapshotSeq}: ${d.left}`)
    sim = d.right
  }
  let seq = snapshotSeq
  for (const r of log.tail) {
    if (r.seq <= snapshotSeq) continue
    if (r.seq !== seq + 1) return E.left(`Cannot replay the log: record ${r.seq} follows record ${seq} (records ${seq + 1}–${r.seq - 1} are missing)`)
    const c = decodeStoreCommand(r.command)
    if (E.isLeft(c)) return E.left(`Cannot replay the log: record ${r.seq} is not a command: ${c.left}`)
    const next = applyCommand(c.right)(sim)
    if (E.isLeft(next)) return E.left(`Cannot replay the log: record ${r.seq} (${c.right.op}) fails: ${next.left}`)
    sim = next.right
    seq = r.seq
  }
  return E.right({ simulator: sim, seq, snapshotSeq })
}

// --- the store ---

/**
 * Options of a durable store: those of a new simulator (used only when the storage is empty),
 * and how many records may follow a snapshot before the next one is written (10,000 by default).
 *
 * @since 0.1.0
 * @category constructors
 */
export type DurableStoreOptions = SimulatorOptions & { readonly snapshotEvery?: number }

/**
 * A chat store whose steps are logged: `flush` is always there, `recovery` tells what opening it
 * found, `failed` why it can no longer answer (a write that failed, or the storage owned by
 * another process: its state in memory may differ from the storage's, so every later flush
 * rejects; open the store again to go on from what the storage holds), `close` waits for the
 * log and closes the storage.
 *
 * @since 0.1.0
 * @category model
 */
export type DurableChatStore = ChatStore & {
  readonly submitDecoded: NonNullable<ChatStore['submitDecoded']>
  readonly fork: NonNullable<ChatStore['fork']>
  readonly compact: NonNullable<ChatStore['compact']>
  readonly compacted: NonNullable<ChatStore['compacted']>
  readonly flush: () => Promise<void>
  readonly recovery: Recovery
  readonly failed: () => Error | undefined
  readonly close: () => Promise<void>
}

/**
 * Opens a durable store on a storage: recovers it (snapshot and tail), then logs every accepted
 * step. Rejects with a `StoreError` (`corrupt`) naming the record when the log cannot be
 * replayed. A step the storage cannot keep is undone, with every step taken after it: `flush`
 * rejects with the storage's `StoreError` (`full`: later steps may be kept again; `lost`,
 * `read-only`: the store refuses every later step, and keeps serving what it holds).
 *
 * @example
 * import { memoryStorage, openDurableStore } from 'chatfold/store'
 * const store = await openDurableStore(memoryStorage())({ startTime: '2024-03-15T10:00:00Z' })
 * store.submit({ role: 'user', content: 'Hi' })
 * await store.flush() // the submit is in the log
 *
 * @since 0.1.0
 * @category constructors
 */
export const openDurableStore = (storage: StoreStorage) => async (options: DurableStoreOptions = {}): Promise<DurableChatStore> => {
  const log = await storage.load()
  const replayed = replayLog(log)
  if (E.isLeft(replayed)) {
    await storage.close?.()
    throw new StoreError('corrupt', replayed.left)
  }
  const every = wholeOption(options.snapshotEvery, { fallback: 10_000, min: 1 })
  let seq = replayed.right.seq
  let durable = seq
  let snapshotSeq = replayed.right.snapshotSeq
  let latest: Simulator | undefined = replayed.right.simulator
  /** The simulator after the last durable record: what the store goes back to when a batch cannot be kept. */
  let kept: Simulator | undefined = latest
  let pending: LogEntry[] = []
  let writing: Promise<void> | undefined
  /** A failure that leaves the store unusable. */
  let failure: Error | undefined
  /** Why writes are refused for good (read-only medium, lost log); reads go on. */
  let refused: StoreError | undefined = log.readOnly === undefined ? undefined : new StoreError('read-only', log.readOnly)
  let reset: (simulator: Simulator | undefined) => void = () => undefined

  /**
   * Undoes every step not yet durable: the failed batch, and those taken on top of it while it was
   * written, whose callers wait for this batch or the next and are rejected with it. (A caller that
   * flushes in the task of its step, as the HTTP handler does, is always one of them: an undo runs
   * when a write fails, in another task.)
   */
  const undo = (): void => {
    pending = []
    seq = durable
    latest = kept
    reset(kept)
  }

  const writeBatch = async (): Promise<void> => {
    const batch = pending
    const after = latest
    pending = []
    const last = batch[batch.length - 1]
    if (last === undefined) return
    try {
      if (refused !== undefined) throw refused
      await storage.append(batch)
    } catch (e) {
      if (isStoreError(e) && (e.code === 'full' || e.code === 'lost' || e.code === 'read-only')) {
        if (e.code !== 'full') refused = e
        undo()
        throw e
      }
      failure = new Error(`The store's log could not be written: ${e instanceof Error ? e.message : String(e)}`, { cause: e })
      throw failure
    }
    durable = last.seq
    kept = after
    if (after !== undefined && durable - snapshotSeq >= every) {
      try {
        await storage.writeSnapshot({ seq: durable, simulator: encodeSimulator(after) })
        snapshotSeq = durable
      } catch (e) {
        // the records are durable: a full disk only puts the snapshot off to a later batch
        if (isStoreError(e) && e.code === 'full') return
        // the records are durable; the store may not write any more (another process owns it now)
        if (isStoreError(e) && (e.code === 'lost' || e.code === 'read-only')) {
          refused = e
          return
        }
        failure = new Error(`The store's snapshot could not be written: ${e instanceof Error ? e.message : String(e)}`, { cause: e })
        throw failure
      }
    }
  }

  const flush = async (): Promise<void> => {
    const target = seq
    if (durable >= target && failure === undefined && storage.check !== undefined) {
      try {
        await storage.check()
      } catch (e) {
        failure ??= new Error(`The store cannot be served from here: ${e instanceof Error ? e.message : String(e)}`, { cause: e })
      }
    }
    while (durable < target) {
      if (failure !== undefined) throw failure
      if (writing === undefined) writing = writeBatch().finally(() => (writing = undefined))
      await writing
    }
    if (failure !== undefined) throw failure
  }

  const journal = {
    record: (command: StoreCommand, next: Simulator) => {
      if (failure !== undefined) throw failure
      if (refused !== undefined) {
        // a store that cannot write still reads: its simulator is made, in memory only
        if (command.op === 'create' && seq === 0) return
        throw refused
      }
      seq += 1
      pending.push({ seq, command })
      latest = next
    },
    flush,
    attach: (r: (simulator: Simulator | undefined) => void) => void (reset = r),
  }
  const store = createChatStore(latest === undefined ? options : { simulator: latest }, journal)
  const recovery: Recovery = {
    snapshotSeq: replayed.right.snapshotSeq,
    replayed: replayed.right.seq - replayed.right.snapshotSeq,
    seq: replayed.right.seq,
    messages: latest?.state.updateCount ?? 0,
    repaired: log.repaired ?? [],
    ...(log.readOnly === undefined ? {} : { readOnly: log.readOnly }),
  }
  return {
    ...store,
    flush,
    recovery,
    failed: () => failure,
    close: async () => {
      try {
        await flush()
      } finally {
        await storage.close?.()
      }
    },
  }
}

// --- a storage in memory ---

/**
 * A storage in memory (for tests, and the contract every storage meets): it keeps what a real
 * one would, and drops the records a snapshot covers.
 *
 * @example
 * import { memoryStorage } from 'chatfold/store'
 * const storage = memoryStorage()
 * await storage.load() // { snapshot: undefined, tail: [] }
 *
 * @since 0.1.0
 * @category constructors
 */
export const memoryStorage = (): StoreStorage & { readonly records: () => ReadonlyArray<LogEntry>; readonly snapshot: () => StoredSnapshot | undefined } => {
  let records: LogEntry[] = []
  let snap: StoredSnapshot | undefined
  const copy = <A>(a: A): A => JSON.parse(JSON.stringify(a)) as A
  return {
    load: async () => ({ snapshot: snap === undefined ? undefined : copy(snap), tail: copy(records) }),
    append: async (entries) => void records.push(...copy(entries)),
    writeSnapshot: async (s) => {
      snap = copy(s)
      records = records.filter((r) => r.seq > s.seq)
    },
    records: () => records,
    snapshot: () => snap,
  }
}
