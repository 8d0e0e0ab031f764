/**
 * A history as one self-contained HTML page for a person to read: turns with their times and
 * models, tool calls folded with their results, reasoning folded, sub-conversations nested under
 * the call that started them, compactions marked, images shown. The page needs no network: its
 * style is inline, it has no script and no external font, images are `data:` URLs, and a
 * Content-Security-Policy forbids loading anything else. Every piece of the history is escaped.
 *
 * @module
 */
import { toolResultBlockLabel } from '../message/tool-result-content.ts'
import * as E from 'fp-ts/Either'
import type { Message, Messages } from '../message/message.ts'
import type { FilePart, ImagePart, Part, ToolCallPart, ToolResultPart } from '../message/part-model.ts'
import { encodeBase64 } from '../internal/base64.ts'
import { isObject } from '../internal/object.ts'
import { parseJsonText } from '../internal/json.ts'
import { grouped } from '../internal/number.ts'
import { isCompactionSummary } from '../message/compaction-mark.ts'
import { startsTurn } from './_turn.ts'
import { HTML_STYLE } from './_render-html-style.ts'
import { escapeHtml as esc, textHtml } from './_render-html-text.ts'
import { costLabel, type CostView, costView, money, turnLabel, turnSums } from './_render-html-cost.ts'
import { archiveReceipts, clearedLine, receiptHtml } from './_render-html-receipt.ts'
import type { ClearedOutput, Receipt } from './receipt.ts'
import type { PriceTable } from '../cost/price.ts'

// --- helpers ---

const TITLES = { system: 'System', user: 'User', assistant: 'Assistant', tool: 'Tool' } as const

const textOf = (m: Message, type: 'text' | 'reasoning'): string =>
  m.parts
    .flatMap((p) => (p.type === type && !(p.type === 'reasoning' && p.redacted === true) ? [p.text] : []))
    .join('\n')
    .trim()

/** `2026-03-02T10:00:09.000Z` as `10:00:09`, with the day when it is not the one shown before. */
const clock = (iso: string, day: { last: string }): string => {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/.exec(iso)
  if (m === null) return iso
  const d = m[1] as string
  const shown = d === day.last ? (m[2] as string) : `${d} ${m[2] as string}`
  day.last = d
  return `${shown} UTC`
}

const subagentOf = (m: Message): { readonly toolCallId: string; readonly agentId?: string } | undefined => {
  const s = m.metadata?.['subagent']
  return isObject(s) && typeof s['toolCallId'] === 'string'
    ? { toolCallId: s['toolCallId'], ...(typeof s['agentId'] === 'string' ? { agentId: s['agentId'] } : {}) }
    : undefined
}

const originOf = (m: Message): string | undefined => {
  const o = m.metadata?.['origin']
  return typeof o === 'string' ? o : undefined
}

const usageLine = (m: Message, ctx: Ctx): string => {
  const u = m.metadata?.['usage']
  const c = ctx.cost.byMessage.get(m.id)
  const cost = c === undefined
    ? ''
    : ` <span class="cost${c.kind === 'priced' ? '' : ' unpriced'}" title="cost by the price table of ${esc(ctx.cost.taken)}">${esc(costLabel(c))}</span>`
  if (!isObject(u)) return cost
  const n = (k: string): number | undefined => (typeof u[k] === 'number' && Number.isFinite(u[k]) ? (u[k] as number) : undefined)
  const bits = [['in', n('input')], ['out', n('output')], ['cache read', n('cacheRead')], ['cache write', n('cacheWrite')]].flatMap(([label, v]) =>
    v === undefined || (v === 0 && label !== 'in' && label !== 'out') ? [] : [`${label as string} ${grouped(v as number)}`]
  )
  return `${bits.length === 0 ? '' : `<span class="usage" title="tokens as reported">${esc(bits.join(' · '))}</span>`}${cost}`
}

