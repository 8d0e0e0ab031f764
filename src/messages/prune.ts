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
  /** Tokens of one message; default: `estimate` summed over its text, reasoning, call and result parts. */
  readonly count?: (m: Message) => number
  /** The text that replaces a pruned result; default `[tool output pruned — was ~N tokens, C chars]` and the preview. */
  readonly placeholder?: (info: { readonly name: string; readonly tokens: number; readonly chars: number; readonly preview: string }) => string
}

/**
 * What a prune did: how many results and calls it rewrote, and the history's tokens (by `count`)
 * before and after.
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

const quarter: Estimator = (s) => Math.ceil(s.length / 4)

const defaultPlaceholder = (info: { readonly tokens: number; readonly chars: number; readonly preview: string }): string =>
  `${PLACEHOLDER_PREFIX} — was ~${info.tokens} tokens, ${info.chars} chars]\n${info.preview}`

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

/** A prefix of at most `n` UTF-16 units that does not end inside a surrogate pair. */
const head = (s: string, n: number): string => {
  if (s.length <= n) return s
  const c = s.charCodeAt(n - 1)
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? n - 1 : n)
}

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

/** A message pruned: the new message, its tokens, what changed, and whether it may be remembered. */
type Pruned = { readonly message: Message; readonly tokens: number; readonly results: number; readonly args: number; readonly memo: boolean }

/** "Nothing to prune in this message", remembered like a pruned one. */
const NOTHING: Pruned = { message: { id: '', role: 'tool', kind: 'normal', parts: [] }, tokens: 0, results: 0, args: 0, memo: true }

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

  /** One message outside the window, pruned (`NOTHING` when nothing in it changes); `undefined` when not to be remembered. */
  const pruneMessage = (m: Message, tokensOfM: number, callNames: Map<string, string> | undefined): Pruned | undefined => {
    const ps = m.parts
    let parts: Part[] | undefined
    let ids: string[] | undefined
    let results = 0
    let args = 0
    let looked = false
    for (let j = 0; j < ps.length; j++) {
      const p = ps[j] as Part
      if (isToolResult(p)) {
        const content = p.content
        if (content.startsWith(PLACEHOLDER_PREFIX)) continue
        let name = p.name
        if (name === undefined && callNames !== undefined) {
          looked = true
          name = callNames.get(p.toolCallId)
        }
        name ??= ''
        if (callNames !== undefined && protectedTools.has(name)) continue
        if (marked && prunedIds(m)?.includes(p.toolCallId) === true) continue
        const tokens = ps.length === 1 ? tokensOfM : estimate(content)
        const text = placeholder({ name, tokens, chars: content.length, preview: head(content, PREVIEW_CHARS) })
        if (text.length >= content.length) continue // a small result: the placeholder would free nothing
        ;(parts ??= ps.slice())[j] = { type: 'tool_result', toolCallId: p.toolCallId, content: text, isError: p.isError, ...(p.name === undefined ? {} : { name: p.name }) }
        if (marked) (ids ??= []).push(p.toolCallId)
        results++
      } else if (isToolCall(p)) {
        callNames?.set(p.id, p.name)
        // No byte-level tokenizer makes more tokens than UTF-8 bytes (at most 3 per UTF-16 unit), so
        // short arguments are below the threshold without being estimated: the common case costs nothing.
        if (protectedTools.has(p.name) || p.arguments.length * 3 <= argThreshold || estimate(p.arguments) <= argThreshold) continue
        const q = pruneArguments(p, estimate)
        if (q === p) continue
        ;(parts ??= ps.slice())[j] = q
        args++
      }
    }
    if (parts === undefined) return looked ? undefined : NOTHING
    let next: Message = ids === undefined ? { ...m, parts } : { ...m, parts, metadata: { ...m.metadata, pruned: [...(prunedIds(m) ?? []), ...ids] } }
    let tokens: number
    if (m.tokens === undefined) tokens = count(next)
    else {
      const { tokens: _, ...rest } = next
      tokens = count(rest)
      next = { ...rest, tokens: { total: tokens } }
    }
    return { message: next, tokens, results, args, memo: !looked }
  }

  // A pruned message depends only on the message and these options (unless a result's tool name
  // had to be looked up in an earlier call), so it is remembered: pruning the next turn's history
  // with the same pruner rewrites only the messages that newly left the window, and gives the
  // already-pruned ones back by identity (so identity-keyed token caches keep hitting).
  const memo = new WeakMap<Message, Pruned>()
  // The previous call: when the next history starts with the same message objects (a turn later),
  // their counts and pruning are taken over without looking at them again.
  let prev: { readonly input: Messages; readonly counts: Float64Array; readonly boundary: number; readonly pruned: ReadonlyArray<Pruned | undefined> } | undefined

  return (ms) => {
    const n = ms.length
    let same = 0
    if (prev !== undefined) {
      const limit = Math.min(n, prev.input.length)
      while (same < limit && ms[same] === prev.input[same]) same++
    }

    // every message's count (the shared prefix's from the previous call), then the first protected index
    const counts = new Float64Array(n)
    if (prev !== undefined && same > 0) counts.set(prev.counts.subarray(0, same))
    for (let i = same; i < n; i++) counts[i] = count(ms[i] as Message)
    let before = 0
    let boundary = n
    for (let i = n - 1; i >= 0; i--) {
      if (before < protect) boundary = i
      before += counts[i] as number
    }

    // forward over the unprotected messages: rewrite results and arguments
    const reuse = prev === undefined ? 0 : Math.min(same, prev.boundary, boundary)
    const pruned: Array<Pruned | undefined> = prev === undefined || reuse === 0 ? [] : prev.pruned.slice(0, reuse)
    const callNames = protectedTools.size > 0 ? new Map<string, string>() : undefined
    if (callNames !== undefined) for (let i = 0; i < reuse; i++) for (const p of (ms[i] as Message).parts) if (isToolCall(p)) callNames.set(p.id, p.name)
    for (let i = reuse; i < boundary; i++) {
      const m = ms[i] as Message
      let r = memo.get(m)
      if (r === undefined) {
        r = pruneMessage(m, counts[i] as number, callNames)
        if (r?.memo === true) memo.set(m, r)
      } else if (callNames !== undefined) for (const p of m.parts) if (isToolCall(p)) callNames.set(p.id, p.name)
      pruned.push(r)
    }
    prev = { input: ms, counts, boundary, pruned }

    let savings = 0
    let prunedResults = 0
    let prunedArgs = 0
    let changed = 0
    for (let i = 0; i < boundary; i++) {
      const r = pruned[i]
      if (r === undefined || r === NOTHING) continue
      savings += (counts[i] as number) - r.tokens
      prunedResults += r.results
      prunedArgs += r.args
      changed++
    }
    if (changed === 0 || savings <= 0 || savings < minimumSavings) {
      return { messages: ms, report: { prunedResults: 0, prunedArgs: 0, tokensBefore: before, tokensAfter: before } }
    }
    const out = ms.slice()
    for (let i = 0; i < boundary; i++) {
      const r = pruned[i]
      if (r !== undefined && r !== NOTHING) out[i] = r.message
    }
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
