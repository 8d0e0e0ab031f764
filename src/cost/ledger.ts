/**
 * The cost ledger of a history: each reply's recorded usage priced, summed per turn, model and
 * day, with what could not be priced named.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import type { Message, Messages } from '../message/message.ts'
import { isCompactionSummary } from '../message/compaction-mark.ts'
import { isObject } from '../internal/object.ts'
import type { UsageFigures } from '../tokens/recorded-usage.ts'
import { type Charge, chargeOf, type CostUsage, type MissingRateFailure } from './charge.ts'
import { priceOf } from './lookup.ts'
import type { Price, PriceTable } from './price.ts'
import { PRICES } from './prices.ts'

// --- ledger ---

/**
 * Why a reply's usage could not be priced: no model named (`no-model`), a model the table lacks
 * (`unpriced`), a rate its row lacks (`missing-rate`), or a `metadata.usage` not in the shape the
 * readers write (`malformed`). Each names the message.
 *
 * @example
 * import type { CostFailure } from 'chatfold/cost'
 * const f: CostFailure = { kind: 'unpriced', model: 'in-house-7b', messageId: 'a3' }
 *
 * @since 0.1.0
 * @category cost
 */
export type CostFailure =
  | { readonly kind: 'no-model'; readonly messageId: string }
  | { readonly kind: 'unpriced'; readonly model: string; readonly messageId: string }
  | (MissingRateFailure & { readonly messageId: string })
  | { readonly kind: 'malformed'; readonly messageId: string }

/**
 * One priced reply: its message, model, time, turn (0 before the first prompt), usage and charge.
 *
 * @example
 * import type { CostLine } from 'chatfold/cost'
 * const line: CostLine = { messageId: 'a1', model: 'claude-haiku-4-5', turn: 1, usage: { input: 10, output: 20, cacheRead: 0, cacheWrite: 0, reasoning: 0 }, charge: { input: 0.00001, output: 0.0001, cacheRead: 0, cacheWrite: 0, total: 0.00011, longContext: false } }
 *
 * @since 0.1.0
 * @category cost
 */
export type CostLine = {
  readonly messageId: string
  readonly model: string
  readonly createdAt?: string
  readonly turn: number
  readonly usage: CostUsage
  readonly charge: Charge
}

/**
 * A sum of replies: their count, usage figures and `cost` in USD (absent when none of them could
 * be priced), and how many could not be (`unpriced`, left out of `cost`).
 *
 * @example
 * import type { CostSum } from 'chatfold/cost'
 * const s: CostSum = { replies: 2, unpriced: 0, input: 20, output: 40, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0.00022 }
 *
 * @since 0.1.0
 * @category cost
 */
export type CostSum = UsageFigures & { readonly replies: number; readonly unpriced: number; readonly cost?: number }

/**
 * What {@link costLedger} found: the `total` in USD of every priced reply, each priced reply
 * (`lines`, in history order), the sums per model (in order of first use), per day (UTC, from
 * `createdAt`; `unknown` without one) and per turn, the replies that could not be priced
 * (`failures`: never counted as zero), the ids of replies left out as repeats of one already
 * counted (`duplicates`), and the date and sources of the prices used.
 *
 * @example
 * import { costLedger, type CostLedger } from 'chatfold/cost'
 * const line = (l: CostLedger) => `$${l.total.toFixed(4)} over ${l.lines.length} replies, ${l.failures.length} unpriced`
 *
 * @since 0.1.0
 * @category cost
 */
export type CostLedger = {
  readonly total: number
  readonly lines: ReadonlyArray<CostLine>
  readonly byModel: ReadonlyArray<CostSum & { readonly model: string }>
  readonly byDay: ReadonlyArray<CostSum & { readonly day: string }>
  readonly byTurn: ReadonlyArray<CostSum & { readonly turn: number; readonly messageId?: string }>
  readonly failures: ReadonlyArray<CostFailure>
  readonly duplicates: ReadonlyArray<string>
  readonly prices: { readonly taken: string; readonly sources: ReadonlyArray<string> }
}