/** The media type of image bytes from their first bytes, for bytes stored without one. */
const sniff = (b: Uint8Array): string | undefined =>
  b[0] === 0x89 && b[1] === 0x50
    ? 'image/png'
    : b[0] === 0xff && b[1] === 0xd8
    ? 'image/jpeg'
    : b[0] === 0x47 && b[1] === 0x49
    ? 'image/gif'
    : b[8] === 0x57 && b[9] === 0x45
    ? 'image/webp'
    : undefined

const SAFE_IMAGE = /^image\/(?:png|jpeg|gif|webp|avif|bmp|svg\+xml)$/

const media = (p: ImagePart | FilePart): string => {
  if (p.type === 'image' && p.data !== undefined) {
    const type = p.mediaType ?? sniff(p.data)
    if (type !== undefined && SAFE_IMAGE.test(type))
      return `<img alt="image (${esc(type)}, ${p.data.length} bytes)" src="data:${type};base64,${encodeBase64(p.data)}">`
  }
  if (p.type === 'image' && p.url !== undefined && /^data:image\/(?:png|jpeg|gif|webp|avif|bmp|svg\+xml)[;,]/i.test(p.url))
    return `<img alt="image" src="${esc(p.url)}">`
  const what = p.type === 'image' ? 'image' : `file${p.filename === undefined ? '' : ` ${p.filename}`}`
  // a link loads nothing until followed; the page itself fetches nothing
  if (p.url !== undefined && /^https?:/i.test(p.url))
    return `<p class="media"><a href="${esc(p.url)}" rel="noreferrer noopener">${esc(`${what}: ${p.url}`)}</a></p>`
  const size = p.data === undefined ? '' : `, ${p.data.length} bytes`
  return `<p class="media">${esc(`[${what}: ${p.mediaType ?? 'inline'}${size}]`)}</p>`
}

const prettyArguments = (raw: string): string => {
  const v = parseJsonText(raw)
  return E.isRight(v) ? JSON.stringify(v.right, null, 2) : raw
}

/** A short view of a call's arguments for its folded line: the first string argument, or the JSON. */
const preview = (raw: string): string => {
  let s = raw
  // not JSON: shown as it is
  const v = parseJsonText(raw)
  if (E.isRight(v) && isObject(v.right)) {
    const first = Object.values(v.right).find((x) => typeof x === 'string')
    s = typeof first === 'string' ? first : raw
  }
  const line = s.replace(/\s+/g, ' ').trim()
  return line.length > 90 ? `${line.slice(0, 89)}…` : line
}

// --- the page ---

type Ctx = {
  /** The first result of each call, from messages outside any sub-conversation of another call. */
  readonly results: ReadonlyMap<string, ToolResultPart>
  /** Sub-conversation messages by the call that started them. */
  readonly subs: ReadonlyMap<string, ReadonlyArray<Message>>
  /** Every call id of the history. */
  readonly calls: ReadonlySet<string>
  readonly shown: Set<ToolResultPart>
  /** The calls whose sub-conversation is out already (once each, even when it holds its own call). */
  readonly expanded: Set<string>
  readonly day: { last: string }
  /** Each reply's cost. */
  readonly cost: CostView
  /** The receipts of compactions by their summary's id, and the tool outputs cleared by call id. */
  readonly receipts: ReadonlyMap<string, Receipt>
  readonly cleared: ReadonlyMap<string, ClearedOutput>
}

const header = (m: Message, ctx: Ctx, label: string): string =>
  `<header><span class="role">${esc(label)}</span>${m.sender === undefined ? '' : ` <span class="sender">${esc(m.sender)}</span>`}${
    m.model === undefined ? '' : ` <span class="model">${esc(m.model)}</span>`
  }${usageLine(m, ctx)}${m.createdAt === undefined ? '' : ` <time datetime="${esc(m.createdAt)}">${esc(clock(m.createdAt, ctx.day))}</time>`}</header>`

/** A result's content: its text in `<pre>`, each image shown (a file named) where it stands among the text. */
const resultBody = (r: ToolResultPart): string =>
  typeof r.content === 'string' ? `<pre>${esc(r.content)}</pre>` : r.content
    .map((b) => (b.type === 'image' || b.type === 'file' ? media(b) : `<pre>${esc(toolResultBlockLabel(b))}</pre>`))
    .join('')

