/**
 * The walk of a prune: count every message, find where the protected tail starts, then go
 * forward over the older messages and rewrite each one's large tool results and arguments. The
 * pure `pruneToolResultsWithReport` walks the whole history, usually in the one pass of
 * {@link pruneFresh}, which builds nothing but the result; `createPruner` walks only what its
 * previous call did not cover, keeping records of what it did. Either applies `minimumSavings`
 * (the records' way is {@link finish}).
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import type { Part, ToolCallPart, ToolResultPart } from '../message/part-model.ts'
import { MESSAGE_OVERHEAD } from '../tokens/message-tokens.ts'
import type { PruneResult, Settings } from './prune-options.ts'
import { isPlaceholder, placeholderFor, prunedIds, tooShortForDefault } from './prune-placeholder.ts'
import { cutArguments } from './prune-arguments.ts'

// --- model ---

/**
 * A message the walk rewrote: its index, the new message, the original's tokens and the new
 * message's, how many results and arguments it rewrote, and whether that depended on an earlier
 * message (a result whose tool name was looked up in its call, for `protectedTools`). Built and
 * counted during one walk, read-only afterwards.
 */
export type Change = {
  readonly index: number
  readonly message: Message
  /** The original message's tokens (by `count`). */
  readonly was: number
  tokens: number
  readonly results: number
  readonly args: number
  readonly lookedUp: boolean
}

/** A message the walk left as it is, and whether that depended on an earlier message. */
export type Kept = { readonly kept: true; readonly lookedUp: boolean }

/** What the walk did with one message. */
export type Outcome = Change | Kept

/**
 * The shape of a change, cloned (`{ ...CHANGE, … }`) rather than written as an object literal. V8
 * watches where each literal is allocated; once it sees a prune's changes outlive a young
 * collection (the walk is still running), it allocates that literal's objects straight in the old
 * generation, where each dead one keeps its new message and placeholder strings alive through
 * every young collection until a full one: measured, the garbage collector then took four times
 * the prune's own work. A clone is never allocated there.
 */
const CHANGE: Change = { index: 0, message: { id: '', role: 'user', kind: 'normal', parts: [] }, was: 0, tokens: 0, results: 0, args: 0, lookedUp: false }
const KEPT: Kept = { kept: true, lookedUp: false }
const KEPT_AFTER_LOOKUP: Kept = { kept: true, lookedUp: true }

/** Whether the walk left the message as it is. */
export const isKept = (o: Outcome): o is Kept => 'kept' in o

/** What a walk found, as {@link finish} reads it: the history, its total, and the rewritten messages in index order. */
export type Rewritten = {
  readonly input: Messages
  readonly total: number
  readonly changes: ReadonlyArray<Change>
}

/**
 * What an incremental pruner's walk found besides: every message's count, the first protected
 * index, and the indices whose outcome depended on an earlier message (which it must not remember
 * by message alone).
 */
export type Walk = Rewritten & {
  readonly counts: ReadonlyArray<number>
  readonly boundary: number
  readonly lookedUp: ReadonlyArray<number>
}

/** Tool call id → tool name, of the calls met so far (kept only when some tools are protected). */
export type CallNames = Map<string, string>

// --- counting ---

/** Every message's count, those of `from` on appended to `counts` (which holds the ones before). */
export const countFrom = (s: Settings, ms: Messages, counts: number[], from: number): number[] => {
  for (let i = from; i < ms.length; i++) counts.push(s.count(ms[i] as Message))
  return counts
}

/**
 * The first protected index (the newest messages worth `protect` tokens are protected; the
 * message that reaches it is protected too) and the history's total.
 */
export const protectedFrom = (counts: ReadonlyArray<number>, protect: number): { readonly boundary: number; readonly total: number } => {
  let total = 0
  let boundary = counts.length
  for (let i = counts.length - 1; i >= 0; i--) {
    if (total < protect) boundary = i
    total += counts[i] as number
  }
  return { boundary, total }
}

/** Records the tool calls of a message in `names`. */
export const noteCalls = (names: CallNames | undefined, m: Message): void => {
  if (names !== undefined) for (const p of m.parts) if (p.type === 'tool_call') names.set(p.id, p.name)
}

// --- one message ---

/**
 * What rewriting one message found besides the new message: its tokens after, how many results
 * and arguments were rewritten, and whether a tool name was looked up in an earlier call. Written
 * by {@link rewrite}, read by its caller at once: one per walk, not one per message.
 */
export type Tally = { after: number; results: number; args: number; lookedUp: boolean }

/** A tally to pass to {@link rewrite}. */
export const tally = (): Tally => ({ after: 0, results: 0, args: 0, lookedUp: false })

/**
 * Rewrites a message outside the protected tail, worth `tokens` by `count`: each tool result that
 * a placeholder shortens, each tool call whose arguments are over `argThreshold`, unless its tool
 * is protected. Records the message's calls in `names` as it goes. Returns the new message, or
 * `undefined` when it stays as it is; what else it found is in `t`.
 */
