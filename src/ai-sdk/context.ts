/**
 * What keeps a framework's conversation within its context window, call after call: the whole
 * request counted as the provider counts it, old tool output pruned by a pruner kept per
 * conversation, and, when pruning is not enough, the head compacted into a summary that later calls
 * reuse (the conversation's compaction boundary) until the next one is due. The last user request
 * is always sent as it is, and no tool call is separated from its result. Framework-free: the
 * middleware and `prepareStep` helper of this entry feed it their messages.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { type DecodeFailure, formatDecodeFailure } from '../message/failure.ts'
import type { Message, Messages } from '../message/message.ts'
import type { Estimator } from '../tokens/message-tokens.ts'
import { createPruner } from '../history/prune-incremental.ts'
import type { PruneOptions, PrunerResultWithReceipt } from '../history/prune-options.ts'
import type { Receipt } from '../history/receipt.ts'
import type { PriceTable } from '../cost/price.ts'
import type { PrunerState } from '../history/prune-state.ts'
import { compact, type Summarizer } from '../compaction/compact.ts'
import { extractiveSummarize } from '../compaction/extractive.ts'
import { pricedSummarizer } from '../compaction/priced.ts'
import { planCompaction } from '../compaction/plan.ts'
import { systemPrefix } from '../compaction/system-prefix.ts'
import { SUMMARY_ALLOWANCE } from '../compaction/window.ts'
import { countModelRequest, DEFAULT_CALIBRATION } from '../counting/count.ts'
import type { ToolChoice, ToolDefinition } from '../adapters/request.ts'
import type { Vendor } from '../adapters/vocabulary.ts'
import { isObject } from '../internal/object.ts'
import { type Mirror, mirrorOf } from './_mirror.ts'
import { type Boundary, loadBoundary, loadPruning, saveState, type StoredBoundary, storedBoundary } from './_context-state.ts'
import type { ContextStateStore } from './state.ts'
import { INSTRUCTION_ALLOWANCE, summaryRequestOf } from './_summary-request.ts'
import { ContextError } from './errors.ts'
import { recordReceiptOf } from './_receipt-record.ts'
import type { ContextRecord } from './_context-record.ts'
import { type Anchor, anchored, anchorOf, type Sent, underRatioOf } from './_anchor.ts'

// --- model ---

/**
 * Options of `contextMiddleware` and `contextPrepareStep`: the window the whole request must fit
 * (`contextWindow − reserveTokens`, as `shouldCompact` takes them), how to count, prune and compact.
 *
 * @example
 * import { heuristic } from 'chatfold/tokens'
 * import type { ContextOptions } from 'chatfold/ai-sdk'
 * const options: ContextOptions = { contextWindow: 200_000, reserveTokens: 16_000, estimate: heuristic, pruning: { protectedTools: ['read_file'] } }
 *
 * @since 0.1.0
 * @category compaction
 */
export type ContextOptions = {
  /** The model's context window, in the provider's tokens. */
  readonly contextWindow: number
  /** Tokens kept free for the answer; default the call's `maxOutputTokens`, else 16,384. */
  readonly reserveTokens?: number
  /** Whose counting rules apply; default inferred from the model (`providerOfModel`), OpenAI's when unknown. */
  readonly provider?: Vendor
  /** The estimator of text; default `smartHeuristic` (`heuristic` is faster). */
  readonly estimate?: Estimator
  /** The ratio of the provider's tokenizer to the estimate; default `DEFAULT_CALIBRATION[provider]`. */
  readonly calibration?: number
  /**
   * Options of the pruner each conversation keeps (`createPruner`), or `off`. Default, scaled to the
   * limit: the cache-aware policy, a batch when the history passes 70% of the limit (or the limit
   * itself), down to a protected tail of a sixteenth of the limit, at most 10,000 tokens. Options
   * given are laid over these; `{ policy: 'fresh', protectTokens: 40_000 }` is the earlier default.
   */
  readonly pruning?: PruneOptions | 'off'
  /** Writes the summary when pruning is not enough; default `extractiveSummarize` (offline). */
  readonly summarize?: Summarizer
  /** The recent tail a compaction keeps verbatim; default a quarter of the window, at most 20,000. */
  readonly keepRecentTokens?: number
  /** Tokens left for a summary; default `SUMMARY_ALLOWANCE`. */
  readonly summaryTokens?: number
  /** How many conversations are remembered at once (the least recently used goes); default 64. */
  readonly maxConversations?: number
  /**
   * Where each conversation's compaction is kept besides memory (`memoryContextState`,
   * `chatStoreContextState`, or a store of your own), by conversation key: a keeper made per
   * request takes it up, and neither summarises again nor sends a different prefix. Default: memory only.
   */
  readonly state?: ContextStateStore
  /** The price table of each call's cost in the record (`PRICES` of `chatfold/cost` by default; extend it with `withPrices`). */
  readonly prices?: PriceTable
}