const resultHtml = (r: ToolResultPart, ctx: Ctx): string => {
  const c = ctx.cleared.get(r.toolCallId)
  return `<div class="result${r.isError ? ' error' : ''}"><div class="label">${r.isError ? 'Error' : 'Result'}</div>${
    c === undefined ? '' : `<p class="cleared">${clearedLine(c)}</p>`
  }${resultBody(r)}</div>`
}

const callHtml = (c: ToolCallPart, ctx: Ctx): string => {
  const r = ctx.results.get(c.id)
  if (r !== undefined) ctx.shown.add(r)
  const sub = ctx.expanded.has(c.id) ? undefined : ctx.subs.get(c.id)
  if (sub !== undefined) ctx.expanded.add(c.id)
  const state = r === undefined
    ? `<span class="state">${esc(c.status === 'complete' ? 'no result' : c.status)}</span>`
    : r.isError
    ? '<span class="state error">error</span>'
    : ''
  // a call whose result holds an image is open: the image is what there is to see
  const open = r !== undefined && typeof r.content !== 'string' && r.content.some((b) => b.type === 'image') ? ' open' : ''
  return `<details class="tool" id="call-${esc(c.id)}"${open}><summary><span class="tool-name">${esc(c.name)}</span> <code>${
    esc(preview(c.arguments))
  }</code>${state}${sub === undefined ? '' : ` <span class="state sub">${sub.length} nested</span>`}</summary><pre class="args">${
    esc(prettyArguments(c.arguments))
  }</pre>${r === undefined ? '' : resultHtml(r, ctx)}${sub === undefined ? '' : subHtml(sub, ctx)}</details>`
}

const subHtml = (ms: ReadonlyArray<Message>, ctx: Ctx): string => {
  const s = subagentOf(ms[0] as Message)
  const models = [...new Set(ms.flatMap((m) => (m.model === undefined ? [] : [m.model])))]
  return `<details class="subagent"><summary>Sub-conversation${s?.agentId === undefined ? '' : ` <code>${esc(s.agentId)}</code>`} · ${ms.length} message${
    ms.length === 1 ? '' : 's'
  }${models.length === 0 ? '' : ` · ${esc(models.join(', '))}`}</summary>${ms.map((m) => messageHtml(m, ctx)).join('')}</details>`
}

const partsHtml = (m: Message, ctx: Ctx): string => {
  let b = ''
  for (const p of m.parts as ReadonlyArray<Part>) {
    if (p.type === 'image' || p.type === 'file') b += media(p)
    else if (p.type === 'tool_call') b += callHtml(p, ctx)
    else if (p.type === 'tool_result' && !ctx.shown.has(p))
      b += `<details class="tool orphan" open><summary><span class="tool-name">${esc(p.name ?? 'tool')}</span> result for <code>${
        esc(p.toolCallId)
      }</code></summary>${resultHtml(p, ctx)}</details>`
  }
  return b
}

