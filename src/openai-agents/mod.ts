/**
 * `chatfold/openai-agents`: a session of the OpenAI Agents SDK (`@openai/agents`, an optional peer
 * dependency) kept in the chat store, in this process or through its HTTP API, and compacted by
 * tokens. Needs `@openai/agents` for its types only.
 *
 * @module
 */
import type { AgentInputItem, OpenAIResponsesCompactionArgs, OpenAIResponsesCompactionAwareSession, OpenAIResponsesCompactionResult } from '@openai/agents'
import type { ChatLog, ChatLogRead } from '../store/chat-log.ts'
import * as E from 'fp-ts/Either'
import { type JsonRecord, JsonRecordC } from '../internal/json.ts'
import { failureFromErrors, formatDecodeFailure } from '../message/failure.ts'
import { compact, type CompactionReport, type Summarizer } from '../compaction/compact.ts'
import { extractiveSummarize } from '../compaction/extractive.ts'
import { pricedSummarizer } from '../compaction/priced.ts'
import { openAICompaction, type OpenAICompactionOptions } from '../summarize/openai.ts'
import { shouldCompact } from '../compaction/plan.ts'
import type { PriceTable } from '../cost/price.ts'
import type { CallCostLine } from '../cost/call-cost.ts'
import { historyOfItems, itemIndexOf, itemsOfSummary } from './_items.ts'
import type { Messages } from '../message/message.ts'

export { type ChatLog, type ChatLogRead, type ChatLogRecord, httpChatLog, type HttpChatLogOptions, storeChatLog } from '../store/chat-log.ts'
export { readBackAgentTools } from './read-back-tools.ts'

/**
 * When and how a {@link chatStoreSession} compacts: once the stored history's tokens (estimated,
 * plus `fixedTokens` for the instructions and tools the agent sends) pass `contextWindow −
 * reserveTokens`. Who writes the summary: `summarize` when given; else, when the agent's `model` is
 * OpenAI's and the caller's `openai` client is given, the Responses API's own compaction
 * (`openAICompaction`, whose item becomes the history's boundary); else chatfold's
 * `extractiveSummarize`, offline.
 *
 * @since 0.1.0
 * @category integrations
 */
export type SessionCompactionOptions = {
  readonly contextWindow: number
  readonly reserveTokens?: number
  readonly fixedTokens?: number
  readonly keepRecentTokens?: number
  readonly summarize?: Summarizer
  /** The agent's model: an OpenAI model (`gpt-…`, `o…`, `codex-…`) with `openai` given compacts with the Responses API. */
  readonly model?: string
  /** The caller's OpenAI client, for the Responses API's compaction (`client.responses.compact`). */
  readonly openai?: OpenAICompactionOptions['client']
  /** Hears what each compaction did: what was summarised (its `receipt`), tokens before and after, what its summariser's calls cost. */
  readonly onCompaction?: (report: SessionCompactionReport) => void
  /** The price table of the summariser's calls (`PRICES` of `chatfold/cost` by default). */
  readonly prices?: PriceTable
}

/**
 * What a compaction of a {@link chatStoreSession} did: `compact`'s report (its `receipt` itemises
 * the items summarised, by history id `item-<index>-<n>`, the tool calls that left with them and
 * the artifacts only they held) and the modelled cost of each model call its summariser made
 * (`calls`: none for the offline summariser; a call whose model the price table lacks is named, its
 * `usd` null).
 *
 * @example
 * import type { SessionCompactionReport } from 'chatfold/openai-agents'
 * const line = (r: SessionCompactionReport) => `${r.receipt.summarised.length} items summarised for $${r.calls.reduce((a, c) => a + (c.usd ?? 0), 0).toFixed(4)}`
 *
 * @since 0.1.0
 * @category integrations
 */
export type SessionCompactionReport = CompactionReport & { readonly calls: ReadonlyArray<CallCostLine> }

/**
 * Options of {@link chatStoreSession}: the log (`storeChatLog(store)` or `httpChatLog({ url, token })`),
 * the session id (a new random one by default; it is the store's conversation id), and compaction.
 *
 * @since 0.1.0
 * @category integrations
 */
export type ChatStoreSessionOptions = {
  readonly log: ChatLog
  readonly sessionId?: string
  readonly compaction?: SessionCompactionOptions
}

/**
 * A session of the Agents SDK in the chat store: the SDK's `Session` (`getSessionId`, `getItems`,
 * `addItems`, `popItem`, `clearSession`) and its compaction hook (`runCompaction`, which the runner
 * calls after each turn), plus `history()` (the items as chatfold messages) and `compact()`.
 *
 * @since 0.1.0
 * @category integrations
 */
