/**
 * Counting on more than one core: the service counts the chunks sent ahead for its sessions on its own thread and on counting workers
 * (other instances of the engine worker, reached through ports the client connected), whichever lane has room taking the next slice. A
 * counter counts structured clones with the same definition and tables, so its counts are this thread's, cached here for the messages kept
 * here; the slices of a counter that fails or is dropped are counted again by another.
 *
 * @module
 */
import { wrap } from 'comlink'
import type { Message, Messages } from '../message/message.ts'
import type { EncodingName } from '../tokenizer/load.ts'
import { type Estimator, type TokenBreakdown, tokenBreakdown } from '../tokens/message-tokens.ts'
import { admit } from './_admit.ts'
import type { CountingCalls, EngineService } from './operations.ts'
import { abortReason } from '../internal/abort.ts'
import { noop } from '../internal/function.ts'

/** The numbers of one breakdown in a packed array: total, content, thinking, tools. */
const FIELDS = 4

/** The breakdowns of `ms`, packed four numbers per message (a counter's answer: one transferable buffer). */
export const packedBreakdowns = (estimate: Estimator, ms: Messages): Float64Array<ArrayBuffer> => {
  const out = new Float64Array(ms.length * FIELDS)
  // written field by field: no array per message on the counter's hot path
  ms.forEach((m, i) => {
    const b = tokenBreakdown(estimate, m)
    const at = i * FIELDS
    out[at] = b.total
    out[at + 1] = b.content
    out[at + 2] = b.thinking
    out[at + 3] = b.tools
  })
  return out
}

/** A counter per encoding: `count` counts a message once (by identity, held weakly); `remember` keeps a count a counting worker made of a copy. */
export type Counter = { readonly count: (m: Message) => TokenBreakdown; readonly remember: (m: Message, b: TokenBreakdown) => void }

/** A counter with a cache of its own. */
export const createCounter = (estimate: Estimator): Counter => {
  const cache = new WeakMap<Message, TokenBreakdown>()
  return {
    count: (m) => {
      let b = cache.get(m)
      if (b === undefined) cache.set(m, b = tokenBreakdown(estimate, m))
      return b
    },
    remember: (m, b) => void cache.set(m, b),
  }
}

/** How many slices a counting worker holds: the one it counts and the next, so that it never waits for the thread that deals them. */
export const COUNTER_DEPTH = 2

/**
 * How many slices wait for the counters before the thread that decodes them (a file) counts one itself: counting stops its decoding, which
 * feeds the counters. Two gave a pool of two 0.54–0.65 of one worker's time on Node, against 0.75–0.82 with this thread counting whenever free.
 */
export const BACKLOG = 2

/** How many chunks of a history are sent ahead at once: one per place a lane holds one, and one more being sent. */
export const slicesInFlight = (workers: number): number => 1 + (workers - 1) * COUNTER_DEPTH + 1

/** A chunk, decoded and counted. */
export type Counted = { readonly messages: Messages; readonly tokens: number }

/** A slice to decode and count: the input as it arrived, and where it starts in its batch (for the paths of issues). */
export type CountJob = {
  readonly input: unknown
  readonly offset: number
  readonly encoding: EncodingName
  readonly counter: Counter
  readonly signal: AbortSignal
  /** Whether this thread is still decoding the slices that follow (a file): while it is, it counts only past `BACKLOG`. */
  readonly dealing?: () => boolean
}

type Queued = CountJob & { readonly resolve: (c: Counted) => void; readonly reject: (e: unknown) => void }

/** A lane that counts: this thread (no `remote`), or a counting worker once it has answered its warm-up. */
type Lane = {
  readonly remote?: CountingCalls
  /** Slices given to the lane and not answered yet. */
  busy: number
  ready: boolean
  /** Rejects the lane's calls in flight: the counter was dropped. */
  readonly drops: Set<(e: unknown) => void>
  dead: boolean
}

/** Why a counter's answer is not used: it failed, was dropped, or answered nonsense. */
class CounterFailed extends Error {}