const messageHtml = (m: Message, ctx: Ctx): string => {
  if (m.kind === 'metadata') return ''
  const text = textOf(m, 'text')
  if (m.kind === 'bookmark') return `<div class="bookmark" id="m-${esc(m.id)}"><span>${esc(text === '' ? 'Bookmark' : text)}</span></div>`
  if (isCompactionSummary(m)) {
    const info = m.metadata?.['compaction']
    const n = isObject(info) && typeof info['summarised'] === 'number' ? ` · ${info['summarised']} earlier messages summarised` : ''
    return `<section class="compaction" id="m-${esc(m.id)}">${header(m, ctx, `Compaction${n}`)}<details><summary>Summary</summary><div class="text">${
      textHtml(text)
    }</div></details>${receiptHtml(m, ctx.receipts.get(m.id))}</section>`
  }
  // a message of results that each show under their call adds nothing where it stands
  if (
    text === '' && m.error === undefined && m.parts.some((p) => p.type === 'tool_result') &&
    m.parts.every((p) => p.type === 'finish' || (p.type === 'tool_result' && ctx.results.get(p.toolCallId) === p))
  ) {
    for (const p of m.parts) if (p.type === 'tool_result') ctx.shown.add(p)
    return ''
  }
  const origin = originOf(m)
  if (origin !== undefined && m.kind !== 'normal') {
    return `<details class="injected" id="m-${esc(m.id)}"><summary>${esc(origin)}${
      m.createdAt === undefined ? '' : ` · ${esc(clock(m.createdAt, ctx.day))}`
    }</summary><div class="text">${esc(text)}</div>${partsHtml(m, ctx)}</details>`
  }
  const thinking = m.role === 'assistant' ? textOf(m, 'reasoning') : ''
  const sub = subagentOf(m) !== undefined
  const kind = m.kind === 'normal' || sub ? '' : ` ${m.kind}`
  const label = m.kind === 'display' && !sub ? 'Notice' : m.kind === 'synthetic' || m.kind === 'ephemeral' ? `${TITLES[m.role]} · ${m.kind}` : TITLES[m.role]
  return `<article class="msg ${m.role}${kind}" id="m-${esc(m.id)}">${header(m, ctx, label)}${
    thinking === '' ? '' : `<details class="thinking"><summary>Thinking</summary><div class="text">${esc(thinking)}</div></details>`
  }${text === '' ? '' : `<div class="text">${textHtml(text)}</div>`}${partsHtml(m, ctx)}${
    m.error === undefined ? '' : `<p class="error">${esc(m.error)}</p>`
  }</article>`
}

/**
 * Options of {@link renderHtmlWith}: the page's `title` (default `Conversation`); the price table
 * each reply's cost is read from (`prices`, `PRICES` by default; see `chatfold/cost`); and the
 * `receipts` of compactions and prunes (each as its operation's report gave it): a compaction's is
 * shown at its summary (`summaryId`), each tool output one cleared under its result; and the
 * `archive` a session reader returned (the messages the compactions the file recorded replaced), from
 * which each of those compactions' receipts is read (see `readSessionFile`).
 *
 * @example
 * import { renderHtmlWith, type HtmlOptions } from 'chatfold/history'
 * import { PRICES, withPrices } from 'chatfold/cost'
 * const opts: HtmlOptions = { title: 'Fixing the cart total', prices: withPrices([{ model: 'in-house-7b', input: 0.1, output: 0.2 }])(PRICES) }
 * const toPage = renderHtmlWith(opts)
 *
 * @since 0.1.0
 * @category rendering
 */
export type HtmlOptions = {
  readonly title?: string
  readonly prices?: PriceTable
  readonly receipts?: ReadonlyArray<{ readonly receipt: Receipt; readonly summaryId?: string }>
  readonly archive?: Messages
}

