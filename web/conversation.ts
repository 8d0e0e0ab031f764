/**
 * The explorer's conversation view: the history as the HTML transcript (`chatfold render --format
 * html`'s page), in a sandboxed frame that runs no script and loads nothing: each turn with the
 * tokens its replies report and what they cost, tool calls with their results (images shown), and
 * each compaction's and prune's receipt where it happened (those the file recorded read from what
 * they archived).
 */
import type { Messages } from '../src/message/message.ts'
import type { Receipt } from '../src/history/receipt.ts'
import { renderHtmlWith } from '../src/history/render-html.ts'

/**
 * How many messages the view renders at most: the page is rendered on the page's thread, 2,000
 * messages in about 150 ms and 5 MB of HTML, which held its frames too long.
 */
export const CONVERSATION_MESSAGES = 600

/** A receipt as the page keeps it: a compaction's at its summary, a prune's by the outputs it cleared. */
export type PageReceipt = { readonly receipt: Receipt; readonly summaryId?: string }

/** Renders the start of the history into the frame; answers the note that says how much of it is shown. */
export const showConversation = (frame: HTMLIFrameElement, ms: Messages, title: string, receipts: ReadonlyArray<PageReceipt>, archive: Messages): string => {
  const shown = ms.length > CONVERSATION_MESSAGES ? ms.slice(0, CONVERSATION_MESSAGES) : ms
  frame.srcdoc = renderHtmlWith({ title, receipts, archive })(shown)
  return shown.length < ms.length
    ? `(the first ${shown.length.toLocaleString('en')} of ${ms.length.toLocaleString('en')} messages)`
    : `(${ms.length.toLocaleString('en')} messages)`
}
