/**
 * Backward tool-result pruning (seed 002 `PruneToolResults`): walking from the newest message,
 * the messages worth `protectTokens` tokens are protected; older tool results become a short
 * placeholder that says how much was removed and keeps a preview, and older tool-call arguments
 * larger than `argThreshold` keep their keys but have their long string values cut.
 *
 * Pruning only rewrites content, so it never orphans a call or a result. It is idempotent: the
 * default placeholder starts with `[tool output pruned`, a custom one is recorded in its message's
 * `metadata.pruned` (the tool call ids), and a cut argument value starts with `[truncated`, so
 * none is pruned again. A result is only replaced when the placeholder is shorter. Messages that
 * carried `tokens` get a fresh `{ total }` from `count`.
 *
 * Token figures: every input message is counted with `count`. A rewritten message is counted with
 * `count` too, except when both `count` and `estimate` are the defaults, the message has no stored
 * `tokens` and only results were rewritten (no argument cut): its count is then derived as the
 * original's count minus a quarter of each replaced content's length plus a quarter of its
 * placeholder's (rounded up each), which is exactly what the default `count` gives. A `count` of
 * your own is always called on the rewritten message, so the report agrees with it.
 *
 * @module
 */
import type { Message, Messages } from '../message.ts'
import { isToolCall, isToolResult, type Part, type ToolCallPart, type ToolResultPart } from '../part.ts'

// --- model ---

/**
 * An estimator: how many tokens a text costs.
 *
 * @example
 * import type { Estimator } from 'chatfold'
 * const quarter: Estimator = (text) => Math.ceil(text.length / 4)
 *
 * @since 0.1.0
 * @category tokens
 */
export type Estimator = (text: string) => number

/**
 * Options of `pruneToolResults`; every field has a default.
 *
 * @example
 * import { pruneToolResults, type PruneOptions } from 'chatfold'
 * const opts: PruneOptions = { protectTokens: 40_000, minimumSavings: 20_000, protectedTools: ['todo_write'] }
 * const prune = pruneToolResults(opts) // keep it: it remembers what it pruned, turn after turn
 *
 * @since 0.1.0
 * @category edits
 */
export type PruneOptions = {
  /** Default 40,000: the newest messages worth this many tokens are never touched. */
  readonly protectTokens?: number
  /** Default 2,000 tokens: tool-call arguments above it get their large string values cut (arguments under a third as many characters are never estimated: a byte-level tokenizer gives at most one token per UTF-8 byte). */
  readonly argThreshold?: number
  /** Default 20,000: prune nothing unless at least this many tokens would be freed. */
  readonly minimumSavings?: number
  /** Tool names whose results and arguments are never pruned. */
  readonly protectedTools?: ReadonlyArray<string>
  /** Default `Math.ceil(text.length / 4)`. */
  readonly estimate?: Estimator
  /**
   * Tokens of one message; default: `estimate` summed over its text, reasoning, call and result
   * parts (with both defaults, a message whose only change is rewritten results has its count
   * derived from the original's rather than counted again; see the module notes).
   */
  readonly count?: (m: Message) => number
  /** The text that replaces a pruned result; default `[tool output pruned — was ~N tokens, C chars]` and the preview. */
  readonly placeholder?: (info: { readonly name: string; readonly tokens: number; readonly chars: number; readonly preview: string }) => string
}

/**
 * What a prune did: how many results and calls it rewrote, and the history's tokens (by `count`)
 * before and after (after: `count` of the messages kept, and of the rewritten ones as the module
 * notes say).
 *
 * @example
 * import { pruneToolResultsWithReport, type PruneReport } from 'chatfold'
 * declare const history: import('chatfold').Messages
 * const report: PruneReport = pruneToolResultsWithReport({})(history).report
 * const freed = report.tokensBefore - report.tokensAfter
 *
 * @since 0.1.0
 * @category edits
 */
export type PruneReport = { readonly prunedResults: number; readonly prunedArgs: number; readonly tokensBefore: number; readonly tokensAfter: number }

