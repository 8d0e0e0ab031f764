/**
 * The explorer's conversation view: the history as the HTML transcript (`chatfold render --format
 * html`'s page), in a sandboxed frame that runs no script and loads nothing: each turn with the
 * tokens its replies report and what they cost, tool calls with their results (images shown), and
 * each compaction's and prune's receipt where it happened; with the cost of the whole history.
 */
import { costLedger } from '../src/cost/ledger.ts'
import type { Messages } from '../src/message/message.ts'
import type { Receipt } from '../src/history/receipt.ts'
import { renderHtmlWith } from '../src/history/render-html.ts'

/** How many messages the view renders at most (the page of a longer history would take long to lay out). */
export const CONVERSATION_MESSAGES = 2_000

/** A receipt as the page keeps it: a compaction's at its summary, a prune's by the outputs it cleared. */
export type PageReceipt = { readonly receipt: Receipt; readonly summaryId?: string }

const usd = (n: number): string => (n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`)

/**
 * The cost of the whole history as one line: the total priced, by model, and every model the price
 * table cannot price, named (never counted as nothing); empty when no reply records its usage.
 */
export const costLine = (ms: Messages): string => {
  const l = costLedger({})(ms)
  const priced = l.byModel.flatMap((m) => (m.cost === undefined || m.input + m.output + m.cacheRead + m.cacheWrite === 0 ? [] : [`${m.model} ${usd(m.cost)}`]))
  const unpriced = [...new Set(l.failures.map((f) => ('model' in f ? f.model : f.kind === 'no-model' ? 'no model named' : 'unknown usage')))]
  if (priced.length === 0 && unpriced.length === 0) return ''
  return [
    ...(priced.length === 0 ? [] : [`cost ${usd(l.total)} (${priced.join(', ')})`]),
    ...(unpriced.length === 0 ? [] : [`unpriced: ${unpriced.join(', ')}`]),
    `prices of ${l.prices.taken}`,
  ].join(' · ')
}

/** Renders the start of the history into the frame; answers the note that says how much of it is shown. */
export const showConversation = (frame: HTMLIFrameElement, ms: Messages, title: string, receipts: ReadonlyArray<PageReceipt>): string => {
  const shown = ms.length > CONVERSATION_MESSAGES ? ms.slice(0, CONVERSATION_MESSAGES) : ms
  frame.srcdoc = renderHtmlWith({ title, receipts })(shown)
  return shown.length < ms.length
    ? `(the first ${shown.length.toLocaleString('en')} of ${ms.length.toLocaleString('en')} messages)`
    : `(${ms.length.toLocaleString('en')} messages)`
}