/** A request to fit: the framework's messages and the tool definitions they go with. */
export type FitInput<W> = {
  readonly wire: ReadonlyArray<W>
  readonly tools: ReadonlyArray<ToolDefinition>
  readonly toolChoice?: ToolChoice
  readonly provider: Vendor
  readonly reserveTokens?: number
}

/** The history to send, and what was done (`undefined`: the request fit as it was, and is `messages`); `sent` is what `report` is told the usage of. */
export type Fitted = { readonly messages: Messages; readonly record: ContextRecord | undefined; readonly sent: SentPrompt }

/** A prompt sent for a conversation, to which the provider's reported usage is tied (`report`). */
export type SentPrompt = Sent & { readonly key: string; readonly provider: Vendor }

type Conversation<W> = {
  boundary: Boundary | undefined
  mirror: Mirror<W> | undefined
  /** The pruner, made at the conversation's first call past the limit (resumed from the state store's, when there is one). */
  pruner:
    | ({ readonly prune: (ms: Messages, budget?: { readonly limit: number }) => PrunerResultWithReceipt; readonly state: () => PrunerState | undefined })
    | undefined
  /** The boundary as the state store keeps it. */
  stored: StoredBoundary | null
  /** What the provider reported for the prompt last sent, which later estimates are read against. */
  anchor: Anchor | undefined
}

/**
 * The pruning a conversation gets by default, scaled to its limit (`npm run bench cost` weighed
 * it): the cache-aware pruner, which lets the history grow to 70% of the limit, then prunes every
 * tool result outside a protected tail of a sixteenth of the limit (at most 10,000 tokens) in one
 * batch, so that the prompts until the next batch share their prefix; at the limit a batch is made
 * whatever it costs.
 */
const prunerDefaults = (limit: number): PruneOptions => ({
  protectTokens: Math.min(10_000, Math.floor(limit / 16)),
  minimumSavings: Math.min(20_000, Math.floor(limit / 10)),
  triggerTokens: Math.floor(limit * 0.7),
})

const isLastRequest = (m: Message): boolean => m.role === 'user' && m.kind === 'normal'

const summaryText = (m: Message | undefined): string => (m === undefined ? '' : m.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''))

/**
 * A keeper of conversations: `fit(key, input)` gives the history to send for the conversation
 * `key`, within `contextWindow − reserveTokens` counted as `input.provider` counts (tools included);
 * `decode` reads the framework's messages (one message each), only those past the prefix the
 * previous call of the conversation shares. Rejects with a `ContextError`: `unreadable` on messages
 * `decode` refuses, `too-large` when not even the system prompt, a summary and the last request fit.
 */