/**
 * The pruned history and its report.
 *
 * @example
 * import { pruneToolResultsWithReport, type PruneResult } from 'chatfold'
 * declare const history: import('chatfold').Messages
 * const { messages, report }: PruneResult = pruneToolResultsWithReport({})(history)
 *
 * @since 0.1.0
 * @category edits
 */
export type PruneResult = { readonly messages: Messages; readonly report: PruneReport }

// --- defaults ---

const PREVIEW_CHARS = 100
/** Argument strings longer than this are cut (to a marker and a preview of `PREVIEW_CHARS`). */
const LONG_ARG_CHARS = 200
const MAX_ARG_DEPTH = 64
const PLACEHOLDER_PREFIX = '[tool output pruned'
const TRUNCATED_PREFIX = '[truncated'

/**
 * Shapes of a rewritten result (fields in this order), cloned and filled in rather than written as
 * literals: V8 tracks where each literal is allocated and, seeing a prune's new parts survive a
 * young collection (the output is still being built), allocates that literal's objects straight
 * into the old generation from then on, where dead ones keep their young placeholder strings alive
 * through every young collection until a full one. A clone is never allocated there.
 */
const RESULT: ToolResultPart = { type: 'tool_result', toolCallId: '', content: '', isError: false }
const NAMED_RESULT: Required<ToolResultPart> = { type: 'tool_result', toolCallId: '', content: '', isError: false, name: '' }

const quarter: Estimator = (s) => Math.ceil(s.length / 4)

/** The default placeholder's opening, one string (each piece joined at run time costs a string of its own). */
const PLACEHOLDER_LEAD = `${PLACEHOLDER_PREFIX} — was ~`

const defaultPlaceholder = (info: { readonly tokens: number | string; readonly chars: number | string; readonly preview: string }): string =>
  `${PLACEHOLDER_LEAD}${info.tokens} tokens, ${info.chars} chars]\n${info.preview}`

/** The text a part contributes to a message's token count. */
const partText = (p: Part): string => {
  switch (p.type) {
    case 'text':
    case 'reasoning':
      return (p as { readonly text: string }).text
    case 'tool_call':
      return (p as ToolCallPart).name + (p as ToolCallPart).arguments
    case 'tool_result':
      return (p as ToolResultPart).content
    default:
      return ''
  }
}

const countWith =
  (estimate: Estimator) =>
  (m: Message): number => {
    let t = 0
    for (const p of m.parts) {
      const s = partText(p)
      if (s !== '') t += estimate(s)
    }
    return t
  }

const amount = (x: number | undefined, fallback: number): number => (x === undefined || Number.isNaN(x) ? fallback : Math.max(0, x))

