/**
 * The cache-aware pruner, `createPruner`'s default policy (`policy: 'cached'`). A provider's prompt
 * cache reads the prefix a prompt shares with the previous one at a tenth of the price and writes
 * the rest at up to 1.25 times it, so an edit before the end of what was sent costs everything
 * after it again. This pruner's state is the history it answered last: a next call takes that answer
 * as it is and appends the new messages, and it edits only in batches, each worth the prefix it
 * breaks:
 *
 * - a batch is made when the answer passes the caller's `limit` (then it must, whatever it costs),
 *   or passes `triggerTokens` (when set) and pays, or, without either, whenever it pays;
 * - a batch prunes every tool result outside the protected tail at once (the fresh prune of the
 *   answer, `pruneToolResultsWithReport`), so the edge of what is pruned moves in one jump and the
 *   prompts of the steps after it share their prefix;
 * - it pays when the tokens it frees, read at 0.1 on each step until the history has grown back by
 *   as much, outweigh writing everything after its first edit again at 1.25 instead of reading it
 *   at 0.1: `0.1 × saved × (saved / growth) ≥ 1.15 × rewritten`, the growth being the tokens a call
 *   has added on average.
 *
 * A message pruned once comes back as the same rewritten object in every later answer, even when
 * the history given is cut or rebuilt before its end (a compaction): the rewriting is remembered by
 * the original message.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import type { Part } from '../message/part-model.ts'
import { type PruneBudget, type PruneChange, type Pruner, type PrunerResult, type Settings } from './prune-options.ts'
import { pruneAll } from './_prune-walk.ts'
import { digester, type PrunerSeed, type PrunerState } from './prune-state.ts'

/** The prices a batch is weighed by, as a share of the base input price: Anthropic's 5-minute cache. */
const READ = 0.1
const WRITE = 1.25

/** A change with what it rewrote (tool results and call arguments), worked out once. */
type Rewrite = PruneChange & { readonly results: number; readonly args: number }

/** How many tool results and call arguments `to` rewrote of `from`. */
const rewritten = (from: Message, to: Message): { readonly results: number; readonly args: number } => {
  let results = 0
  let args = 0
  to.parts.forEach((p: Part, j) => {
    const q = from.parts[j]
    if (q === p || q === undefined) return
    if (p.type === 'tool_result') results++
    else if (p.type === 'tool_call') args++
  })
  return { results, args }
}

/**
 * Whether a batch that frees `saved` tokens and writes `after` tokens again pays, the history
 * growing by `growth` tokens a call: what the freed tokens would cost read on each call until it
 * has grown back by as much, against writing the rest again rather than reading it.
 */
export const batchPays = (saved: number, after: number, growth: number): boolean => READ * saved * (saved / Math.max(1, growth)) >= (WRITE - READ) * after

/** The tokens a batch that writes `after` tokens again must free to pay (see {@link batchPays}). */
const savingsToPay = (after: number, growth: number): number => Math.ceil(Math.sqrt(((WRITE - READ) * after * Math.max(1, growth)) / READ))

/** What a pruner reads its messages with: the settings, the cached count, the digests of its state. */
type Context = {
  readonly s: Settings
  readonly count: (m: Message) => number
  readonly keyOf: (m: Message) => string
  readonly fingerprint: (ms: Messages) => string
  readonly onDiscard: ((why: string) => void) | undefined
}

/** What a cache-aware pruner remembers between calls: its last answer, and the batch it made last. */
type Memory = {
  /** The rewritten form of each message a batch rewrote, by the original. */
  memo: WeakMap<Message, Message>
  /** After a resume whose history was rebuilt before its end: the next call is not an append. */
  rebuilt: boolean
  lastInput: Messages | undefined
  lastOutput: Messages
  lastRecords: ReadonlyArray<Rewrite>
  /** The last answer's tokens, what its records freed, and the tokens of its tool results and arguments rewritten. */
  lastTotal: number
  lastFreed: number
  lastResults: number
  lastArgs: number
  /**
   * The answer's tokens after the last batch, and its protected tail's: a batch can free only
   * messages between that tail's start and the current one's.
   */
  afterBatch: number
  tailBatch: number
  /** After a batch that did not pay: the answer's size at which it could (the walk is not made again before). */
  retryAt: number
  /** The tokens a call has added on average, over `calls` calls that added some. */
  growth: number
  calls: number
}

/** The previous answer, with what the input adds or changes after the prefix both share. */
type Extended = { readonly out: Messages; readonly total: number; readonly same: number; readonly first: boolean; readonly appended: boolean }

/** The rewriting a message was given by a batch, or the message itself. */
const remap = (mem: Memory, m: Message): Message => mem.memo.get(m) ?? m

/** The tokens of the protected tail of `out` (worth `protect`; the message that reaches it is in it). */
const tailOf = (cx: Context, out: Messages): number => {
  let n = 0
  for (let i = out.length - 1; i >= 0 && n < cx.s.protect; i--) n += cx.count(out[i] as Message)
  return n
}