export type ChatStoreSession = OpenAIResponsesCompactionAwareSession & {
  /** The stored items as a chatfold history (one message per item, ids `item-<index>-<n>`). */
  readonly history: () => Promise<Messages>
  /** Compacts now, whatever the tokens; the report, or undefined when there was nothing to summarise or no compaction is configured. */
  readonly compact: () => Promise<SessionCompactionReport | undefined>
}

/**
 * Whether a model name is one of OpenAI's, whose Responses API compacts its own histories.
 *
 * @example
 * import { isOpenAIModel } from 'chatfold/openai-agents'
 * isOpenAIModel('gpt-5.4') // true
 * isOpenAIModel('claude-sonnet-4-5') // false
 *
 * @since 0.1.0
 * @category integrations
 */
export const isOpenAIModel = (model: string): boolean => /^(gpt-|o\d|codex-|chatgpt-|computer-use)/.test(model)

/** The summariser a compaction uses (see {@link SessionCompactionOptions}). */
const summarizerOf = (c: SessionCompactionOptions): Summarizer =>
  c.summarize ??
    (c.openai !== undefined && c.model !== undefined && isOpenAIModel(c.model) ? openAICompaction({ client: c.openai, model: c.model }) : extractiveSummarize)

/** How many times a compaction another writer overtook is computed again before it is left to the next turn. */
const COMPACTION_TRIES = 4

/** A change of the session: `add` one item (what earlier versions wrote, read still), `add-items` a batch as one record (whole or not at all), `pop`, `clear`, `replace` (a compaction). */
type Op =
  | { readonly op: 'add'; readonly item: AgentInputItem }
  | { readonly op: 'add-items'; readonly items: ReadonlyArray<AgentInputItem> }
  | { readonly op: 'pop' }
  | { readonly op: 'clear' }
  | { readonly op: 'replace'; readonly items: ReadonlyArray<AgentInputItem> }

const isOp = (u: JsonRecord): u is JsonRecord & Op =>
  u['op'] === 'add' || u['op'] === 'add-items' || u['op'] === 'pop' || u['op'] === 'clear' || u['op'] === 'replace'

/**
 * The items a session's records leave, in order. When the store has dropped the oldest records
 * (its `maxHistorySize`), the session is read from the first `clear` or compaction it still holds,
 * which makes what came before irrelevant; without one it cannot be read whole, and is refused.
 */
const fold = (read: ChatLogRead, sessionId: string): AgentInputItem[] => {
  const { records, from } = read
  const start = from === 0 ? 0 : records.findIndex((r) => r['op'] === 'clear' || r['op'] === 'replace')
  if (start < 0) {
    throw new Error(
      `Cannot read session ${
        JSON.stringify(sessionId)
      }: the store has dropped its first ${from} records (its maxHistorySize), and what it holds starts with no clear or compaction to read from`,
    )
  }
  let items: AgentInputItem[] = []
  records.slice(start).forEach((r, i) => {
    if (!isOp(r))
      throw new Error(`Cannot read session ${JSON.stringify(sessionId)}: record ${from + start + i} is not a session record (op: ${JSON.stringify(r['op'])})`)
    if (r.op === 'add') items.push(r.item)
    else if (r.op === 'add-items') items.push(...r.items)
    else if (r.op === 'pop') items.pop()
    else if (r.op === 'clear') items = []
    else items = [...r.items]
  })
  return items
}

/** A change as the record the log keeps; an item that is not JSON (the SDK persists items as JSON) is refused by path. */
const record = (op: Op): { readonly text: string; readonly data: JsonRecord } => {
  const data = JsonRecordC.decode(op)
  if (E.isLeft(data)) throw new Error(`Cannot store the session's ${op.op}: ${formatDecodeFailure(failureFromErrors(data.left))}`)
  const text = op.op === 'add'
    ? `item ${typeof op.item.type === 'string' ? op.item.type : 'message'}`
    : op.op === 'add-items'
    ? `${op.items.length} item${op.items.length === 1 ? '' : 's'}`
    : op.op
  return { text, data: data.right }
}

/**
 * A session of the OpenAI Agents SDK kept in the chat store. It behaves as the SDK's
 * `MemorySession`: `getItems(limit)` answers the last `limit` items in order (none for `limit <= 0`),
 * `popItem` the last one (removed), `clearSession` empties the session; items come back deep-equal
 * to what was added. The store being append-only, each change is a record of its conversation and
 * reading folds them. With `compaction`, `runCompaction` (called by the runner after each turn)
 * compacts once the history passes the window: the summary (or OpenAI's `compaction` item) then
 * stands for the items it replaced, and the recent items are kept as they were.
 *
 * @example
 * import { Agent, run } from '@openai/agents'
 * import { createChatStore } from 'chatfold/store'
 * import { chatStoreSession, storeChatLog } from 'chatfold/openai-agents'
 * declare const agent: Agent
 * const session = chatStoreSession({ log: storeChatLog(createChatStore({ maxHistorySize: Infinity })), compaction: { contextWindow: 128_000 } })
 * await run(agent, 'Hello', { session })
 *
 * @since 0.1.0
 * @category integrations
 */