export const createContextKeeper = <W>(options: ContextOptions, decode: (ws: ReadonlyArray<W>) => E.Either<DecodeFailure, Messages>) => {
  const conversations = new Map<string, Conversation<W>>()
  const counts = new Map<Vendor, WeakMap<Message, number>>()
  const estimateOpts = options.estimate === undefined ? {} : { estimate: options.estimate }
  const ratioOf = (provider: Vendor): number => options.calibration ?? DEFAULT_CALIBRATION[provider]

  const counter = (provider: Vendor): (m: Message) => number => {
    let cache = counts.get(provider)
    if (cache === undefined) counts.set(provider, cache = new WeakMap())
    const c = cache
    const count = countModelRequest(provider, { ...estimateOpts, calibration: ratioOf(provider) })
    const prime = provider === 'openai' ? 3 : 0
    return (m) => {
      const hit = c.get(m)
      if (hit !== undefined) return hit
      const r = count({ messages: [m] })
      const n = r.system + r.messages - prime
      c.set(m, n)
      return n
    }
  }

  const conversation = (key: string): Conversation<W> => {
    const found = conversations.get(key)
    if (found !== undefined) {
      conversations.delete(key)
      conversations.set(key, found)
      return found
    }
    const made: Conversation<W> = { boundary: undefined, mirror: undefined, pruner: undefined, stored: null, anchor: undefined }
    conversations.set(key, made)
    const max = options.maxConversations ?? 64
    for (const k of conversations.keys()) {
      if (conversations.size <= max) break
      conversations.delete(k)
    }
    return made
  }

  const fit = async (key: string, input: FitInput<W>): Promise<Fitted> => {
    const { provider } = input
    const reserve = options.reserveTokens ?? input.reserveTokens ?? 16_384
    const limit = Math.max(0, options.contextWindow - reserve)
    const count = counter(provider)
    const c = conversation(key)
    const mirrored = mirrorOf(c.mirror, input.wire, decode)
    if (E.isLeft(mirrored)) throw new ContextError('unreadable', `Cannot read the messages: ${formatDecodeFailure(mirrored.left)}`)
    c.mirror = mirrored.right
    const ms = mirrored.right.messages
    const fixed = countModelRequest(provider, { ...estimateOpts, calibration: ratioOf(provider) })({
      messages: [],
      ...(input.tools.length > 0 ? { tools: input.tools } : {}),
      ...(input.toolChoice === undefined ? {} : { toolChoice: input.toolChoice }),
    }).total
    // the estimate, at the ratio the provider counted over it on the prompt last sent (if over)
    const total = (xs: Messages): number => anchored(c.anchor, xs.reduce((a, m) => a + count(m), fixed))
    const sent = (messages: Messages): SentPrompt => ({ key, provider, messages, fixed })
    const before = total(ms)
    if (before <= limit) return { messages: ms, record: undefined, sent: sent(ms) }
    // the boundary holds while the input still starts with the messages it replaced
    // (or, for a conversation this keeper has not seen compacted, the one the state store keeps)
    let b = c.boundary !== undefined && ms[c.boundary.covered - 1] === c.boundary.last ? c.boundary : undefined
    if (b === undefined && options.state !== undefined) {
      const loaded = await loadBoundary(options.state, key, input.wire, ms)
      c.boundary = b = loaded?.boundary
      c.stored = loaded?.stored ?? null
    }
    // the pruner, made at the first call past the limit: resumed from the state store's, when it holds
    const notes: string[] = []
    if (c.pruner === undefined && options.pruning !== 'off') {
      const kept = options.state === undefined ? {} : await loadPruning(options.state, key)
      if (kept.discarded !== undefined) notes.push(kept.discarded)
      c.pruner = createPruner({ ...prunerDefaults(limit), count, ...estimateOpts, ...options.pruning }, { ...kept, onDiscard: (why) => notes.push(why) })
    }
    const save = async (): Promise<void> => {
      if (options.state !== undefined) await saveState(options.state, key, c.boundary === undefined ? null : c.stored, c.pruner?.state())
    }

    const list = b === undefined ? ms : [...b.head, ...(b.held === undefined ? [] : [b.held]), ...ms.slice(b.covered)]
    // the input index of each message of `list` (-1: the system prompt and summary of the boundary)
    const lead = b === undefined ? 0 : b.head.length + (b.held === undefined ? 0 : 1)
    const origin = (j: number): number => (b === undefined ? j : j < lead ? -1 : b.covered + j - lead)
    // the input index of a message of `list` by its id, for the receipt (none for the boundary's summary)
    let ids: Map<string, number> | undefined
    const indexOf = (id: string): number | undefined => {
      const j = (ids ??= new Map(list.map((m, k) => [m.id, k]))).get(id)
      return j === undefined || origin(j) < 0 ? undefined : origin(j)
    }
    // the pruner counts by the estimate: its limit is the window read back at the provider's ratio
    const pruned = c.pruner === undefined
      ? { messages: list, report: { prunedResults: 0, prunedArgs: 0 }, receipt: (): Receipt | undefined => undefined }
      : c.pruner.prune(list, { limit: Math.floor(limit / underRatioOf(c.anchor)) - fixed })
    const record = (sent: Messages, compaction: ContextRecord['compaction'], upTo: number, receipt?: Receipt): ContextRecord => ({
      limit,
      tokensBefore: before,
      tokensAfter: total(sent),
      prunedResults: pruned.report.prunedResults,
      prunedArgs: pruned.report.prunedArgs,
      summarisedUpTo: upTo,
      ...(notes.length === 0 ? {} : { notes }),
      receipt: recordReceiptOf(pruned.receipt(), receipt, indexOf),
      compaction,
    })
    if (total(pruned.messages) <= limit) {
      if (c.pruner !== undefined) await save()
      return { messages: pruned.messages, record: record(pruned.messages, null, b?.covered ?? 0), sent: sent(pruned.messages) }
    }

    // compaction: the head into a summary, the last user request kept as it is after it
    const xs = pruned.messages
    const sys = systemPrefix(xs)
    let u = xs.length - 1
    while (u >= sys && !isLastRequest(xs[u] as Message)) u--
    const request = u >= sys ? (xs[u] as Message) : undefined
    const keep = options.keepRecentTokens ?? Math.min(20_000, Math.floor(limit / 4))
    // each model call of the summariser (in every attempt), priced as this compaction's
    const { summarize, calls } = pricedSummarizer(options.summarize ?? extractiveSummarize, options.prices)
    const attempt = async (boundary: 'turn' | 'message', keepRecentTokens: number) => {
      const opts = {
        contextWindow: options.contextWindow,
        reserveTokens: reserve,
        fixedTokens: fixed,
        calibration: ratioOf(provider) * underRatioOf(c.anchor),
        summaryTokens: (options.summaryTokens ?? SUMMARY_ALLOWANCE) + (request === undefined ? 0 : count(request)),
        keepRecentTokens,
        boundary,
        ...estimateOpts,
      }
      const plan = planCompaction(opts)(xs)
      if (plan.head.length === 0) return undefined
      // a model summariser is sent the conversation's own prefix, read from the prompt cache
      const asSent = summaryRequestOf(xs, {
        cut: plan.cut,
        budget: options.contextWindow - INSTRUCTION_ALLOWANCE - (options.summaryTokens ?? SUMMARY_ALLOWANCE),
        fixed,
        count,
        tools: input.tools,
        ...(input.toolChoice === undefined ? {} : { toolChoice: input.toolChoice }),
      })
      const done = await compact({
        ...opts,
        summarize,
        ...(asSent === undefined ? {} : { request: asSent }),
      })(xs)
      const held = request !== undefined && u < plan.cut ? request : undefined
      const head = done.messages.slice(0, sys + 1)
      const sent = [...head, ...(held === undefined ? [] : [held]), ...done.messages.slice(sys + 1)]
      let first = plan.cut
      while (first < xs.length && origin(first) < 0) first++
      const covered = first < xs.length ? origin(first) : ms.length
      return { sent, head, held, covered, done }
    }
    let r = await attempt('turn', keep)
    if (r === undefined || total(r.sent) > limit) r = (await attempt('message', Math.floor(keep / 4))) ?? r
    if (r === undefined || total(r.sent) > limit) {
      const least = r === undefined ? total(xs) : total(r.sent)
      throw new ContextError(
        'too-large',
        `Cannot fit the request in the context window: ${least} tokens after pruning and compaction, over the limit of ${limit} (contextWindow ${options.contextWindow} − reserveTokens ${reserve})`,
        { calls },
      )
    }
    const last = ms[r.covered - 1]
    c.boundary = last === undefined || r.covered === 0 ? undefined : { head: r.head, held: r.held, covered: r.covered, last }
    c.stored = c.boundary === undefined ? null : storedBoundary(input.wire, c.boundary)
    if (c.boundary !== undefined || c.pruner !== undefined) await save()
    return {
      messages: r.sent,
      sent: sent(r.sent),
      record: record(
        r.sent,
        {
          from: b === undefined ? sys : b.covered,
          to: r.covered,
          messages: r.done.report.summarised,
          tokensBefore: total(xs),
          tokensAfter: total(r.sent),
          summaryTokens: r.done.report.summaryTokens,
          summary: summaryText(r.done.messages[sys]),
          ...(calls.length === 0 ? {} : { calls: [...calls] }),
        },
        r.covered,
        r.done.report.receipt,
      ),
    }
  }

  /**
   * Tells the conversation of a prompt sent the input tokens the provider counted for it: the
   * anchor of its next decisions. A conversation no longer remembered is not made again.
   */
  const report = (prompt: SentPrompt, inputTokens: number): void => {
    const c = conversations.get(prompt.key)
    if (c === undefined || !Number.isFinite(inputTokens) || inputTokens < 0) return
    c.anchor = anchorOf(prompt, counter(prompt.provider), inputTokens)
  }

  return { fit, report }
}

/**
 * The key of a conversation: the text of its first user message (what stays the same from step to
 * step of one conversation, and differs between conversations), with its length.
 */
export const conversationKeyOf = (wire: ReadonlyArray<{ readonly role: string; readonly content: unknown }>): string => {
  const first = wire.find((m) => m.role === 'user')
  if (first === undefined) return ''
  const content = first.content
  const text = typeof content === 'string'
    ? content
    : Array.isArray(content)
    ? content.map((p: unknown) => (isObject(p) && typeof p['text'] === 'string' ? p['text'] : '')).join('\n')
    : ''
  return `${text.length}:${text.slice(0, 2_000)}`
}
