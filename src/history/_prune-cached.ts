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

/**
 * The cache-aware pruner with resolved settings (see the module's description), resumed from
 * `seed.resume` at its first call when given (see `prune-state.ts`); `state()` gives what to
 * resume it from.
 */
export const cachedPruner = (s: Settings, seed: PrunerSeed = {}): Pruner & { readonly state: () => PrunerState | undefined } => {
  /** The rewritten form of each message a batch rewrote, by the original. */
  let memo = new WeakMap<Message, Message>()
  const { keyOf, fingerprint } = digester()
  let pending = seed.resume
  /** After a resume whose history was rebuilt before its end: the next call is not an append. */
  let rebuilt = false
  const counts = new WeakMap<Message, number>()
  const count = (m: Message): number => {
    let n = counts.get(m)
    if (n === undefined) counts.set(m, (n = s.count(m)))
    return n
  }
  const remap = (m: Message): Message => memo.get(m) ?? m
  let lastInput: Messages | undefined
  let lastOutput: Messages = []
  let lastRecords: ReadonlyArray<Rewrite> = []
  /** The last answer's tokens, what its records freed, and the tokens of its tool results and arguments rewritten. */
  let lastTotal = 0
  let lastFreed = 0
  let lastResults = 0
  let lastArgs = 0
  /**
   * The answer's tokens after the last batch, and its protected tail's: a batch can free only
   * messages between that tail's start and the current one's.
   */
  let afterBatch = 0
  let tailBatch = 0
  /** After a batch that did not pay: the answer's size at which it could (the walk is not made again before). */
  let retryAt = 0
  /** The tokens of the protected tail of `out` (worth `protect`; the message that reaches it is in it). */
  const tailOf = (out: Messages): number => {
    let n = 0
    for (let i = out.length - 1; i >= 0 && n < s.protect; i--) n += count(out[i] as Message)
    return n
  }
  let growth = 0
  let calls = 0

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
  const take = (r: PrunerState, ms: Messages): void => {
    const wanted = new Set(r.rewritten)
    const at: number[] = []
    ms.forEach((m, i) => (wanted.has(keyOf(m)) ? at.push(i) : undefined))
    // the rewriting a batch made, made again (a message's rewriting depends on it and the settings only)
    const all = at.length === 0 ? ms : pruneAll({ ...s, protect: 0, minimumSavings: 0 }, ms).messages
    for (const i of at) if (all[i] !== ms[i]) memo.set(ms[i] as Message, all[i] as Message)
    const appended = r.length <= ms.length && fingerprint(ms.slice(0, r.length)) === r.input
    if (appended) {
      const input = ms.slice(0, r.length)
      const output = input.map(remap)
      if (fingerprint(output) !== r.output) {
        memo = new WeakMap()
        seed.onDiscard?.(`the pruning state kept does not give back the answer it was made with (${r.rewritten.length} rewritten messages): pruning afresh`)
        return
      }
      lastInput = input
      lastOutput = output
      lastRecords = recordFrom(input, output, 0, [])
      for (const c of lastRecords) {
        lastFreed += count(input[c.index] as Message) - count(c.message)
        lastResults += c.results
        lastArgs += c.args
      }
    } else {
      lastInput = []
      rebuilt = true
    }
    lastTotal = r.total
    afterBatch = r.afterBatch
    tailBatch = r.tailBatch
    retryAt = r.retryAt
    growth = r.growth
    calls = r.calls
  }

  const state = (): PrunerState | undefined =>
    lastInput === undefined || rebuilt
      ? pending
      : {
          version: 1,
          length: lastInput.length,
          input: fingerprint(lastInput),
          output: fingerprint(lastOutput),
          rewritten: lastRecords.map((c) => keyOf(lastInput?.[c.index] as Message)),
          total: lastTotal,
          afterBatch,
          tailBatch,
          retryAt,
          growth,
          calls,
        }

  const prune = (ms: Messages, budget?: PruneBudget): PrunerResult => {
    if (pending !== undefined) {
      take(pending, ms)
      pending = undefined
    }
    // the previous answer, with what the input adds or changes after the prefix both share
    let same = 0
    if (lastInput !== undefined) {
      const limit = Math.min(lastInput.length, ms.length)
      while (same < limit && lastInput[same] === ms[same]) same++
    }
    const first = lastInput === undefined
    const appended = !first && !rebuilt && same === (lastInput as Messages).length
    rebuilt = false
    let out: Messages
    let total = 0
    if (appended) {
      out = same === ms.length ? lastOutput : lastOutput.concat(ms.slice(same).map(remap))
      total = lastTotal
      for (let i = same; i < out.length; i++) total += count(out[i] as Message)
    } else {
      out = first ? ms : [...lastOutput.slice(0, same), ...ms.slice(same).map(remap)]
      for (const m of out) total += count(m)
      // rebuilt before its end: what a batch can free is bounded by the whole history
      afterBatch = 0
      tailBatch = 0
      retryAt = 0
    }
    if (!first && total > lastTotal) {
      growth = (growth * calls + (total - lastTotal)) / (calls + 1)
      calls++
    }
    const limit = budget?.limit
    const must = limit !== undefined && total > limit
    const trigger = Math.min(s.trigger ?? Number.POSITIVE_INFINITY, limit ?? Number.POSITIVE_INFINITY)
    // a batch frees at most the messages between the last batch's protected tail and the current
    // one, and writes at least the tail again: when even that would not pay, the walk is not made
    const most = total - tailOf(out) - (afterBatch - tailBatch)
    const weighed = (total > trigger || (s.trigger === undefined && limit === undefined)) && total >= retryAt && most >= s.minimumSavings && batchPays(most, s.protect, growth)
    let batch = false
    if (first || must || weighed) {
      const r = pruneAll(must ? { ...s, minimumSavings: 0 } : s, out)
      if (r.messages !== out) {
        let edge = 0
        while (edge < out.length && r.messages[edge] === out[edge]) edge++
        let after = 0
        for (let i = edge; i < r.messages.length; i++) after += count(r.messages[i] as Message)
        const saved = r.report.tokensBefore - r.report.tokensAfter
        if (first || must || batchPays(saved, after, growth)) {
          for (let i = edge; i < out.length; i++) if (r.messages[i] !== out[i]) memo.set(ms[i] as Message, r.messages[i] as Message)
          out = r.messages
          total -= saved
          batch = true
        } else retryAt = total + Math.max(1, savingsToPay(after, growth) - saved)
      }
      if (batch || first) {
        afterBatch = total
        tailBatch = tailOf(out)
        retryAt = 0
      }
    }
    // the answer's records: the previous answer's own where the message is the same
    let records: Rewrite[]
    let carried: number
    if (appended && !batch) {
      records = recordFrom(ms, out, same, lastRecords.slice())
      carried = lastRecords.length
    } else {
      records = recordFrom(ms, out, 0, [], new Map(lastRecords.map((c) => [c.index, c])))
      carried = 0
      while (carried < records.length && carried < lastRecords.length && records[carried] === lastRecords[carried]) carried++
    }
    // what the records rewrote: taken over for those carried, added up for the others
    let freed = carried === lastRecords.length ? lastFreed : 0
    let results = carried === lastRecords.length ? lastResults : 0
    let args = carried === lastRecords.length ? lastArgs : 0
    for (let k = carried === lastRecords.length ? carried : 0; k < records.length; k++) {
      const c = records[k] as Rewrite
      freed += count(ms[c.index] as Message) - count(c.message)
      results += c.results
      args += c.args
    }
    lastInput = ms
    lastOutput = out
    lastRecords = records
    lastTotal = total
    lastFreed = freed
    lastResults = results
    lastArgs = args
    const report = { prunedResults: results, prunedArgs: args, tokensBefore: total + freed, tokensAfter: total }
    return records.length === 0 ? { messages: ms, report, changes: [], carried: 0 } : { messages: out, report, changes: records, carried }
  }
  return { prune, state }
}
