/**
 * The walk of a prune, the one both pruners take: from the newest message back to the oldest of a
 * range, each message counted (or its count taken from those given), and each one outside the
 * protected tail rewritten as it is met: its large tool results and arguments. The walk goes
 * backwards so that a fresh prune counts and rewrites every message in one pass, reading it once.
 * What it found goes into a {@link WalkState}: straight into the result for the pure prune
 * (`pruneToolResultsWithReport`, {@link pruneAll}), or as records of the rewritten messages for
 * `createPruner`, which keeps them to take over in its next call (and applies `minimumSavings` to
 * them in `prune-incremental.ts`).
 *
 * @module
 */
import { toolResultText } from '../message/tool-result-content.ts'
import type { Message, Messages } from '../message/message.ts'
import type { Part, ToolCallPart, ToolResultPart } from '../message/part-model.ts'
import { MESSAGE_OVERHEAD, partTokens } from '../tokens/message-tokens.ts'
import type { PruneResult, Settings } from './prune-options.ts'
import { isPlaceholder, placeholderFor, prunedIds, tooShortForDefault } from './_prune-placeholder.ts'
import { type ContentPointer, withPointers } from './pointer.ts'
import { cutArguments } from './_prune-arguments.ts'
import { boundaryPart } from './_for-llm.ts'

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
 * every young collection until a full one, and the garbage collector then does several times the
 * prune's own work. A clone is never allocated there.
 */
const CHANGE: Change = { index: 0, message: { id: '', role: 'user', kind: 'normal', parts: [] }, was: 0, tokens: 0, results: 0, args: 0, lookedUp: false }

/** Whether the walk left the message as it is. */
export const isKept = (o: Outcome): o is Kept => 'kept' in o

/** The tool name of the call that result `j` of message `i` answers, the walk's {@link Lookups} made at the first call. */
const nameFor = (w: WalkState, i: number, j: number): string | undefined =>
  (w.lookups ??= lookupsOf(w.input, w.bounded ? startOf(w.input) : 0, w.lookupTo))[i]?.[j]

/**
 * The last message holding a compaction boundary among `ms[above, below)` (at index 1 or later),
 * else -1; `startOf` reads the whole history with it.
 */
export const lastBoundaryIn = (ms: Messages, above: number, below: number = ms.length): number => {
  for (let i = Math.min(below, ms.length) - 1; i >= Math.max(above, 1); i--) if (boundaryPart(ms[i] as Message) >= 0) return i
  return -1
}

/** Where the history a provider reads starts: its last compaction boundary's message (as `lastCompactionBoundary` finds it), else 0. */
export const startOf = (ms: Messages): number => Math.max(lastBoundaryIn(ms, 1), 0)

/**
 * For each message (by index) whose tool results name no tool, the name of the call each of them
 * answers, by part index: the latest call with its id met before it, in the history's order
 * (looked up only when some tools are protected).
 */
export type Lookups = ReadonlyArray<ReadonlyArray<string | undefined> | undefined>

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

/**
 * The tool names the results of messages `[from, to)` look up (see {@link Lookups}): one pass
 * forward over them, keeping the calls met so far, made by a walk (which goes backwards) when it
 * first needs a name.
 */
