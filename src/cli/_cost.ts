/**
 * `chatfold stats --cost`: the cost ledger of a session file (every branch, what a compaction
 * archived and a Claude Code session's sub-agent transcripts, as billed), by model and by day, or as JSON.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { failureFromErrors, formatDecodeFailure } from '../message/failure.ts'
import { type CostLedger, costLedger, type CostSum } from '../cost/ledger.ts'
import { PRICES } from '../cost/prices.ts'
import { PriceC, type PriceTable, PriceTableC } from '../cost/price.ts'
import { withPrices } from '../cost/lookup.ts'
import * as t from 'io-ts'
import { parseJsonText } from '../internal/json.ts'
import { existsSync, readdirSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { type Loaded, loadHistory, loadOptions, readText } from './_load.ts'
import { type Common } from './_common.ts'
import { CliError, EXIT } from './_exit.ts'
import { grouped } from '../internal/number.ts'

/**
 * The price table of `--prices FILE`: a JSON array of rows (or a whole table, `{ taken, sources,
 * prices }`), each replacing the built-in row of its model or adding one; the built-in table alone
 * without the option.
 */
export const pricesFrom = (file: string | undefined): PriceTable => {
  if (file === undefined) return PRICES
  const json = parseJsonText(readText(file))
  if (E.isLeft(json)) throw new CliError(EXIT.input, `${file}: not JSON: ${json.left}`)
  const rows = Array.isArray(json.right) ? t.readonlyArray(PriceC).decode(json.right) : E.map((x: PriceTable) => x.prices)(PriceTableC.decode(json.right))
  if (E.isLeft(rows)) throw new CliError(EXIT.input, `${file}: not a list of prices:\n${formatDecodeFailure(failureFromErrors(rows.left))}`)
  return withPrices(rows.right)(PRICES)
}

/** A Claude Code session's sub-agent transcripts (`SESSION/subagents/agent-*.jsonl`), none for another file. */
const agentFiles = (file: string): string[] => {
  const dir = join(dirname(file), basename(file, '.jsonl'), 'subagents')
  return file.endsWith('.jsonl') && existsSync(dir) ? readdirSync(dir).filter((n) => /^agent-.*\.jsonl$/.test(n)).sort().map((n) => join(dir, n)) : []
}

/**
 * The cost of everything a file records as billed: its archive, every branch, and for a Claude Code
 * session each sub-agent transcript read on its own, so that a run the session links to no call (a
 * compaction's summariser, `agent-acompact-*`) is priced too; the messages of a run the session
 * links (read inline already, with the same ids) are not taken twice.
 */
export const billedLedger = (file: string, o: Common & { readonly prices?: string | undefined }, h: Loaded): CostLedger => {
  const all = o.allBranches === true ? h : loadHistory(file, { ...loadOptions(o), branches: 'all' })
  const known = new Set(all.messages.map((m) => m.id))
  const agents = h.format === 'claude-code'
    ? agentFiles(file).flatMap((f) => loadHistory(f, { ...loadOptions(o), branches: 'all' }).messages.filter((m) => !known.has(m.id)))
    : []
  return costLedger({ prices: pricesFrom(o.prices) })([...all.archive, ...all.messages, ...agents])
}

const usd = (n: number | undefined): string => (n === undefined ? '—' : n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`)

const table = (title: string, rows: ReadonlyArray<readonly [string, CostSum]>): string[] => {
  const cols = ['replies', 'input', 'output', 'cache read', 'cache write', 'cost']
  const width = Math.max(5, ...rows.map(([k]) => k.length))
  const line = (name: string, xs: ReadonlyArray<string>): string =>
    `  ${name.padEnd(width)} ${xs.map((x, i) => x.padStart(Math.max(9, (cols[i] as string).length))).join(' ')}`
  const cells = (
    s: CostSum,
  ): string[] => [
    grouped(s.replies),
    grouped(s.input),
    grouped(s.output),
    grouped(s.cacheRead),
    grouped(s.cacheWrite),
    `${usd(s.cost)}${s.unpriced > 0 ? '*' : ''}`,
  ]
  return [title, line('', cols), ...rows.map(([k, s]) => line(k, cells(s)))]
}

/** The ledger as lines for a person: the total, by model, by day, what could not be priced. */
export const costLines = (l: CostLedger): string[] => {
  const unpriced = [
    ...new Set(l.failures.map((f) => (f.kind === 'unpriced' ? f.model : f.kind === 'missing-rate' ? `${f.model} (no ${f.rate} rate)` : f.kind))),
  ]
  return [
    `cost: ${usd(l.total)} over ${grouped(l.lines.length)} priced replies (prices of ${l.prices.taken}${
      l.duplicates.length > 0 ? `; ${grouped(l.duplicates.length)} repeated replies counted once` : ''
    })`,
    ...table('cost by model:', l.byModel.map((m) => [m.model, m] as const)),
    ...table('cost by day (UTC):', l.byDay.map((d) => [d.day, d] as const)),
    ...(l.failures.length === 0 ? [] : [
      `  * not priced, left out of the cost (never counted as zero): ${grouped(l.failures.length)} replies: ${
        unpriced.join(', ')
      }; add their prices with --prices FILE`,
    ]),
  ]
}

/** The ledger as JSON: `total` and `byModel` (and `byDay`) keyed by name, each reply's cost, what could not be priced. */
export const costJson = (l: CostLedger) => ({
  total: l.total,
  byModel: Object.fromEntries(l.byModel.map(({ model, ...s }) => [model, s])),
  byDay: Object.fromEntries(l.byDay.map(({ day, ...s }) => [day, s])),
  byTurn: l.byTurn,
  messages: l.lines.map((x) => ({
    id: x.messageId,
    model: x.model,
    ...(x.createdAt === undefined ? {} : { createdAt: x.createdAt }),
    turn: x.turn,
    cost: x.charge.total,
  })),
  unpriced: l.failures,
  duplicates: l.duplicates,
  prices: l.prices,
})