export const chatStoreSession = (options: ChatStoreSessionOptions): ChatStoreSession => {
  const { log } = options
  const sessionId = options.sessionId ?? crypto.randomUUID()
  /** The items, the position a change made on them must take (the end of the log read), and the first position held. */
  const current = async (): Promise<{ readonly items: AgentInputItem[]; readonly end: number; readonly from: number }> => {
    const read = await log.read(sessionId)
    return { items: fold(read, sessionId), end: read.next ?? read.from + read.records.length, from: read.from }
  }
  /**
   * Commits a compaction computed from the records up to `end`: as the store's overlay when it
   * commits them (compare-and-append on the head), else as a record at `end`; false, nothing
   * kept, when another writer appended first.
   */
  const commitCompaction = (r: { readonly text: string; readonly data: JsonRecord }, from: number, end: number): Promise<boolean> =>
    log.compact !== undefined && end > from ? log.compact(sessionId, r, from, end - 1) : log.append(sessionId, [r], end)
  const items = async (): Promise<AgentInputItem[]> => (await current()).items
  const append = async (ops: ReadonlyArray<Op>): Promise<void> => {
    await log.append(sessionId, ops.map(record))
  }
  /** This session's changes, one after another: a pop or a compaction reads and writes without another change of its own in between. */
  let tail: Promise<unknown> = Promise.resolve()
  const inTurn = <A>(task: () => Promise<A>): Promise<A> => {
    const run = tail.then(task, task)
    tail = run.catch(() => undefined)
    return run
  }
  const compactNow = async (
    force: boolean,
    tries = COMPACTION_TRIES,
    spent: ReadonlyArray<CallCostLine> = [],
  ): Promise<SessionCompactionReport | undefined> => {
    const c = options.compaction
    if (c === undefined) return undefined
    const { items: stored, end, from } = await current()
    const history = historyOfItems(stored)
    const budget = { contextWindow: c.contextWindow, reserveTokens: c.reserveTokens ?? 0, fixedTokens: c.fixedTokens ?? 0 }
    if (!force && !shouldCompact(budget)(history)) return undefined
    // each model call of the summariser, priced as this compaction's (a try refused as stale included)
    const { summarize, calls: made } = pricedSummarizer(summarizerOf(c), c.prices)
    const r = await compact({ ...budget, summarize, ...(c.keepRecentTokens === undefined ? {} : { keepRecentTokens: c.keepRecentTokens }) })(history)
    const calls = [...spent, ...made]
    const report = { ...r.report, calls }
    if (!r.report.compacted) return report
    const kept = r.messages.map(itemIndexOf).filter((i): i is number => i !== undefined)
    const first = kept.length === 0 ? stored.length : Math.min(...kept)
    const summary = r.messages.filter((m) => itemIndexOf(m) === undefined)
    // only on the head the read ended at: items another writer added meanwhile are kept, and the compaction is computed again with them
    if (!(await commitCompaction(record({ op: 'replace', items: [...itemsOfSummary(summary), ...stored.slice(first)] }), from, end))) {
      return tries > 1 ? compactNow(force, tries - 1, calls) : undefined
    }
    c.onCompaction?.(report)
    return report
  }
  return {
    getSessionId: async () => sessionId,
    getItems: async (limit?: number) => {
      const all = await items()
      if (limit === undefined) return all
      return limit <= 0 ? [] : all.slice(Math.max(all.length - limit, 0))
    },
    // a batch is one record: stored whole or not at all
    addItems: async (added: AgentInputItem[]) => {
      if (added.length > 0) await inTurn(() => append([{ op: 'add-items', items: added }]))
    },
    popItem: () =>
      inTurn(async () => {
        // the pop takes the position where the read ended, so it removes the item it answers; read again when another writer came first
        for (;;) {
          const { items: all, end } = await current()
          const last = all[all.length - 1]
          if (last === undefined || (await log.append(sessionId, [record({ op: 'pop' })], end))) return last
        }
      }),
    clearSession: () => inTurn(() => append([{ op: 'clear' }])),
    runCompaction: async (args?: OpenAIResponsesCompactionArgs): Promise<OpenAIResponsesCompactionResult | null> => {
      await inTurn(() => compactNow(args?.force === true))
      return null
    },
    history: async () => historyOfItems(await items()),
    compact: () => inTurn(() => compactNow(true)),
  }
}
