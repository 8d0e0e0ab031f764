/**
 * The history explorer: open a session file (or the sample), see its tokens per message and per
 * kind and what it cost, prune and compact it with the engine, in a worker or inline, with a
 * progress bar, read it as Markdown or as the conversation (the HTML transcript, with each turn's
 * cost and each compaction's receipt where it happened), and watch the main thread's frame times
 * while it works.
 */
import * as E from 'fp-ts/Either'
import { type Engine, type EngineSession } from '../src/engine/api.ts'
import { createEngine } from '../src/engine/client.ts'
import { webWorkerHost } from '../src/engine/host.ts'
import { applyChanges, type EngineProgress } from '../src/engine/types.ts'
import { type Message, type Messages } from '../src/message/message.ts'
import { drawBars, frameGraph } from './graphs.ts'
import { loadOffThread, type Picked } from './loader.ts'
import { markdownStart } from './markdown.ts'
import { CONVERSATION_MESSAGES, type PageReceipt, showConversation } from './conversation.ts'
import { isCompactionSummary } from '../src/message/compaction-mark.ts'
import { clearedOutputs, EMPTY_RECEIPT, named, type Receipt } from '../src/history/receipt.ts'
import { heuristic } from '../src/tokens/heuristic.ts'
import { yieldToEventLoop } from '../src/internal/schedule.ts'

const $ = <T extends HTMLElement>(id: string): T => {
  const el = document.getElementById(id)
  if (el === null) throw new Error(`Cannot find #${id} in the page`)
  return el as T
}

const KINDS = ['normal', 'synthetic', 'ephemeral', 'display', 'bookmark', 'metadata'] as const
const MAX_BARS = 300
const MARKDOWN_CHARS = 200_000
const MARKDOWN_BLOCK = 8_000
/** Messages rendered as Markdown in one go. */
const MARKDOWN_STEP = 16
const PRUNE = { protectTokens: 40_000 } as const
const COMPACT = { keepRecentTokens: 20_000 } as const

type Mode = 'worker' | 'inline'
type Breakdown = { readonly total: number; readonly content: number; readonly thinking: number; readonly tools: number }

const engines: Partial<Record<Mode, Engine>> = {}
/** The engine of a mode, started on first use: the worker one from the bundle's own engine.worker.js. */
const engineOf = (
  mode: Mode,
): Engine => (engines[mode] ??= mode === 'worker'
  ? createEngine({ mode: 'worker', encoding: 'o200k_base', host: () => webWorkerHost(new URL('./engine.worker.js', import.meta.url)) })
  : createEngine({ mode: 'inline', encoding: 'o200k_base' }))

let history: Messages = []
let source = ''
/** The receipts of the prunes and compactions run on this history, shown in the conversation where each happened. */
let receipts: PageReceipt[] = []
/** What the compactions the file recorded replaced: each one's receipt in the conversation is read from it. */
let archive: Messages = []
let counts: ReadonlyArray<Breakdown> = []
let session: { readonly mode: Mode; readonly session: EngineSession } | undefined
let sessions = 0

const mode = (): Mode => ((document.querySelector('input[name=mode]:checked') as HTMLInputElement | null)?.value === 'inline' ? 'inline' : 'worker')
const fmt = (n: number): string => Math.round(n).toLocaleString('en')

// --- status and progress ---

const status = (text: string, error = false): void => {
  const el = $('status')
  el.textContent = text
  el.classList.toggle('error', error)
}
const progress = (done: number, total: number, text: string): void => {
  const bar = $<HTMLProgressElement>('progress')
  bar.max = Math.max(1, total)
  bar.value = Math.min(done, total)
  status(text)
}
const onProgress = (p: EngineProgress): void =>
  progress(p.done, p.total, `${p.phase}${p.stage === undefined ? '' : ` (${p.stage})`}: ${fmt(p.done)} / ${fmt(p.total)}`)

/** A failure shown as it is, without the action's name before it (a file that cannot be read says so itself). */
class Shown extends Error {}

