/**
 * What each reply of a history cost, for the HTML page: the cost ledger (`costLedger`) read back by
 * message, summed with the tokens the replies report per turn of the page, with a reply the price table cannot price named, never
 * shown as costing nothing (private).
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import { costLedger } from '../cost/ledger.ts'
import type { PriceTable } from '../cost/price.ts'
import { isObject } from '../internal/object.ts'
import { grouped } from '../internal/number.ts'
import { startsTurn } from './_turn.ts'
import { escapeHtml as esc } from './_render-html-text.ts'

/**
 * One reply's cost: priced (USD), or why not: a model the table lacks, a rate its row lacks, no
 * model named, a usage in an unknown shape, or a repeat of a reply counted already.
 */
export type ReplyCost =
  | { readonly kind: 'priced'; readonly usd: number }
  | { readonly kind: 'unpriced'; readonly model: string }
  | { readonly kind: 'missing-rate'; readonly model: string; readonly rate: string }
  | { readonly kind: 'no-model' }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'repeat' }

/** The costs of a history's replies by message id, their total, the models left unpriced, and the day of the prices. */
export type CostView = {
  readonly byMessage: ReadonlyMap<string, ReplyCost>
  readonly total: number
  readonly priced: number
  readonly unpriced: ReadonlyArray<string>
  readonly taken: string
}

/** The cost of each reply of `ms` by the price table (see `costLedger`). */
export const costView = (prices: PriceTable | undefined) => (ms: Messages): CostView => {
  const ledger = costLedger(prices === undefined ? {} : { prices })(ms)
  const byMessage = new Map<string, ReplyCost>()
  // a reply that records no token cost nothing and says nothing (a tool's own note, such as Claude Code's `<synthetic>`)
  const priced = ledger.lines.filter((l) => l.usage.input + l.usage.output + l.usage.cacheRead + l.usage.cacheWrite > 0)
  for (const l of priced) byMessage.set(l.messageId, { kind: 'priced', usd: l.charge.total })
  const unpriced: string[] = []
  for (const f of ledger.failures) {
    if (f.kind === 'unpriced' || f.kind === 'missing-rate') { if (!unpriced.includes(f.model)) unpriced.push(f.model) }
    if (f.kind === 'no-model' && !unpriced.includes('no model named')) unpriced.push('no model named')
    byMessage.set(
      f.messageId,
      f.kind === 'unpriced'
        ? { kind: 'unpriced', model: f.model }
        : f.kind === 'missing-rate'
        ? { kind: 'missing-rate', model: f.model, rate: f.rate }
        : { kind: f.kind },
    )
  }
  for (const id of ledger.duplicates) if (!byMessage.has(id)) byMessage.set(id, { kind: 'repeat' })
  return { byMessage, total: ledger.total, priced: priced.length, unpriced, taken: ledger.prices.taken }
}

/** Dollars as a person reads them: cents from a dollar up, four places below (`$0.0042`), two significant figures below that. */
export const money = (usd: number): string =>
  usd === 0 ? '$0' : usd >= 1 ? `$${usd.toFixed(2)}` : usd >= 0.0001 ? `$${usd.toFixed(4)}` : `$${usd.toPrecision(2)}`

/** A reply's cost as shown beside its tokens. */
export const costLabel = (c: ReplyCost): string =>
  c.kind === 'priced'
    ? money(c.usd)
    : c.kind === 'unpriced'
    ? `unpriced: ${c.model} is not in the price table`
    : c.kind === 'missing-rate'
    ? `unpriced: ${c.model} has no ${c.rate} rate`
    : c.kind === 'no-model'
    ? 'unpriced: no model named'
    : c.kind === 'malformed'
    ? 'unpriced: usage in an unknown shape'
    : 'counted once, above'

/** A sum of reply costs: the dollars of those priced, and the models (or reasons) of those not. */
export type CostSum = { usd: number; priced: number; unpriced: string[] }

/** An empty sum. */
export const noCost = (): CostSum => ({ usd: 0, priced: 0, unpriced: [] })

/** Adds a message's cost (if it has one) to a sum. */
export const addCost = (sum: CostSum, view: CostView, m: Message): void => {
  const c = view.byMessage.get(m.id)
  if (c === undefined || c.kind === 'repeat') return
  if (c.kind === 'priced') {
    sum.usd += c.usd
    sum.priced++
    return
  }
  const what = c.kind === 'unpriced' || c.kind === 'missing-rate' ? c.model : c.kind === 'no-model' ? 'no model named' : 'unknown usage'
  if (!sum.unpriced.includes(what)) sum.unpriced.push(what)
}

/** A sum as shown: `$0.0123`, with what could not be priced named (`$0.0123 + unpriced: in-house-7b`); empty when there is nothing. */
export const sumLabel = (s: CostSum): string => {
  const un = s.unpriced.length === 0 ? '' : `unpriced: ${s.unpriced.join(', ')}`
  if (s.priced === 0) return un
  return un === '' ? money(s.usd) : `${money(s.usd)} + ${un}`
}

/** Recorded usage and cost summed over a turn. */
export type TurnSum = { input: number; output: number; cacheRead: number; cacheWrite: number; cost: CostSum }

/** The usage and cost of each turn of the page (the turns the page numbers, sub-conversations counted in the turn they belong to). */
export const turnSums = (ms: Messages, cost: CostView, nested: (m: Message) => boolean): ReadonlyArray<TurnSum> => {
  const sums: TurnSum[] = []
  let at: TurnSum | undefined
  for (const m of ms) {
    if (!nested(m) && startsTurn(m)) sums.push(at = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: noCost() })
    if (at === undefined || cost.byMessage.get(m.id)?.kind === 'repeat') continue
    const u = m.metadata?.['usage']
    if (m.role === 'assistant' && isObject(u)) {
      for (const k of ['input', 'output', 'cacheRead', 'cacheWrite'] as const) if (typeof u[k] === 'number' && Number.isFinite(u[k])) at[k] += u[k]
    }
    addCost(at.cost, cost, m)
  }
  return sums
}

/** A turn's label: its number, and the tokens its replies report with what they cost. */
export const turnLabel = (n: number, s: TurnSum | undefined): string => {
  const cost = s === undefined ? '' : sumLabel(s.cost)
  const tokens = s === undefined || s.input + s.output + s.cacheRead + s.cacheWrite === 0 ? '' : [
    `in ${grouped(s.input)}`,
    `out ${grouped(s.output)}`,
    ...(s.cacheRead === 0 ? [] : [`cache read ${grouped(s.cacheRead)}`]),
    ...(s.cacheWrite === 0 ? [] : [`cache write ${grouped(s.cacheWrite)}`]),
  ].join(' · ')
  return `<div class="turn-label">Turn ${n}${tokens === '' ? '' : ` <span class="turn-usage">${esc(tokens)}</span>`}${
    cost === '' ? '' : ` <span class="turn-cost${s?.cost.unpriced.length === 0 ? '' : ' unpriced'}">${esc(cost)}</span>`
  }</div>`
}