/** A counting pool: this thread alone until `add` connects counters; `count` decodes a chunk (bad input rejected by path) and counts it. */
export const createCountPool = () => {
  const here: Lane = { busy: 0, ready: true, drops: new Set(), dead: false }
  const counters: Lane[] = []
  const queue: Queued[] = []
  /** The order lanes take slices in, and how many each may hold: each counter its first, this thread one (see `countsHere`), each counter a second. */
  const rounds: ReadonlyArray<readonly [ReadonlyArray<Lane>, number]> = [[counters, 1], [[here], 1], [counters, COUNTER_DEPTH]]

  const countOn = async (lane: Lane, job: CountJob): Promise<Counted> => {
    const { messages, counts } = await admit(job.input, { signal: job.signal, offset: job.offset, ...(lane.remote ? {} : { count: job.counter.count }) })
    if (lane.remote === undefined) return { messages, tokens: counts.total }
    let drop: (e: unknown) => void = noop
    const packed = await new Promise<Float64Array>((resolve, reject) => {
      lane.drops.add(drop = reject)
      lane.remote?.count(job.encoding, messages).then(resolve, (e: unknown) => reject(new CounterFailed(String(e))))
    }).finally(() => lane.drops.delete(drop))
    if (!(packed instanceof Float64Array) || packed.length !== messages.length * FIELDS) throw new CounterFailed('a counter answered counts of another length')
    let tokens = 0
    messages.forEach((m, i) => {
      // read by index: no view or iterator per message
      const at = i * FIELDS
      const b = { total: packed[at] ?? 0, content: packed[at + 1] ?? 0, thinking: packed[at + 2] ?? 0, tools: packed[at + 3] ?? 0 }
      job.counter.remember(m, b)
      tokens += b.total
    })
    return { messages, tokens }
  }

  /** Whether this thread takes the next slice: not while it is making more and the counters keep up (see `CountJob.dealing`). */
  const countsHere = (): boolean => queue[0]?.dealing?.() !== true || queue.length >= BACKLOG || !counters.some((c) => c.ready && !c.dead)

  /** The next slice whose call still runs (an aborted one rejects). */
  const next = (): Queued | undefined => {
    let job = queue.shift()
    for (; job?.signal.aborted === true; job = queue.shift()) job.reject(abortReason(job.signal))
    return job
  }

  const pump = (): void => {
    for (const [lanes, depth] of rounds) {
      for (const lane of lanes) {
        if (lane.busy >= depth || !lane.ready || lane.dead || (lane === here && !countsHere())) continue
        const job = next()
        if (job === undefined) return
        lane.busy++
        countOn(lane, job).then(job.resolve, (e: unknown) => {
          if (!(e instanceof CounterFailed)) return job.reject(e)
          lane.dead = true
          queue.unshift(job)
        }).finally(() => {
          lane.busy--
          pump()
        })
      }
    }
  }

  return {
    /** Decodes and counts a chunk on the first free lane. */
    count: (job: CountJob): Promise<Counted> =>
      new Promise<Counted>((resolve, reject) => {
        queue.push({ ...job, resolve, reject })
        pump()
      }),

    /** Connects counting workers by their ports; each takes slices once it has answered a warm-up count in `encoding`. */
    add: (ports: ReadonlyArray<MessagePort>, encoding: EncodingName): void => {
      for (const port of ports) {
        const lane: Lane = { remote: wrap<EngineService>(port).counting, busy: 0, ready: false, drops: new Set(), dead: false }
        counters.push(lane)
        lane.remote?.count(encoding, []).then(() => {
          lane.ready = true
          pump()
        }, () => (lane.dead = true))
      }
    },

    /** Stops using counter `index` (in the order `add` was given them): its slice in flight is counted again. */
    drop: (index: number): void => {
      const lane = counters[index]
      if (lane === undefined || lane.dead) return
      lane.dead = true
      for (const drop of [...lane.drops]) drop(new CounterFailed('the counter was dropped'))
    },
  }
}