/**
 * A history as one HTML page (see {@link renderHtml}), with a title of your choosing.
 *
 * @example
 * import { renderHtmlWith } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * const page = renderHtmlWith({ title: 'Support chat' })([textMessage('user', 'hi')])
 * page.includes('<title>Support chat</title>') // true
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderHtmlWith = (opts: HtmlOptions) => (ms: Messages): string => {
  const subs = new Map<string, Message[]>()
  const calls = new Set<string>()
  for (const m of ms) {
    const s = subagentOf(m)
    if (s !== undefined) subs.set(s.toolCallId, [...(subs.get(s.toolCallId) ?? []), m])
    if (m.kind !== 'metadata' && m.kind !== 'bookmark') { for (const p of m.parts) if (p.type === 'tool_call') calls.add(p.id) }
  }
  const results = new Map<string, ToolResultPart>()
  for (const m of ms)
    if (m.kind !== 'metadata') {
      for (const p of m.parts)
        if (p.type === 'tool_result' && calls.has(p.toolCallId) && !results.has(p.toolCallId))
          results.set(
            p.toolCallId,
            p,
          )
    }
  const cost = costView(opts.prices)(ms)
  const receipts = new Map<string, Receipt>(opts.archive === undefined ? [] : archiveReceipts(opts.archive, ms))
  const cleared = new Map<string, ClearedOutput>()
  for (const r of opts.receipts ?? []) {
    if (r.summaryId !== undefined) receipts.set(r.summaryId, r.receipt)
    else for (const c of r.receipt.cleared) cleared.set(c.toolCallId, c)
  }
  const ctx: Ctx = { results, subs, calls, shown: new Set(), expanded: new Set(), day: { last: '' }, cost, receipts, cleared }
  const sums = turnSums(ms, cost, (m) => subagentOf(m) !== undefined)
  const body: string[] = []
  let turn = 0
  let open = false
  for (const m of ms) {
    const s = subagentOf(m)
    if (s !== undefined) {
      // nested under its call; a sub-conversation whose call is not in the history stands where it starts
      if (calls.has(s.toolCallId) || ctx.expanded.has(s.toolCallId)) continue
      ctx.expanded.add(s.toolCallId)
      body.push(subHtml(subs.get(s.toolCallId) ?? [m], ctx))
      continue
    }
    if (startsTurn(m)) {
      if (open) body.push('</section>')
      body.push(`<section class="turn" id="turn-${++turn}">${turnLabel(turn, sums[turn - 1])}`)
      open = true
    }
    body.push(messageHtml(m, ctx))
  }
  if (open) body.push('</section>')
  // a sub-conversation whose call shows only inside another sub-conversation that is never shown
  for (const [id, group] of subs) {
    if (ctx.expanded.has(id)) continue
    ctx.expanded.add(id)
    body.push(subHtml(group, ctx))
  }
  const title = opts.title ?? 'Conversation'
  const times = ms.flatMap((m) => (m.createdAt === undefined ? [] : [m.createdAt])).sort()
  const models = [...new Set(ms.flatMap((m) => (m.model === undefined ? [] : [m.model])))]
  const facts = [
    `${ms.length} message${ms.length === 1 ? '' : 's'}`,
    `${turn} turn${turn === 1 ? '' : 's'}`,
    ...(models.length === 0 ? [] : [models.join(', ')]),
    ...(cost.priced === 0 && cost.unpriced.length === 0 ? [] : [
      `${
        [...(cost.priced === 0 ? [] : [money(cost.total)]), ...(cost.unpriced.length === 0 ? [] : [`unpriced: ${cost.unpriced.join(', ')}`])].join(' + ')
      } (prices of ${cost.taken})`,
    ]),
    ...(times.length === 0
      ? []
      : [`${(times[0] as string).replace('T', ' ').slice(0, 19)} to ${(times[times.length - 1] as string).replace('T', ' ').slice(0, 19)} UTC`]),
  ]
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<title>${esc(title)}</title><style>${HTML_STYLE}</style></head>
<body><header class="page"><h1>${esc(title)}</h1><p>${esc(facts.join(' · '))}</p></header>
<main>
${body.join('\n')}
</main></body></html>
`
}

/**
 * A history as one self-contained HTML page: each turn (a user message and what follows it) with
 * its messages' times, models and reported usage; each tool call folded (`<details>`) with its
 * arguments and result; reasoning folded; a sub-conversation (messages marked
 * `metadata.subagent = { toolCallId }`) nested under the call that started it; injected messages
 * (`metadata.origin`) folded under their origin; compaction summaries marked; images shown from
 * their bytes as `data:` URLs (a remote image is a link, never loaded). The page loads nothing:
 * inline style, no script, and a Content-Security-Policy of `default-src 'none'`. All text is
 * escaped, so a `<script>` in a message is shown, never run.
 *
 * @example
 * import { renderHtml } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * const page = renderHtml([textMessage('user', 'Is <b> bold?')])
 * page.includes('Is &lt;b&gt; bold?') // true
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderHtml: (ms: Messages) => string = renderHtmlWith({})