/**
 * Options of {@link costLedger}: the price table (`PRICES` by default; extend it with `withPrices`).
 *
 * @example
 * import { PRICES, withPrices, type CostLedgerOptions } from 'chatfold/cost'
 * const opts: CostLedgerOptions = { prices: withPrices([{ model: 'in-house-7b', input: 0.1, output: 0.2 }])(PRICES) }
 *
 * @since 0.1.0
 * @category cost
 */
export type CostLedgerOptions = { readonly prices?: PriceTable }

const figure = (u: Readonly<Record<string, unknown>>, k: string, required: boolean): number | false => {
  const v = u[k]
  if (v === undefined) return required ? false : 0
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : false
}

/** `metadata.usage` as priced figures; `undefined` when absent, `false` when not in the readers' shape. */
const usageOf = (m: Message): CostUsage | undefined | false => {
  const u = m.metadata?.['usage']
  if (u === undefined) return undefined
  if (!isObject(u)) return false
  const [input, output, cacheRead, cacheWrite, reasoning, h1] = (['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning', 'cacheWrite1h'] as const).map((
    k,
    i,
  ) => figure(u, k, i < 2))
  if (input === undefined || output === undefined || cacheRead === undefined || cacheWrite === undefined || reasoning === undefined || h1 === undefined)
    return false
  if (input === false || output === false || cacheRead === false || cacheWrite === false || reasoning === false || h1 === false) return false
  return { input, output, cacheRead, cacheWrite, reasoning, ...(h1 === 0 ? {} : { cacheWrite1h: h1 }) }
}

const FREE: Charge = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0, longContext: false }

/** One reply's charge, or why it has none. */
const priceReply = (find: (model: string) => O.Option<Price>, m: Message, u: CostUsage): E.Either<CostFailure, Charge> => {
  if (u.input + u.output + u.cacheRead + u.cacheWrite === 0) return E.right(FREE)
  if (m.model === undefined) return E.left({ kind: 'no-model', messageId: m.id })
  const row = find(m.model)
  if (O.isNone(row)) return E.left({ kind: 'unpriced', model: m.model, messageId: m.id })
  const c = chargeOf(row.value)(u)
  return E.isLeft(c) ? E.left({ ...c.left, messageId: m.id }) : c
}

/** The key a reply is counted under once: the provider's request id when the reader kept one, else the message id. */
const keyOf = (m: Message): string => {
  const r = m.metadata?.['requestId']
  return typeof r === 'string' && r !== '' ? `request ${r}` : `message ${m.id}`
}

/** Whether a message opens a turn: a prompt of the main conversation that a person wrote. */
const opensTurn = (m: Message): boolean =>
  m.role === 'user' &&
  m.kind === 'normal' &&
  m.metadata?.['subagent'] === undefined &&
  m.metadata?.['origin'] === undefined &&
  !isCompactionSummary(m) &&
  m.parts.some((p) => p.type === 'text') &&
  !m.parts.some((p) => p.type === 'tool_result')

const dayOf = (createdAt: string | undefined): string => {
  const t = createdAt === undefined ? NaN : Date.parse(createdAt)
  return Number.isNaN(t) ? 'unknown' : new Date(t).toISOString().slice(0, 10)
}

