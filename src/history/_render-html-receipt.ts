/**
 * A compaction's receipt on the HTML page, at the summary where it happened: the messages it
 * summarised and archived, the tool calls that left with them, the tool results it cleared, and
 * the artifact ledger the summary keeps (private).
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import { isCompactionSummary } from '../message/compaction-mark.ts'
import { isObject } from '../internal/object.ts'
import { grouped } from '../internal/number.ts'
import { type ArtifactLedger, ledgerMinus } from './artifact-ledger.ts'
import { artifactLedger, carriedLedger } from './ledger.ts'
import type { ClearedOutput, Receipt } from './receipt.ts'
import { escapeHtml as esc } from './_render-html-text.ts'

/** How many ids, calls or artifacts a list shows before it says how many more there are. */
const SHOWN = 40

const list = <A>(items: ReadonlyArray<A>, item: (a: A) => string): string =>
  `<ul>${items.slice(0, SHOWN).map((a) => `<li>${item(a)}</li>`).join('')}${
    items.length > SHOWN ? `<li class="more">and ${grouped(items.length - SHOWN)} more</li>` : ''
  }</ul>`

const section = (cls: string, title: string, n: number, body: string): string =>
  n === 0 ? '' : `<div class="${cls}"><div class="head">${esc(title)} <span class="n">${grouped(n)}</span></div>${body}</div>`

/** Short items on one wrapped line, the first `SHOWN` of them. */
const inline = <A>(xs: ReadonlyArray<A>, item: (a: A) => string): string =>
  `<p class="ids">${xs.slice(0, SHOWN).map(item).join(' ')}${xs.length > SHOWN ? ` <span class="more">and ${grouped(xs.length - SHOWN)} more</span>` : ''}</p>`

/** Ids (or paths) on one wrapped line. */
const ids = (xs: ReadonlyArray<string>): string => inline(xs, (id) => `<code>${esc(id)}</code>`)

/** A cleared tool output: the tool, its call, and its tokens before and after. */
export const clearedLine = (c: ClearedOutput): string =>
  `<span class="tool-name">${esc(c.tool === '' ? 'tool' : c.tool)}</span> <code>${esc(c.toolCallId)}</code> ${
    c.part === 'arguments' ? 'arguments cut' : 'result cleared'
  }: ${grouped(c.tokensBefore)} → ${grouped(c.tokensAfter)} tokens`

/** The artifact ledger as lists: files read, written, edited; commands with their status; errors; the user's instructions. */
export const ledgerHtml = (l: ArtifactLedger): string => {
  const files = (title: string, cls: string, ps: ReadonlyArray<string>) => section(`ledger-${cls}`, title, ps.length, ids(ps))
  return [
    files('Files read', 'read', l.read),
    files('Files written', 'written', l.written),
    files('Files edited', 'edited', l.edited),
    section(
      'ledger-commands',
      'Commands',
      l.commands.length,
      list(
        l.commands,
        (c) =>
          `<code>${esc(c.command)}</code> <span class="status ${c.status}">${esc(c.status)}${c.exitCode === undefined ? '' : ` (exit ${c.exitCode})`}</span>`,
      ),
    ),
    section('ledger-errors', 'Errors', l.errors.length, list(l.errors, (e) => `<span class="tool-name">${esc(e.tool)}</span> ${esc(e.preview)}`)),
    section(
      'ledger-instructions',
      "The user's instructions",
      l.instructions.length,
      list(l.instructions, (i) => esc(i.text.length > 300 ? `${i.text.slice(0, 299)}…` : i.text)),
    ),
  ].join('')
}

/**
 * The receipt of the compaction that wrote `summary`: from `receipt` when the compaction's own
 * report is given, else what the summary records (how many messages it replaced, through which);
 * and the artifact ledger the summary keeps in `metadata.ledger` (or, without one, the receipt's
 * artifacts that appear only in what left).
 */