/**
 * Runs one action with the controls disabled (buttons, the file picker, the mode switch: one
 * action at a time, on the engine it started on) and `data-busy` set on the page; errors go to the
 * status line.
 */
const busy = async (what: string, f: () => Promise<string>): Promise<void> => {
  document.body.dataset['busy'] = what
  for (const c of document.querySelectorAll<HTMLButtonElement | HTMLInputElement | HTMLSelectElement>('button, input, select')) c.disabled = true
  const t0 = performance.now()
  try {
    const done = await f()
    $<HTMLProgressElement>('progress').value = $<HTMLProgressElement>('progress').max
    status(`${done} (${fmt(performance.now() - t0)} ms, ${mode() === 'worker' ? 'in a worker' : 'inline'})`)
    document.body.dataset['state'] = what
  } catch (e) {
    status(e instanceof Shown ? e.message : `${what} failed: ${e instanceof Error ? e.message : String(e)}`, true)
    document.body.dataset['state'] = `${what}-failed`
  } finally {
    delete document.body.dataset['busy']
    for (const c of document.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input, select')) c.disabled = false
    for (const b of document.querySelectorAll('button')) b.disabled = history.length === 0 && b.id !== 'sample'
  }
}

/** The resident session in the engine of the current mode: opened (again) when the mode changed. */
const currentSession = async (): Promise<EngineSession> => {
  const m = mode()
  if (session !== undefined && session.mode === m) return session.session
  if (session !== undefined) await session.session.close().catch(() => undefined)
  const opened = await engineOf(m).open(`explorer-${++sessions}`, history, { onProgress })
  session = { mode: m, session: opened }
  return opened
}

// --- rendering ---

const render = (): void => {
  const total = counts.reduce((n, c) => n + c.total, 0)
  const sum = (k: keyof Breakdown): number => counts.reduce((n, c) => n + c[k], 0)
  $('summary').hidden = false
  $('summary-title').textContent = `${source}: ${fmt(history.length)} messages, ${fmt(total)} tokens`
  $('summary-text').textContent = `content ${fmt(sum('content'))} · thinking ${fmt(sum('thinking'))} · tools ${fmt(sum('tools'))} (o200k_base)`
  const per = Math.max(1, Math.ceil(history.length / MAX_BARS))
  $('bucket-note').textContent = per === 1 ? '(one bar a message)' : `(one bar per ${per} messages)`
  const bars: Array<{ tokens: number; role: string }> = []
  for (let i = 0; i < history.length; i += per) {
    const byRole = new Map<string, number>()
    let tokens = 0
    for (let j = i; j < Math.min(history.length, i + per); j++) {
      const t = counts[j]?.total ?? 0
      tokens += t
      const role = (history[j] as Message).role
      byRole.set(role, (byRole.get(role) ?? 0) + t)
    }
    bars.push({ tokens, role: [...byRole].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'user' })
  }
  drawBars($<HTMLCanvasElement>('per-message'), bars)
  const body = $('per-kind').querySelector('tbody') as HTMLTableSectionElement
  body.replaceChildren()
  const rows = KINDS.map((kind) => {
    const idx = history.flatMap((m, i) => (m.kind === kind ? [i] : []))
    const of = (k: keyof Breakdown): number => idx.reduce((n, i) => n + (counts[i]?.[k] ?? 0), 0)
    return { kind, messages: idx.length, total: of('total'), content: of('content'), thinking: of('thinking'), tools: of('tools') }
  }).filter((r) => r.messages > 0)
  const max = Math.max(1, ...rows.map((r) => r.total))
  for (const r of rows) {
    const tr = document.createElement('tr')
    for (const v of [r.kind, fmt(r.messages), fmt(r.total), fmt(r.content), fmt(r.thinking), fmt(r.tools)]) {
      const td = document.createElement('td')
      td.textContent = v
      tr.append(td)
    }
    const bar = document.createElement('td')
    bar.className = 'bar'
    const span = document.createElement('span')
    span.style.width = `${(r.total / max) * 100}%`
    bar.append(span)
    tr.append(bar)
    body.append(tr)
  }
  if (!$('markdown-view').hidden) void showMarkdown()
  if (!$('conversation-view').hidden) showTranscript()
}

/** Shows the history as the HTML transcript, with the receipts of what was run on it. */
const showTranscript = (): void => {
  $('conversation-view').hidden = false
  $('conversation-note').textContent = showConversation($<HTMLIFrameElement>('conversation-frame'), history, source, receipts, archive)
}

/** The reader's notes (what it could not carry, files read beside), listed under the summary. */
const showNotes = (notes: ReadonlyArray<string>): void => {
  const list = $('notes')
  list.replaceChildren(
    ...notes.map((n) => {
      const li = document.createElement('li')
      li.textContent = n
      return li
    }),
  )
  list.hidden = notes.length === 0
}

/**
 * Shows the start of the history as Markdown, rendered a few messages at a time with a turn of the
 * event loop between, until `MARKDOWN_CHARS` are there: rendering a whole large history at once
 * held the page for a third of a second.
 */
const showMarkdown = async (): Promise<void> => {
  const shown = history
  const { text: md, messages: end } = await markdownStart(shown, MARKDOWN_CHARS, MARKDOWN_STEP, yieldToEventLoop)
  if (history !== shown) return // a newer history is shown by its own call
  $('markdown-view').hidden = false
  $('markdown-note').textContent = end < shown.length
    ? `(the first ${fmt(MARKDOWN_CHARS)} characters, from the first ${fmt(end)} of ${fmt(shown.length)} messages)`
    : md.length > MARKDOWN_CHARS
    ? `(the first ${fmt(MARKDOWN_CHARS)} of ${fmt(md.length)} characters)`
    : `(${fmt(md.length)} characters)`
  $('markdown-text').replaceChildren(...markdownBlocks(md.slice(0, MARKDOWN_CHARS)))
}

/**
 * The text in blocks of about `MARKDOWN_BLOCK` characters, cut at line ends, each laid out only
 * when it scrolls into view (`content-visibility: auto`): laying out 200,000 characters at once
 * held the page for about 200 ms.
 */
const markdownBlocks = (text: string): HTMLElement[] => {
  const blocks: HTMLElement[] = []
  for (let at = 0; at < text.length;) {
    const cut = text.indexOf('\n', at + MARKDOWN_BLOCK)
    const end = cut < 0 ? text.length : cut + 1
    const block = document.createElement('div')
    block.className = 'md-block'
    block.textContent = text.slice(at, end)
    blocks.push(block)
    at = end
  }
  return blocks
}

// --- actions ---

/**
 * Loads a file (or the sample): decoded in the loader worker and taken in slice by slice, then
 * opened in the engine, whose session answers each message's tokens. `name` heads what is wrong
 * with a file; `from(format)` names where the history came from.
 */
const load = (
  what: Picked & { readonly with?: ReadonlyArray<Picked> } | { readonly sample: number },
  name: string,
  from: (format: string) => string,
): Promise<void> =>
  busy('load', async () => {
    status('file' in what ? `Reading ${name}…` : `Generating ${name}…`)
    const loaded = await loadOffThread(what, (done, total) => progress(done, total, `taking in the messages: ${fmt(done)} / ${fmt(total)}`))
    if (E.isLeft(loaded)) throw new Shown(`${name}: ${loaded.left}`)
    history = loaded.right.messages
    archive = loaded.right.archive
    source = from(loaded.right.format)
    receipts = []
    $('summary-cost').textContent = loaded.right.cost
    showNotes(
      archive.length === 0
        ? loaded.right.notes
        : [...loaded.right.notes, `${fmt(archive.length)} messages a compaction recorded in the file replaced are kept aside (its receipt lists them)`],
    )
    if (session !== undefined) await session.session.close().catch(() => undefined)
    session = undefined
    counts = await (await currentSession()).counts()
    render()
    $('last-action').textContent = ''
    return `Loaded ${fmt(history.length)} messages from ${source}`
  })

$<HTMLButtonElement>('sample').addEventListener('click', () => {
  const size = Number($<HTMLSelectElement>('sample-size').value)
  const name = `the sample (${fmt(size)} messages)`
  void load({ sample: size }, name, () => name)
})

/** Opens files picked or dropped together: a session with what the command line reads beside it (sub-agent transcripts, ui_messages.json). */
const openFiles = (files: ReadonlyArray<File>): void => {
  const main = files.find((f) => !/^agent-.*\.jsonl$/.test(f.name) && f.name !== 'ui_messages.json') ?? files[0]
  if (main === undefined || document.body.dataset['busy'] !== undefined) return
  const others = files.filter((f) => f !== main).map((f): Picked => ({ file: f, name: f.name }))
  void load({ file: main, name: main.name, with: others }, main.name, (format) => `${main.name} (${format})`)
}

$<HTMLInputElement>('file').addEventListener('change', (event) => openFiles([...((event.target as HTMLInputElement).files ?? [])]))
// files dropped anywhere on the page open as the picker opens them
document.addEventListener('dragover', (event) => event.preventDefault())
document.addEventListener('drop', (event) => {
  event.preventDefault()
  openFiles([...(event.dataTransfer?.files ?? [])])
})

$<HTMLButtonElement>('prune').addEventListener('click', () =>
  void busy('prune', async () => {
    const s = await currentSession()
    progress(0, 1, 'pruning old tool results…')
    const r = await s.prune(PRUNE)
    const before = history
    history = applyChanges(r)(history)
    // the outputs the prune cleared where the conversation view can show them (a prune keeps every
    // message in place), as its receipt itemises them, their tokens by the plain estimate (a quarter of
    // the characters: 40 ms for 6,000 outputs, where the finer estimate took 1.8 s); the rest of a
    // receipt (the artifact ledger of what was cleared) reads the whole history, too long for the page's thread
    const cleared = r.changes.flatMap((c) => {
      const was = c.index < CONVERSATION_MESSAGES ? before[c.index] : undefined
      return was === undefined || was === c.message ? [] : clearedOutputs(heuristic)(was, c.message)
    })
    if (cleared.length > 0) {
      receipts = [...receipts, { receipt: { ...EMPTY_RECEIPT, cleared: named(cleared, before.slice(0, CONVERSATION_MESSAGES)) } satisfies Receipt }]
    }
    counts = await s.counts()
    render()
    const text = `Pruned ${fmt(r.report.prunedResults)} tool results and ${fmt(r.report.prunedArgs)} arguments: ${fmt(r.report.tokensBefore)} → ${
      fmt(r.report.tokensAfter)
    } tokens`
    $('last-action').textContent = text
    return text
  }))

$<HTMLButtonElement>('compact').addEventListener('click', () =>
  void busy('compact', async () => {
    const s = await currentSession()
    const r = await s.compact({ ...COMPACT, onProgress })
    const earlier = new Set(history.filter(isCompactionSummary).map((m) => m.id))
    history = r.messages
    const summary = r.report.compacted ? history.find((m) => isCompactionSummary(m) && !earlier.has(m.id)) : undefined
    if (summary !== undefined) receipts = [...receipts, { receipt: r.report.receipt, summaryId: summary.id }]
    counts = await s.counts()
    render()
    const text = r.report.compacted
      ? `Compacted: ${fmt(r.report.summarised)} messages summarised, ${fmt(r.report.preserved)} kept, ${fmt(r.report.tokensBefore)} → ${
        fmt(r.report.tokensAfter)
      } tokens`
      : 'Nothing to compact: the history fits the kept tail'
    $('last-action').textContent = text
    return text
  }))

$<HTMLButtonElement>('markdown').addEventListener('click', () => void showMarkdown().then(() => $('markdown-view').scrollIntoView()))

$<HTMLButtonElement>('conversation').addEventListener('click', () => {
  showTranscript()
  document.body.dataset['view'] = 'conversation'
  $('conversation-view').scrollIntoView()
})

frameGraph($<HTMLCanvasElement>('frame-graph'), $('frame-stats'))
document.body.dataset['state'] = 'empty'