type Acc = { replies: number; unpriced: number; input: number; output: number; cacheRead: number; cacheWrite: number; reasoning: number; cost?: number }
const zero = (): Acc => ({ replies: 0, unpriced: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
const add = (a: Acc, u: UsageFigures, cost: number | undefined): void => {
  a.replies++
  a.input += u.input
  a.output += u.output
  a.cacheRead += u.cacheRead
  a.cacheWrite += u.cacheWrite
  a.reasoning += u.reasoning
  if (cost === undefined) a.unpriced++
  else a.cost = (a.cost ?? 0) + cost
}
const bucket = <K>(map: Map<K, Acc>, k: K): Acc => {
  let a = map.get(k)
  if (a === undefined) map.set(k, a = zero())
  return a
}

/**
 * The cost of a history from the usage it records: each assistant reply's `metadata.usage` (as
 * the session readers, the adapters and the AI SDK middleware write it) priced by its model's row
 * (see `priceOf`, `chargeOf`), and summed per turn (a turn opens at each prompt a person wrote),
 * per model, per day and in total. A reply repeated in the history (the same provider request id,
 * `metadata.requestId`, or the same message id) is counted once and named in `duplicates`; a reply
 * whose usage is all zeros costs nothing whatever its model. A reply that cannot be priced (no
 * model, a model the table lacks, a rate its row lacks, a usage in an unknown shape) is named in
 * `failures` and left out of every cost, never priced at zero; its tokens still count in the sums.
 * Give the messages a compaction archived too (before the history) to price the whole session.
 *
 * @example
 * import { costLedger } from 'chatfold/cost'
 * import { makeMessage, text, textMessage } from 'chatfold/message'
 * const reply = makeMessage({ role: 'assistant', parts: [text('Hello!')], model: 'claude-haiku-4-5', metadata: { usage: { input: 1_000_000, output: 0 } } })
 * const other = makeMessage({ role: 'assistant', parts: [text('Hi.')], model: 'in-house-7b', metadata: { usage: { input: 10, output: 2 } } })
 * const ledger = costLedger({})([textMessage('user', 'Hi'), reply, other])
 * ledger.total // 1
 * ledger.failures.map((f) => f.kind) // ['unpriced']
 *
 * @since 0.1.0
 * @category cost
 */
export const costLedger = (opts: CostLedgerOptions) => (ms: Messages): CostLedger => {
  const table = opts.prices ?? PRICES
  const find = priceOf(table)
  const lines: CostLine[] = []
  const failures: CostFailure[] = []
  const duplicates: string[] = []
  const seen = new Set<string>()
  const models = new Map<string, Acc>()
  const days = new Map<string, Acc>()
  const turns = new Map<number, Acc & { messageId?: string }>()
  let turn = 0
  let total = 0
  for (const m of ms) {
    if (opensTurn(m)) {
      turn++
      turns.set(turn, { ...zero(), messageId: m.id })
    }
    if (m.role !== 'assistant' || m.kind === 'metadata' || m.kind === 'bookmark') continue
    const u = usageOf(m)
    if (u === undefined) continue
    const key = keyOf(m)
    if (seen.has(key)) {
      duplicates.push(m.id)
      continue
    }
    seen.add(key)
    if (u === false) {
      failures.push({ kind: 'malformed', messageId: m.id })
      continue
    }
    const priced = priceReply(find, m, u)
    const cost = E.isRight(priced) ? priced.right.total : undefined
    const model = m.model ?? 'unknown'
    if (E.isLeft(priced)) failures.push(priced.left)
    else {
      total += priced.right.total
      lines.push({ messageId: m.id, model, ...(m.createdAt === undefined ? {} : { createdAt: m.createdAt }), turn, usage: u, charge: priced.right })
    }
    add(bucket(models, model), u, cost)
    add(bucket(days, dayOf(m.createdAt)), u, cost)
    add(bucket(turns, turn), u, cost)
  }
  return {
    total,
    lines,
    byModel: [...models].map(([model, a]) => ({ model, ...a })),
    byDay: [...days].sort(([a], [b]) => a.localeCompare(b)).map(([day, a]) => ({ day, ...a })),
    byTurn: [...turns].filter(([, a]) => a.replies > 0).map(([n, a]) => ({ ...a, turn: n })),
    failures,
    duplicates,
    prices: { taken: table.taken, sources: table.sources },
  }
}