export const receiptHtml = (summary: Message, receipt: Receipt | undefined): string => {
  const info = summary.metadata?.['compaction']
  const count = receipt?.summarised.length ?? (isObject(info) && typeof info['summarised'] === 'number' ? info['summarised'] : undefined)
  const through = isObject(info) && typeof info['through'] === 'string' ? info['through'] : undefined
  const ledger = carriedLedger(summary)
  const parts: string[] = []
  if (receipt === undefined) {
    if (count !== undefined)
      parts.push(
        `<div class="receipt-summarised"><div class="head">Summarised <span class="n">${grouped(count)}</span></div><p>${grouped(count)} earlier message${
          count === 1 ? '' : 's'
        }${through === undefined ? '' : `, through <code>${esc(through)}</code>`}</p></div>`,
      )
  } else {
    parts.push(section('receipt-summarised', 'Summarised', receipt.summarised.length, ids(receipt.summarised)))
    parts.push(section('receipt-archived', 'Archived', receipt.archived.length, ids(receipt.archived)))
    parts.push(
      section(
        'receipt-calls',
        'Tool calls that left',
        receipt.toolCalls.length,
        inline(receipt.toolCalls, (c) => `<code><span class="tool-name">${esc(c.name)}</span> ${esc(c.id)}</code>`),
      ),
    )
    parts.push(section('receipt-cleared', 'Tool results cleared', receipt.cleared.length, list(receipt.cleared, clearedLine)))
  }
  const trail = ledger ?? receipt?.artifacts
  const trailHtml = trail === undefined ? '' : ledgerHtml(trail)
  if (trailHtml !== '')
    parts.push(
      `<div class="ledger"><div class="head">${
        ledger === undefined ? 'Artifacts only in what left' : 'Artifact ledger (kept with the summary)'
      }</div>${trailHtml}</div>`,
    )
  const body = parts.join('')
  if (body === '') return ''
  const facts = [
    ...(count === undefined ? [] : [`${grouped(count)} summarised`]),
    ...(receipt === undefined || receipt.toolCalls.length === 0 ? [] : [`${grouped(receipt.toolCalls.length)} tool calls`]),
    ...(receipt === undefined || receipt.cleared.length === 0 ? [] : [`${grouped(receipt.cleared.length)} results cleared`]),
    ...(trail === undefined ? [] : [`${trail.read.length + trail.written.length + trail.edited.length} files, ${trail.commands.length} commands`]),
  ]
  return `<details class="receipt" open><summary>Receipt · ${esc(facts.join(' · '))}</summary>${body}</details>`
}

/**
 * The receipts of the compactions a history file recorded, read from what they archived (a
 * session reader's `archive`, in order): each summary's `metadata.compaction.through` names the
 * last message it replaced, so its messages are the archive's from the one after the previous
 * summary's last up to it; their tool calls, and the artifacts only they hold. A summary whose
 * `through` is not in the archive has none.
 */
export const archiveReceipts = (archive: Messages, ms: Messages): ReadonlyMap<string, Receipt> => {
  const out = new Map<string, Receipt>()
  if (archive.length === 0) return out
  const index = new Map<string, number>()
  archive.forEach((m, i) => index.set(m.id, i))
  let kept: ArtifactLedger | undefined
  let from = 0
  for (const m of ms) {
    if (!isCompactionSummary(m)) continue
    const info = m.metadata?.['compaction']
    const end = isObject(info) && typeof info['through'] === 'string' ? index.get(info['through']) : undefined
    if (end === undefined || end < from) continue
    const left = archive.slice(from, end + 1)
    from = end + 1
    kept ??= artifactLedger(ms)
    out.set(m.id, {
      summarised: left.map((x) => x.id),
      archived: [],
      toolCalls: left.flatMap((x) => x.parts.flatMap((p) => (p.type === 'tool_call' ? [{ id: p.id, name: p.name }] : []))),
      cleared: [],
      artifacts: ledgerMinus(kept)(artifactLedger(left)),
    })
  }
  return out
}