export const rewrite = (s: Settings, m: Message, tokens: number, names: CallNames | undefined, t: Tally): Message | undefined => {
  const ps = m.parts
  let parts: Part[] | undefined
  let ids: string[] | undefined
  let results = 0
  let args = 0
  let lookedUp = false
  let delta = 0 // the change in tokens, when derived (see Settings.derive)
  for (let j = 0; j < ps.length; j++) {
    const p = ps[j] as Part
    if (p.type === 'tool_result') {
      const r = p as ToolResultPart
      if ((s.placeholder === undefined && tooShortForDefault(r.content)) || isPlaceholder(r.content)) continue
      let name = r.name
      if (name === undefined && names !== undefined) {
        lookedUp = true
        name = names.get(r.toolCallId)
      }
      name ??= ''
      if (s.protectedTools.has(name)) continue
      if (s.placeholder !== undefined && prunedIds(m)?.includes(r.toolCallId) === true) continue
      // a lone result's estimate is its message's count without the overhead (when that is the definition)
      const was = s.derive && ps.length === 1 ? tokens - MESSAGE_OVERHEAD : s.estimate(r.content)
      const text = placeholderFor(s.placeholder, name, was, r.content)
      if (text === undefined) continue
      if (s.derive) delta += s.estimate(text) - was
      ;(parts ??= ps.slice())[j] = { ...r, content: text }
      if (s.placeholder !== undefined) (ids ??= []).push(r.toolCallId)
      results++
    } else if (p.type === 'tool_call') {
      const c = p as ToolCallPart
      names?.set(c.id, c.name)
      // No byte-level tokenizer makes more tokens than UTF-8 bytes (at most 3 per UTF-16 unit), so
      // short arguments are below the threshold without being estimated: the common case costs nothing.
      if (c.arguments.length * 3 <= s.argThreshold || s.protectedTools.has(c.name)) continue
      const was = s.estimate(c.arguments)
      if (was <= s.argThreshold) continue
      const q = cutArguments(c, s.estimate)
      if (q === c) continue
      if (s.derive) delta += s.estimate(q.arguments) - was
      ;(parts ??= ps.slice())[j] = q
      args++
    }
  }
  t.lookedUp = lookedUp
  if (parts === undefined) return undefined
  const metadata = ids === undefined ? m.metadata : { ...m.metadata, pruned: [...(prunedIds(m) ?? []), ...ids] }
  // derived, or NaN until `countRewritten` counts it with the caller's count
  const after = s.derive ? tokens + delta : Number.NaN
  let message: Message = metadata === undefined ? { ...m, parts } : { ...m, parts, metadata }
  // a message that carried `tokens` gets a fresh `{ total }` (a stored count may not add up over
  // parts); with the caller's count, once counted (without the stale one)
  if (m.tokens !== undefined) {
    const { tokens: _stale, ...rest } = message
    message = s.derive ? { ...rest, tokens: { total: after } } : rest
  }
  t.after = after
  t.results = results
  t.args = args
  return message
}

/** What the walk does with message `index` (see {@link rewrite}), as a record: a change, or kept. */
export const pruneMessage = (s: Settings, index: number, m: Message, tokens: number, names: CallNames | undefined, t: Tally): Outcome => {
  const message = rewrite(s, m, tokens, names, t)
  if (message === undefined) return t.lookedUp ? KEPT_AFTER_LOOKUP : KEPT
  return { ...CHANGE, index, message, was: tokens, tokens: t.after, results: t.results, args: t.args, lookedUp: t.lookedUp }
}

/**
 * Rewrites the messages `from` to `to` (exclusive) into `changes` and `lookedUp`; `recall` gives
 * the outcome remembered for a message, if any (an incremental pruner's memory).
 */
export const pruneRange = (
  s: Settings,
  ms: Messages,
  counts: ReadonlyArray<number>,
  range: { readonly from: number; readonly to: number },
  names: CallNames | undefined,
  into: { readonly changes: Change[]; readonly lookedUp: number[] },
  recall?: (m: Message) => Outcome | undefined,
): void => {
  const t = tally()
  for (let i = range.from; i < range.to; i++) {
    const m = ms[i] as Message
    let o = recall?.(m)
    if (o === undefined) o = pruneMessage(s, i, m, counts[i] as number, names, t)
    else {
      noteCalls(names, m)
      if (!isKept(o) && o.index !== i) o = { ...o, index: i } // remembered from another place
    }
    if (o.lookedUp) into.lookedUp.push(i)
    if (!isKept(o)) into.changes.push(o)
  }
}

/**
 * Counts the rewritten messages from `changes[from]` on with the caller's `count` (when counts are
 * not derived), in one go after the walk rather than between its reads: a counter that caches by
 * message takes them all at once. A message that carried `tokens` gets the fresh `{ total }`.
 */
export const countRewritten = (s: Settings, ms: Messages, changes: Change[], from: number): void => {
  if (s.derive) return
  for (let j = from; j < changes.length; j++) {
    const c = changes[j] as Change
    if (!Number.isNaN(c.tokens)) continue // counted already (remembered from an earlier call)
    c.tokens = s.count(c.message)
    if ((ms[c.index] as Message).tokens !== undefined) changes[j] = { ...c, message: { ...c.message, tokens: { total: c.tokens } } }
  }
}