/** Records of the messages of `out` from `from` on that are not the input's own, appended to `into`. */
const recordFrom = (ms: Messages, out: Messages, from: number, into: Rewrite[], previous?: ReadonlyMap<number, Rewrite>): Rewrite[] => {
  for (let i = from; i < out.length; i++) {
    const m = out[i] as Message
    const original = ms[i] as Message
    if (m === original) continue
    const known = previous?.get(i)
    into.push(known !== undefined && known.message === m ? known : { index: i, message: m, ...rewritten(original, m) })
  }
  return into
}

/** The pruner's state as `r` left it, for the history `ms` (the first call after a resume). */
const resume = (cx: Context, mem: Memory, r: PrunerState, ms: Messages): void => {
  const wanted = new Set(r.rewritten)
  const at: number[] = []
  ms.forEach((m, i) => (wanted.has(cx.keyOf(m)) ? at.push(i) : undefined))
  // the rewriting a batch made, made again (a message's rewriting depends on it and the settings only)
  const all = at.length === 0 ? ms : pruneAll({ ...cx.s, protect: 0, minimumSavings: 0 }, ms).messages
  for (const i of at) if (all[i] !== ms[i]) mem.memo.set(ms[i] as Message, all[i] as Message)
  const appended = r.length <= ms.length && cx.fingerprint(ms.slice(0, r.length)) === r.input
  if (appended) {
    const input = ms.slice(0, r.length)
    const output = input.map((m) => remap(mem, m))
    if (cx.fingerprint(output) !== r.output) {
      mem.memo = new WeakMap()
      cx.onDiscard?.(`the pruning state kept does not give back the answer it was made with (${r.rewritten.length} rewritten messages): pruning afresh`)
      return
    }
    mem.lastInput = input
    mem.lastOutput = output
    mem.lastRecords = recordFrom(input, output, 0, [])
    for (const c of mem.lastRecords) {
      mem.lastFreed += cx.count(input[c.index] as Message) - cx.count(c.message)
      mem.lastResults += c.results
      mem.lastArgs += c.args
    }
  } else {
    mem.lastInput = []
    mem.rebuilt = true
  }
  mem.lastTotal = r.total
  mem.afterBatch = r.afterBatch
  mem.tailBatch = r.tailBatch
  mem.retryAt = r.retryAt
  mem.growth = r.growth
  mem.calls = r.calls
}

/** The state to resume a pruner from, as its memory holds it (undefined before its first answer). */
const stateOf = (cx: Context, mem: Memory): PrunerState | undefined => {
  const lastInput = mem.lastInput
  return lastInput === undefined ? undefined : {
    version: 1,
    length: lastInput.length,
    input: cx.fingerprint(lastInput),
    output: cx.fingerprint(mem.lastOutput),
    rewritten: mem.lastRecords.map((c) => cx.keyOf(lastInput[c.index] as Message)),
    total: mem.lastTotal,
    afterBatch: mem.afterBatch,
    tailBatch: mem.tailBatch,
    retryAt: mem.retryAt,
    growth: mem.growth,
    calls: mem.calls,
  }
}

/**
 * The previous answer extended to `ms`: taken as it is with the new messages appended when `ms`
 * starts with the previous input, else rebuilt after the prefix both share (and the batch's bounds
 * forgotten). The growth a call adds is averaged in.
 */
const extend = (cx: Context, mem: Memory, ms: Messages): Extended => {
  const lastInput = mem.lastInput
  let same = 0
  if (lastInput !== undefined) {
    const limit = Math.min(lastInput.length, ms.length)
    while (same < limit && lastInput[same] === ms[same]) same++
  }
  const first = lastInput === undefined
  const appended = lastInput !== undefined && !mem.rebuilt && same === lastInput.length
  mem.rebuilt = false
  let out: Messages
  let total = 0
  if (appended) {
    out = same === ms.length ? mem.lastOutput : mem.lastOutput.concat(ms.slice(same).map((m) => remap(mem, m)))
    total = mem.lastTotal
    for (let i = same; i < out.length; i++) total += cx.count(out[i] as Message)
  } else {
    out = first ? ms : [...mem.lastOutput.slice(0, same), ...ms.slice(same).map((m) => remap(mem, m))]
    for (const m of out) total += cx.count(m)
    // rebuilt before its end: what a batch can free is bounded by the whole history
    mem.afterBatch = 0
    mem.tailBatch = 0
    mem.retryAt = 0
  }
  if (!first && total > mem.lastTotal) {
    mem.growth = (mem.growth * mem.calls + (total - mem.lastTotal)) / (mem.calls + 1)
    mem.calls++
  }
  return { out, total, same, first, appended }
}

/**
 * A batch over the extended answer when one must be made (the first call, or past the caller's
 * limit) or when it is weighed and pays: every tool result outside the protected tail pruned at
 * once, the rewritings remembered. Returns the answer, its tokens and whether a batch was made.
 */