export const lookupsOf = (ms: Messages, from: number, to: number): Lookups => {
  const names = new Map<string, string>()
  const out = new Array<ReadonlyArray<string | undefined> | undefined>(to)
  for (let i = from; i < to; i++) {
    const ps = (ms[i] as Message).parts
    let found: Array<string | undefined> | undefined
    for (let j = 0; j < ps.length; j++) {
      const p = ps[j] as Part
      if (p.type === 'tool_call') names.set((p as ToolCallPart).id, (p as ToolCallPart).name)
      else if (p.type === 'tool_result' && (p as ToolResultPart).name === undefined)
        (found ??= new Array<string | undefined>(ps.length))[j] = names.get((p as ToolResultPart).toolCallId)
    }
    out[i] = found
  }
  return out
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
 * is protected (a result that names no tool has its name looked up: see {@link nameFor}). The
 * message is `w.input[i]`. Returns the new message, or `undefined` when it stays as it is; what
 * else it found is in `t`.
 */
export const rewrite = (s: Settings, m: Message, tokens: number, w: WalkState, i: number, t: Tally): Message | undefined => {
  const lookup = s.protectedTools.size > 0
  const ps = m.parts
  let parts: Part[] | undefined
  let ids: string[] | undefined
  let pointers: ContentPointer[] | undefined
  let results = 0
  let args = 0
  let lookedUp = false
  let delta = 0 // the change in tokens, when derived (see Settings.derive)
  for (let j = 0; j < ps.length; j++) {
    const p = ps[j] as Part
    if (p.type === 'tool_result') {
      const r = p as ToolResultPart
      // a result with an image or a file is pruned as one unit, its placeholder naming what it held
      const media = typeof r.content !== 'string' && r.content.some((b) => b.type !== 'text')
      const content = toolResultText(r)
      if ((s.placeholder === undefined && !media && tooShortForDefault(content)) || isPlaceholder(content)) continue
      let name = r.name
      if (name === undefined && lookup) {
        lookedUp = true
        name = nameFor(w, i, j)
      }
      name ??= ''
      if (s.protectedTools.has(name)) continue
      if (s.placeholder !== undefined && prunedIds(m)?.includes(r.toolCallId) === true) continue
      // a lone result's estimate is its message's count without the overhead (when that is the definition)
      const was = s.derive && ps.length === 1 ? tokens - MESSAGE_OVERHEAD : media ? partTokens(s.estimate, r) : s.estimate(content)
      const placed = placeholderFor(s.placeholder, name, was, content, media, m.id, r.toolCallId)
      if (placed === undefined) continue
      const text = placed.text
      if (s.derive) delta += s.estimate(text) - was
      ;(parts ??= ps.slice())[j] = { ...r, content: text }
      ;(pointers ??= []).push(placed.pointer)
      if (s.placeholder !== undefined) (ids ??= []).push(r.toolCallId)
      results++
    } else if (p.type === 'tool_call') {
      const c = p as ToolCallPart
      // No byte-level tokenizer makes more tokens than UTF-8 bytes (at most 3 per UTF-16 unit), so
      // short arguments are below the threshold without being estimated: the common case costs nothing.
      if (c.arguments.length * 3 <= s.argThreshold || s.protectedTools.has(c.name)) continue
      const was = s.estimate(c.arguments)
      if (was <= s.argThreshold) continue
      const q = cutArguments(c, s.estimate, m.id)
      if (q === undefined) continue
      ;(pointers ??= []).push(q.pointer)
      if (s.derive) delta += s.estimate(q.call.arguments) - was
      ;(parts ??= ps.slice())[j] = q.call
      args++
    }
  }
  t.lookedUp = lookedUp
  if (parts === undefined) return undefined
  const marked = ids === undefined ? m.metadata : { ...m.metadata, pruned: [...(prunedIds(m) ?? []), ...ids] }
  const metadata = pointers === undefined ? marked : withPointers(marked, pointers)
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

// --- the walk ---

/**
 * What a walk reads besides the history, and what it found. Made by {@link writing} or
 * {@link recording}; {@link walk} fills in the rest.
 */
export type WalkState = {
  readonly input: Messages
  /** Whether the walk stops at the newest provider compaction boundary, which starts the history a provider reads (what precedes it is never sent, so neither pruned nor counted). */
  readonly bounded: boolean
  /** Where the walk stopped: the oldest message it took. */
  start: number
  /** Every message's count, when known beforehand; else the walk counts each message. */
  readonly counts: ArrayLike<number> | undefined
  /** The first protected index, when known beforehand (the walk rewrites below it); else -1: the walk finds it as the protected tail fills. */
  readonly limit: number
  /** The names results look up (made when first needed, for the messages before `lookupTo`). */
  lookups: Lookups | undefined
  readonly lookupTo: number
  /** The outcome remembered for a message, if any (an incremental pruner's memory). */
  readonly recall: ((m: Message) => Outcome | undefined) | undefined
  /** The records of the rewritten messages, newest first, from those given on; `undefined` when the result is written directly into `out`. */
  readonly changes: Change[] | undefined
  /** The indices whose outcome depended on an earlier message, newest first, from those given on (with records only). */
  readonly lookedUp: number[]
  /** The history's total (from the newest message back to where the walk stopped). */
  total: number
  /** The first protected index. */
  boundary: number
  /** Written directly: the result (made at the first rewrite), how many results and arguments were rewritten, the newest index rewritten (-1: none). */
  out: Message[] | undefined
  results: number
  args: number
  newest: number
  /** Written directly: each rewritten message's savings, newest first (with the caller's count, its count before, until it is counted after). */
  readonly saved: number[]
  /** Written directly with the caller's count: the rewritten messages' indices, newest first. */
  readonly at: number[]
  readonly tally: Tally
}

const state = (
  input: Messages,
  bounded: boolean,
  counts: ArrayLike<number> | undefined,
  limit: number,
  recall: WalkState['recall'],
  changes: Change[] | undefined,
  lookedUp: number[],
  boundary: number,
): WalkState => ({
  input,
  bounded,
  start: 0,
  counts,
  limit,
  lookups: undefined,
  lookupTo: boundary,
  recall,
  changes,
  lookedUp,
  total: 0,
  boundary,
  out: undefined,
  results: 0,
  args: 0,
  newest: -1,
  saved: [],
  at: [],
  tally: tally(),
})

/** A walk over `ms`, down to its newest compaction boundary, that writes the pruned history straight into the result, keeping no record of what it did (the pure prune's). */
export const writing = (ms: Messages, limit: number): WalkState => state(ms, true, undefined, limit, undefined, undefined, [], limit < 0 ? ms.length : limit)

/** A walk over `ms` below the known first protected index `limit`, with known counts, that records what it did into `changes` and `lookedUp` (an incremental pruner's). */
export const recording = (
  ms: Messages,
  counts: ArrayLike<number>,
  limit: number,
  recall: WalkState['recall'],
  changes: Change[],
  lookedUp: number[],
): WalkState => state(ms, false, counts, limit, recall, changes, lookedUp, limit)

/**
 * The walk: messages `to - 1` down to `from`, each counted (or its count read from `w.counts`)
 * and summed into `w.total`; each one outside the protected tail (below `w.limit`, or when the
 * messages after it are worth `protect` tokens) is rewritten, or its remembered outcome taken,
 * and what that gave is put into `w`. A bounded walk stops at the first message (from the newest)
 * with a compaction boundary, having taken it. A negative count can move the tail's start back
 * over messages already rewritten: a writing walk then has `w.newest` at or above `w.boundary`.
 */
export const walk = (s: Settings, ms: Messages, w: WalkState, from: number, to: number): void => {
  const { bounded, counts, limit, recall, changes, lookedUp, saved, at, tally: t } = w
  const protect = s.protect
  const derive = s.derive
  let { total, boundary, out, results, args, newest } = w
  for (let i = to - 1; i >= from; i--) {
    const m = ms[i] as Message
    if (bounded && boundaryPart(m) >= 0) from = i // the last message taken
    const c = counts === undefined ? s.count(m) : (counts[i] as number)
    if (limit >= 0 ? i >= limit : total < protect) {
      boundary = i
      total += c
      continue
    }
    total += c
    const o = recall === undefined ? undefined : recall(m)
    if (o !== undefined) {
      if (o.lookedUp) lookedUp.push(i)
      if (!isKept(o)) (changes as Change[]).push(o.index === i ? o : { ...o, index: i }) // remembered from another place
      continue
    }
    const next = rewrite(s, m, c, w, i, t)
    if (changes !== undefined) {
      if (t.lookedUp) lookedUp.push(i)
      if (next !== undefined)
        changes.push({ ...CHANGE, index: i, message: next, was: c, tokens: t.after, results: t.results, args: t.args, lookedUp: t.lookedUp })
      continue
    }
    if (next === undefined) continue
    ;(out ??= ms.slice())[i] = next
    if (newest < 0) newest = i
    results += t.results
    args += t.args
    if (derive) saved.push(c - t.after)
    else {
      saved.push(c)
      at.push(i)
    }
  }
  w.start = from
  w.total = total
  w.boundary = boundary
  w.out = out
  w.results = results
  w.args = args
  w.newest = newest
}

/** Puts `xs[from, end)` (a walk's records, newest first) in index order. */
export const oldestFirst = <T>(xs: T[], from: number): void => {
  for (let a = from, b = xs.length - 1; a < b; a++, b--) {
    const x = xs[a] as T
    xs[a] = xs[b] as T
    xs[b] = x
  }
}

/**
 * The pure prune of a whole history: one writing {@link walk} from the newest message, which
 * counts each message and, once the protected tail is full, rewrites it straight into the result;
 * nothing else is built but each rewritten message's savings (summed from the oldest, as
 * the incremental pruner sums its records). With the caller's `count`, the rewritten messages are counted after
 * the walk, oldest first (as the incremental pruner counts its records). The walk stops at the newest
 * provider compaction boundary (see `lastCompactionBoundary`): what precedes it is never sent, so
 * it is neither pruned nor counted. When a negative count moved the tail's start back over a
 * message already rewritten, the history is walked again with the start known.
 */
export const pruneAll = (s: Settings, ms: Messages): PruneResult => {
  let w = writing(ms, -1)
  walk(s, ms, w, 0, ms.length)
  if (w.newest >= w.boundary) {
    const { lookups, start } = w
    w = writing(ms, w.boundary)
    w.lookups = lookups
    walk(s, ms, w, start, ms.length)
  }
  const { out, saved, at } = w
  if (out !== undefined) {
    for (let k = at.length - 1; k >= 0; k--) {
      const i = at[k] as number
      const rewritten = out[i] as Message
      const after = s.count(rewritten)
      saved[k] = (saved[k] as number) - after
      // a message that carried `tokens` gets the fresh `{ total }`
      if ((ms[i] as Message).tokens !== undefined) out[i] = { ...rewritten, tokens: { total: after } }
    }
  }
  let savings = 0
  for (let k = saved.length - 1; k >= 0; k--) savings += saved[k] as number
  const total = w.total
  if (out === undefined || savings <= 0 || savings < s.minimumSavings)
    return { messages: ms, report: { prunedResults: 0, prunedArgs: 0, tokensBefore: total, tokensAfter: total } }
  return { messages: out, report: { prunedResults: w.results, prunedArgs: w.args, tokensBefore: total, tokensAfter: total - savings } }
}