/**
 * The walk of a whole history, fresh. Without protected tools it is one pass from the newest
 * message: each message is counted, and once the protected tail is full, rewritten as it is met,
 * so every message is read once; only the rewritten messages are recorded (each with its count),
 * not every message's count. With protected tools a result's tool name may have to be looked up
 * in a call met earlier in the history, so the rewriting goes forward, after the counting.
 */
export const walkAll = (s: Settings, ms: Messages): Rewritten => {
  if (s.protectedTools.size > 0) {
    const counts = countFrom(s, ms, [], 0)
    const { boundary, total } = protectedFrom(counts, s.protect)
    const into = { changes: [] as Change[], lookedUp: [] as number[] }
    pruneRange(s, ms, counts, { from: 0, to: boundary }, new Map(), into)
    countRewritten(s, ms, into.changes, 0)
    return { input: ms, total, changes: into.changes }
  }
  let changes: Change[] = []
  let total = 0
  let boundary = ms.length
  const t = tally()
  for (let i = ms.length - 1; i >= 0; i--) {
    const m = ms[i] as Message
    const c = s.count(m)
    if (total < s.protect) boundary = i
    else {
      const o = pruneMessage(s, i, m, c, undefined, t)
      if (!isKept(o)) changes.push(o)
    }
    total += c
  }
  changes.reverse()
  // a negative count can move the tail's start back over messages already rewritten
  if (changes.length > 0 && (changes[changes.length - 1] as Change).index >= boundary) changes = changes.filter((c) => c.index < boundary)
  countRewritten(s, ms, changes, 0)
  return { input: ms, total, changes }
}

/**
 * The pure prune of a whole history when no tool is protected: one pass from the newest message,
 * each message counted and, once the protected tail is full, rewritten as it is met and put
 * straight into the result. Nothing else is built: no counts, no records of changes, only each
 * rewritten message's savings (summed from the oldest, as {@link finish} sums them). With the
 * caller's `count`, the rewritten messages are counted after the pass, oldest first (as
 * {@link countRewritten} counts them). `undefined` with protected tools, or when a negative count
 * moved the tail's start back over a message already rewritten: then {@link walkAll} and
 * {@link finish} answer, the same way.
 */
export const pruneFresh = (s: Settings, ms: Messages): PruneResult | undefined => {
  if (s.protectedTools.size > 0) return undefined
  let out: Message[] | undefined
  /** Each rewritten message's savings, newest first (with the caller's count, its count before until it is counted after). */
  const saved: number[] = []
  /** The rewritten messages' indices, newest first (kept only with the caller's count). */
  const at: number[] = []
  const t = tally()
  let total = 0
  let results = 0
  let args = 0
  for (let i = ms.length - 1; i >= 0; i--) {
    const m = ms[i] as Message
    const c = s.count(m)
    if (total < s.protect) {
      if (out !== undefined) return undefined
    } else {
      const rewritten = rewrite(s, m, c, undefined, t)
      if (rewritten !== undefined) {
        ;(out ??= ms.slice())[i] = rewritten
        if (s.derive) saved.push(c - t.after)
        else {
          saved.push(c)
          at.push(i)
        }
        results += t.results
        args += t.args
      }
    }
    total += c
  }
  if (out !== undefined)
    for (let k = at.length - 1; k >= 0; k--) {
      const i = at[k] as number
      const rewritten = out[i] as Message
      const after = s.count(rewritten)
      saved[k] = (saved[k] as number) - after
      // a message that carried `tokens` gets the fresh `{ total }`
      if ((ms[i] as Message).tokens !== undefined) out[i] = { ...rewritten, tokens: { total: after } }
    }
  let savings = 0
  for (let k = saved.length - 1; k >= 0; k--) savings += saved[k] as number
  if (out === undefined || savings <= 0 || savings < s.minimumSavings) return { messages: ms, report: { prunedResults: 0, prunedArgs: 0, tokensBefore: total, tokensAfter: total } }
  return { messages: out, report: { prunedResults: results, prunedArgs: args, tokensBefore: total, tokensAfter: total - savings } }
}

// --- the result ---

/**
 * The walk's result: the rewritten history and its report, unless the rewriting frees nothing or
 * less than `minimumSavings` tokens (then the input itself, with a report of zeros pruned).
 */
export const finish = (s: Settings, w: Rewritten): PruneResult => {
  let savings = 0
  let prunedResults = 0
  let prunedArgs = 0
  for (const c of w.changes) {
    savings += c.was - c.tokens
    prunedResults += c.results
    prunedArgs += c.args
  }
  const before = w.total
  if (w.changes.length === 0 || savings <= 0 || savings < s.minimumSavings) {
    return { messages: w.input, report: { prunedResults: 0, prunedArgs: 0, tokensBefore: before, tokensAfter: before } }
  }
  const out = w.input.slice()
  for (const c of w.changes) out[c.index] = c.message
  return { messages: out, report: { prunedResults, prunedArgs, tokensBefore: before, tokensAfter: before - savings } }
}