const batchOver = (
  cx: Context,
  mem: Memory,
  ms: Messages,
  x: Extended,
  budget?: PruneBudget,
): { readonly out: Messages; readonly total: number; readonly batch: boolean } => {
  const s = cx.s
  let { out, total } = x
  const limit = budget?.limit
  const must = limit !== undefined && total > limit
  const trigger = Math.min(s.trigger ?? Number.POSITIVE_INFINITY, limit ?? Number.POSITIVE_INFINITY)
  // a batch frees at most the messages between the last batch's protected tail and the current
  // one, and writes at least the tail again: when even that would not pay, the walk is not made
  const most = total - tailOf(cx, out) - (mem.afterBatch - mem.tailBatch)
  const weighed = (total > trigger || (s.trigger === undefined && limit === undefined)) && total >= mem.retryAt && most >= s.minimumSavings &&
    batchPays(most, s.protect, mem.growth)
  let batch = false
  if (x.first || must || weighed) {
    const r = pruneAll(must ? { ...s, minimumSavings: 0 } : s, out)
    if (r.messages !== out) {
      let edge = 0
      while (edge < out.length && r.messages[edge] === out[edge]) edge++
      let after = 0
      for (let i = edge; i < r.messages.length; i++) after += cx.count(r.messages[i] as Message)
      const saved = r.report.tokensBefore - r.report.tokensAfter
      if (x.first || must || batchPays(saved, after, mem.growth)) {
        for (let i = edge; i < out.length; i++) if (r.messages[i] !== out[i]) mem.memo.set(ms[i] as Message, r.messages[i] as Message)
        out = r.messages
        total -= saved
        batch = true
      } else mem.retryAt = total + Math.max(1, savingsToPay(after, mem.growth) - saved)
    }
    if (batch || x.first) {
      mem.afterBatch = total
      mem.tailBatch = tailOf(cx, out)
      mem.retryAt = 0
    }
  }
  return { out, total, batch }
}

/**
 * The answer's records (the previous answer's own where the message is the same), how many lead
 * unchanged from the previous answer, and what they rewrote: taken over for those carried, added
 * up for the others.
 */
const recordsOf = (cx: Context, mem: Memory, ms: Messages, out: Messages, x: Extended, batch: boolean) => {
  const last = mem.lastRecords
  let records: Rewrite[]
  let carried: number
  if (x.appended && !batch) {
    records = recordFrom(ms, out, x.same, last.slice())
    carried = last.length
  } else {
    records = recordFrom(ms, out, 0, [], new Map(last.map((c) => [c.index, c])))
    carried = 0
    while (carried < records.length && carried < last.length && records[carried] === last[carried]) carried++
  }
  const all = carried === last.length
  let freed = all ? mem.lastFreed : 0
  let results = all ? mem.lastResults : 0
  let args = all ? mem.lastArgs : 0
  for (let k = all ? carried : 0; k < records.length; k++) {
    const c = records[k] as Rewrite
    freed += cx.count(ms[c.index] as Message) - cx.count(c.message)
    results += c.results
    args += c.args
  }
  return { records, carried, freed, results, args }
}

/**
 * The cache-aware pruner with resolved settings (see the module's description), resumed from
 * `seed.resume` at its first call when given (see `prune-state.ts`); `state()` gives what to
 * resume it from.
 */
export const cachedPruner = (s: Settings, seed: PrunerSeed = {}): Pruner & { readonly state: () => PrunerState | undefined } => {
  const { keyOf, fingerprint } = digester()
  const counts = new WeakMap<Message, number>()
  const count = (m: Message): number => {
    let n = counts.get(m)
    if (n === undefined) counts.set(m, n = s.count(m))
    return n
  }
  const cx: Context = { s, count, keyOf, fingerprint, onDiscard: seed.onDiscard }
  const mem: Memory = {
    memo: new WeakMap(),
    rebuilt: false,
    lastInput: undefined,
    lastOutput: [],
    lastRecords: [],
    lastTotal: 0,
    lastFreed: 0,
    lastResults: 0,
    lastArgs: 0,
    afterBatch: 0,
    tailBatch: 0,
    retryAt: 0,
    growth: 0,
    calls: 0,
  }
  let pending = seed.resume

  const prune = (ms: Messages, budget?: PruneBudget): PrunerResult => {
    if (pending !== undefined) {
      resume(cx, mem, pending, ms)
      pending = undefined
    }
    const x = extend(cx, mem, ms)
    const { out, total, batch } = batchOver(cx, mem, ms, x, budget)
    const { records, carried, freed, results, args } = recordsOf(cx, mem, ms, out, x, batch)
    mem.lastInput = ms
    mem.lastOutput = out
    mem.lastRecords = records
    mem.lastTotal = total
    mem.lastFreed = freed
    mem.lastResults = results
    mem.lastArgs = args
    const report = { prunedResults: results, prunedArgs: args, tokensBefore: total + freed, tokensAfter: total }
    return records.length === 0 ? { messages: ms, report, changes: [], carried: 0 } : { messages: out, report, changes: records, carried }
  }
  return { prune, state: () => (mem.rebuilt ? pending : (stateOf(cx, mem) ?? pending)) }
}