/** How many characters a template literal writes for `x` (counted, for a whole number, without writing it). */
const digits = (x: number): number => {
  if (!Number.isInteger(x) || x < 0 || x >= 1e15) return String(x).length
  let d = 1
  for (let p = 10; x >= p; p *= 10) d++
  return d
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff

/** A prefix of at most `n` UTF-16 units that does not end inside a surrogate pair. */
const head = (s: string, n: number): string => (s.length <= n ? s : s.slice(0, isHighSurrogate(s.charCodeAt(n - 1)) ? n - 1 : n))

// --- arguments ---

/** Cuts long strings anywhere in a JSON value; returns the value itself when none is long. */
const cutStrings = (v: unknown, estimate: Estimator, depth: number): unknown => {
  if (typeof v === 'string') {
    if (v.length <= LONG_ARG_CHARS || v.startsWith(TRUNCATED_PREFIX)) return v
    return `${TRUNCATED_PREFIX} — was ~${estimate(v)} tokens] ${head(v, PREVIEW_CHARS)}`
  }
  if (typeof v !== 'object' || v === null || depth >= MAX_ARG_DEPTH) return v
  if (Array.isArray(v)) {
    let out: unknown[] | undefined
    for (let i = 0; i < v.length; i++) {
      const x = cutStrings(v[i], estimate, depth + 1)
      if (x !== v[i]) (out ??= v.slice())[i] = x
    }
    return out ?? v
  }
  let out: Record<string, unknown> | undefined
  for (const [k, x] of Object.entries(v)) {
    const y = cutStrings(x, estimate, depth + 1)
    if (y === x) continue
    out ??= { ...(v as Record<string, unknown>) }
    Object.defineProperty(out, k, { value: y, enumerable: true, writable: true, configurable: true })
  }
  return out ?? v
}

/** The call with its long argument strings cut, or the call itself (unparseable JSON is left alone). */
const pruneArguments = (call: ToolCallPart, estimate: Estimator): ToolCallPart => {
  let parsed: unknown
  try {
    parsed = JSON.parse(call.arguments)
  } catch {
    return call
  }
  const cut = cutStrings(parsed, estimate, 0)
  return cut === parsed ? call : { ...call, arguments: JSON.stringify(cut) }
}

// --- pruning ---

/** A message pruned, as remembered: the new message (`undefined` when nothing in it changes), its tokens and what changed. */
type Pruned = { readonly message: Message | undefined; readonly tokens: number; readonly results: number; readonly args: number }

/** "Nothing to prune in this message", remembered. */
const UNCHANGED: Pruned = { message: undefined, tokens: 0, results: 0, args: 0 }

/**
 * One call's work: every message's count, whether the pruning of each message before the
 * protected tail depends on the message alone (and so may be remembered by it), and the messages
 * it changed, in order: position, new form, its count, and the results and arguments rewritten
 * (short lists of plain numbers: a prune's few thousand changes, not one slot per message).
 */
type Work = {
  readonly input: Messages
  readonly counts: number[]
  /** The first protected position. */
  boundary: number
  readonly pure: Uint8Array
  readonly at: number[]
  readonly after: Message[]
  readonly tokens: number[]
  readonly results: number[]
  readonly args: number[]
}

/** A call's work for `input` with no change yet, `kept` taken from `from` (the previous call's). */
const newWork = (input: Messages, counts: number[], boundary: number, from?: Work, kept = 0): Work => ({
  input,
  counts,
  boundary,
  pure: new Uint8Array(boundary),
  at: from === undefined ? [] : from.at.slice(0, kept),
  after: from === undefined ? [] : from.after.slice(0, kept),
  tokens: from === undefined ? [] : from.tokens.slice(0, kept),
  results: from === undefined ? [] : from.results.slice(0, kept),
  args: from === undefined ? [] : from.args.slice(0, kept),
})

/** Puts the changes recorded newest first into history order. */
const reverse = (w: Work): void => {
  w.at.reverse()
  w.after.reverse()
  w.tokens.reverse()
  w.results.reverse()
  w.args.reverse()
}

/** Forgets the last change recorded. */
const unrecord = (w: Work): void => {
  w.at.pop()
  w.after.pop()
  w.tokens.pop()
  w.results.pop()
  w.args.pop()
}

/** Records that message `i` became `message`, worth `tokens`, rewriting `results` results and `args` arguments. */
const record = (w: Work, i: number, message: Message, tokens: number, results: number, args: number): void => {
  w.at.push(i)
  w.after.push(message)
  w.tokens.push(tokens)
  w.results.push(results)
  w.args.push(args)
}

const prunedIds = (m: Message): ReadonlyArray<unknown> | undefined => {
  const v = m.metadata?.['pruned']
  return Array.isArray(v) ? v : undefined
}

/**
 * Prunes old tool results and large tool-call arguments outside the protected tail, and reports
 * what it freed. Returns the input array itself (with a report of zeros pruned) when nothing is
 * pruned, including when less than `minimumSavings` tokens (or none at all) would be freed.
 * Keep the returned pruner for the next turn: it remembers each message it pruned (and the last
 * history it saw, whose shared prefix it takes over without a second look), so a growing history
 * only has its newly unprotected messages counted and rewritten, and pruned messages come back as
 * the same objects (identity-keyed token caches keep hitting). `count` must be pure: the same
 * message always has the same count.
 *
 * @example
 * import { pruneToolResultsWithReport } from 'chatfold'
 * declare const history: import('chatfold').Messages
 * const { messages, report } = pruneToolResultsWithReport({ protectTokens: 40_000 })(history)
 * console.log(`freed ${report.tokensBefore - report.tokensAfter} tokens from ${report.prunedResults} results`)
 *
 * @since 0.1.0
 * @category edits
 */
export const pruneToolResultsWithReport = (opts: PruneOptions): ((ms: Messages) => PruneResult) => {
  const estimate = opts.estimate ?? quarter
  const count = opts.count ?? countWith(estimate)
  const protect = amount(opts.protectTokens, 40_000)
  const argThreshold = amount(opts.argThreshold, 2_000)
  const minimumSavings = amount(opts.minimumSavings, 20_000)
  const placeholder = opts.placeholder ?? defaultPlaceholder
  const protectedTools = new Set(opts.protectedTools ?? [])
  // the default placeholder is recognised by its prefix; a custom one by `metadata.pruned`
  const marked = opts.placeholder !== undefined

  // With the default estimator a rewritten result's share of its message's count is known
  // without estimating it again (a quarter of its length), so the new message's count is derived:
  // count(m) - estimate(old content) + estimate(placeholder).
  const derive = opts.estimate === undefined && opts.count === undefined
  // The default placeholder's length is known before it is built, so results it would not
  // shorten are skipped without building it.
  const fixedLength = marked ? 0 : defaultPlaceholder({ tokens: '', chars: '', preview: '' }).length

  /**
   * Prunes message `i` (outside the window, worth `tokensOfM`) into `w`: its new form, count and
   * edits, and whether that depends on the message alone (not when a result's tool name was looked up).
   */
  const pruneMessage = (w: Work, i: number, m: Message, tokensOfM: number, callNames: Map<string, string> | undefined): void => {
    const ps = m.parts
    let parts: Part[] | undefined
    let ids: string[] | undefined
    let results = 0
    let args = 0
    let looked = false
    let delta = 0 // the estimate of the rewritten results' new content minus their old (for `derive`)
    for (let j = 0; j < ps.length; j++) {
      const p = ps[j] as Part
      if (p.type === 'tool_result') {
        const content = (p as ToolResultPart).content
        const chars = content.length
        // the default placeholder keeps a preview of up to PREVIEW_CHARS (one fewer at a surrogate
        // pair) after its fixed text and two numbers of at least one digit: a result no longer than
        // that cannot be shortened, whatever its tool (so its name need not be looked up)
        if (!marked && chars <= fixedLength + 1 + Math.min(chars, PREVIEW_CHARS)) continue
        if (content.charCodeAt(0) === 0x5b && content.startsWith(PLACEHOLDER_PREFIX)) continue // '['
        const r = p as ToolResultPart
        let name = r.name
        if (name === undefined && callNames !== undefined) {
          looked = true
          name = callNames.get(r.toolCallId)
        }
        name ??= ''
        if (callNames !== undefined && protectedTools.has(name)) continue
        if (marked && prunedIds(m)?.includes(r.toolCallId) === true) continue
        const tokens = ps.length === 1 ? tokensOfM : estimate(content)
        let text: string
        if (marked) {
          text = placeholder({ name, tokens, chars, preview: head(content, PREVIEW_CHARS) })
          if (text.length >= chars) continue // a small result: the placeholder would free nothing
        } else {
          const previewLength = chars <= PREVIEW_CHARS ? chars : isHighSurrogate(content.charCodeAt(PREVIEW_CHARS - 1)) ? PREVIEW_CHARS - 1 : PREVIEW_CHARS
          if (fixedLength + digits(tokens) + digits(chars) + previewLength >= chars) continue
          text = `${PLACEHOLDER_LEAD}${tokens} tokens, ${chars} chars]\n${content.slice(0, previewLength)}` // defaultPlaceholder, inlined
        }
        if (derive) delta += quarter(text) - quarter(content)
        ;(parts ??= ps.slice())[j] =
          r.name === undefined
            ? { ...RESULT, toolCallId: r.toolCallId, content: text, isError: r.isError }
            : { ...NAMED_RESULT, toolCallId: r.toolCallId, content: text, isError: r.isError, name: r.name }
        if (marked) (ids ??= []).push(r.toolCallId)
        results++
      } else if (p.type === 'tool_call') {
        const c = p as ToolCallPart
        callNames?.set(c.id, c.name)
        // No byte-level tokenizer makes more tokens than UTF-8 bytes (at most 3 per UTF-16 unit), so
        // short arguments are below the threshold without being estimated: the common case costs nothing.
        if (protectedTools.has(c.name) || c.arguments.length * 3 <= argThreshold || estimate(c.arguments) <= argThreshold) continue
        const q = pruneArguments(c, estimate)
        if (q === c) continue
        ;(parts ??= ps.slice())[j] = q
        args++
      }
    }
    w.pure[i] = looked ? 0 : 1
    if (parts === undefined) return
    let next: Message = ids === undefined ? { ...m, parts } : { ...m, parts, metadata: { ...m.metadata, pruned: [...(prunedIds(m) ?? []), ...ids] } }
    let tokens: number
    if (m.tokens !== undefined) {
      // a stored count may not add up over parts: count the message afresh
      const { tokens: _, ...rest } = next
      tokens = count(rest)
      next = { ...rest, tokens: { total: tokens } }
    } else if (derive && args === 0) tokens = tokensOfM + delta
    else {
      tokens = 0 // counted once the walk is done (see `countPending`)
      pending.push(w.at.length)
    }
    record(w, i, next, tokens, results, args)
  }

  // Rewritten messages the caller's `count` must see, by their place in the changes: counted in
  // one go after the walk rather than between its reads, so a counter that caches by message
  // (a `WeakMap`) takes them all at once.
  const pending: number[] = []
  const countPending = (w: Work): void => {
    for (const j of pending) w.tokens[j] = count(w.after[j] as Message)
    pending.length = 0
  }

  // A pruned message depends only on the message and these options (unless a result's tool name
  // had to be looked up in an earlier call), so it is remembered: pruning the next turn's history
  // with the same pruner rewrites only the messages that newly left the window, and gives the
  // already-pruned ones back by identity (so identity-keyed token caches keep hitting). The last
  // call's work is held by position in `prev` and moves here only when a call does not take it
  // over, so a first prune pays for no remembering at all.
  const memo = new WeakMap<Message, Pruned>()
  let remembered = false
  // The previous call: when the next history starts with the same message objects (a turn later),
  // their counts and pruning are taken over without looking at them again.
  let prev: Work | undefined

  /** Remembers by message what `last` pruned from position `from` on (by then `last.at` is past its first `kept` entries). */
  const remember = (last: Work, from: number, kept: number): void => {
    for (let i = from, j = kept; i < last.boundary; i++) {
      const changed = j < last.at.length && last.at[j] === i
      if (last.pure[i] === 1) {
        const r: Pruned = changed
          ? { message: last.after[j] as Message, tokens: last.tokens[j] as number, results: last.results[j] as number, args: last.args[j] as number }
          : UNCHANGED
        memo.set(last.input[i] as Message, r)
        remembered = true
      }
      if (changed) j++
    }
  }

  /** Prunes message `i` into `w`, or takes what was remembered of it. */
  const visit = (w: Work, i: number, m: Message, tokensOfM: number, callNames: Map<string, string> | undefined): void => {
    const r = remembered ? memo.get(m) : undefined
    if (r === undefined) {
      pruneMessage(w, i, m, tokensOfM, callNames)
      return
    }
    if (callNames !== undefined) for (const p of m.parts) if (isToolCall(p)) callNames.set(p.id, p.name)
    w.pure[i] = 1
    if (r.message !== undefined) record(w, i, r.message, r.tokens, r.results, r.args)
  }

  return (ms) => {
    const n = ms.length
    pending.length = 0 // (should a count have thrown in the last call)
    let same = 0
    if (prev !== undefined) {
      const limit = Math.min(n, prev.input.length)
      while (same < limit && ms[same] === prev.input[same]) same++
    }
    // (plain arrays throughout: a typed array as long as the history costs a fresh mapping of memory each call)
    let counts: number[]
    const callNames = protectedTools.size > 0 ? new Map<string, string>() : undefined
    let before = 0
    let boundary = n
    let w: Work

    if ((prev === undefined || Math.min(same, prev.boundary) === 0) && callNames === undefined) {
      // Nothing to take over: one walk from the newest message, counting each and pruning those
      // the window has no room for, so every message is looked at once. (Tool names are looked up
      // in calls met earlier in the history, so with protected tools the walk goes forward, below.)
      if (prev !== undefined) remember(prev, 0, 0)
      counts = [] // newest first until the walk is done
      w = newWork(ms, counts, n)
      for (let i = n - 1; i >= 0; i--) {
        const m = ms[i] as Message
        const c = count(m)
        counts.push(c)
        if (before < protect) boundary = i
        else visit(w, i, m, c, undefined)
        before += c
      }
      countPending(w)
      counts.reverse()
      w.boundary = boundary
      reverse(w)
      // a negative count can pull the window's edge back over a message already pruned
      while (w.at.length > 0 && (w.at[w.at.length - 1] as number) >= boundary) unrecord(w)
    } else {
      // every message's count (the shared prefix's from the previous call), then the first protected index
      counts = prev !== undefined && same > 0 ? prev.counts.slice(0, same) : []
      for (let i = same; i < n; i++) counts.push(count(ms[i] as Message))
      for (let i = n - 1; i >= 0; i--) {
        if (before < protect) boundary = i
        before += counts[i] as number
      }

      // forward over the unprotected messages: rewrite results and arguments
      const reuse = prev === undefined ? 0 : Math.min(same, prev.boundary, boundary)
      let kept = 0 // how many of the previous call's changes this one takes over
      if (prev !== undefined) {
        kept = prev.at.length
        while (kept > 0 && (prev.at[kept - 1] as number) >= reuse) kept--
      }
      w = newWork(ms, counts, boundary, prev, kept)
      if (prev !== undefined) {
        w.pure.set(prev.pure.subarray(0, reuse))
        // what the previous call pruned and this one does not take over by position is remembered by message
        remember(prev, reuse, kept)
      }
      if (callNames !== undefined) for (let i = 0; i < reuse; i++) for (const p of (ms[i] as Message).parts) if (isToolCall(p)) callNames.set(p.id, p.name)
      for (let i = reuse; i < boundary; i++) visit(w, i, ms[i] as Message, counts[i] as number, callNames)
      countPending(w)
    }
    prev = w

    let savings = 0
    let prunedResults = 0
    let prunedArgs = 0
    const changed = w.at.length
    for (let j = 0; j < changed; j++) {
      savings += (counts[w.at[j] as number] as number) - (w.tokens[j] as number)
      prunedResults += w.results[j] as number
      prunedArgs += w.args[j] as number
    }
    if (changed === 0 || savings <= 0 || savings < minimumSavings) {
      return { messages: ms, report: { prunedResults: 0, prunedArgs: 0, tokensBefore: before, tokensAfter: before } }
    }
    const out = ms.slice()
    for (let j = 0; j < changed; j++) out[w.at[j] as number] = w.after[j] as Message
    return { messages: out, report: { prunedResults, prunedArgs, tokensBefore: before, tokensAfter: before - savings } }
  }
}

/**
 * Prunes old tool results and large tool-call arguments outside the protected tail (seed
 * `PruneToolResults`): `pruneToolResultsWithReport(opts)(ms).messages`, for `pipe`.
 *
 * @example
 * import { pipe } from 'fp-ts/function'
 * import { forLLM, pruneToolResults } from 'chatfold'
 * declare const history: import('chatfold').Messages
 * const payload = pipe(history, forLLM, pruneToolResults({ protectTokens: 40_000, protectedTools: ['todo'] }))
 *
 * @since 0.1.0
 * @category edits
 */
export const pruneToolResults = (opts: PruneOptions): ((ms: Messages) => Messages) => {
  const run = pruneToolResultsWithReport(opts)
  return (ms) => run(ms).messages
}
