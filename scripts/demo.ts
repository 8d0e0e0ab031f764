/**
 * `npm start`: the first thing a new user sees. It loads the sample coding-agent session (a few
 * thousand messages, generated deterministically into out/sample-session.jsonl on the first run), opens
 * it in the compaction engine running in a worker thread (progress on stderr), estimates its
 * tokens, prunes old tool results, plans and compacts it with the embedded extractive summariser,
 * prints a before/after table, and writes the compacted history as Markdown and JSONL next to it.
 * Offline, in a few seconds.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createNodeEngine } from '../src/node/engine.ts'
import { applyChanges, type EngineProgress } from '../src/engine/types.ts'
import { fromJSONL, toJSONL } from '../src/history/codec.ts'
import { renderMarkdown } from '../src/history/render.ts'
import { isCompactionSummary } from '../src/message/compaction-mark.ts'
import { formatDecodeFailure } from '../src/message/failure.ts'
import { textContent } from '../src/message/accessors.ts'
import { type Messages } from '../src/message/message.ts'
import { sampleSession } from '../sample/session.ts'

const OUT = 'out'
const SAMPLE = join(OUT, 'sample-session.jsonl')
/** The sample's size; `CHATFOLD_DEMO_MESSAGES` sets another (the demo's test runs a small one). */
const MESSAGES = Number(process.env['CHATFOLD_DEMO_MESSAGES'] ?? 3_000)
const KEEP_RECENT_TOKENS = 20_000

// --- measuring ---

/** The longest time the main thread could not run anything: a 1 ms timer chain records the largest gap. */
const probe = () => {
  let longest = 0
  let last = performance.now()
  let timer: ReturnType<typeof setTimeout> | undefined
  const tick = (): void => {
    const t = performance.now()
    longest = Math.max(longest, t - last)
    last = t
    timer = setTimeout(tick, 1)
  }
  timer = setTimeout(tick, 1)
  return {
    /** The longest gap since the last call, then starts over. */
    take: (): number => {
      const t = performance.now()
      const l = Math.max(longest, t - last)
      longest = 0
      last = t
      return l
    },
    stop: (): void => clearTimeout(timer),
  }
}

const timed = async <A>(f: () => Promise<A> | A): Promise<{ readonly value: A; readonly ms: number }> => {
  const t0 = performance.now()
  const value = await f()
  return { value, ms: performance.now() - t0 }
}

// --- printing ---

const bar = (label: string) => {
  const tty = process.stderr.isTTY === true
  let shown = -1
  return (p: EngineProgress): void => {
    const pct = p.total === 0 ? 100 : Math.floor((100 * p.done) / p.total)
    if (pct === shown || (!tty && pct < 100)) return
    shown = pct
    const width = 30
    const full = Math.round((width * pct) / 100)
    const line = `${label.padEnd(8)} [${'#'.repeat(full)}${'.'.repeat(width - full)}] ${String(pct).padStart(3)}%  ${p.done.toLocaleString('en')}/${
      p.total.toLocaleString('en')
    }${p.stage === undefined ? '' : ` ${p.stage}`}`
    process.stderr.write(tty ? `\r${line}${pct === 100 ? '\n' : ''}` : `${line}\n`)
  }
}

const int = (n: number): string => n.toLocaleString('en')
/** A size in bytes, exact, with a rounded MB/KB figure beside it: every size in the demo is UTF-8 bytes. */
const size = (bytes: number): string => `${int(bytes)} B (${bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(0)} KB`})`
const dur = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms >= 10 ? 0 : 1)} ms`)

const printTable = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): void => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('   ')
  console.log(line(header))
  console.log(widths.map((w) => '─'.repeat(w)).join('   '))
  for (const r of rows) console.log(line(r))
}

// --- the job ---

mkdirSync(OUT, { recursive: true })
if (!existsSync(SAMPLE)) {
  writeFileSync(SAMPLE, toJSONL(sampleSession({ messages: MESSAGES, seed: 7 })))
  console.log(`generated the sample session into ${SAMPLE}`)
}

const watch = probe()
const text = readFileSync(SAMPLE, 'utf8')
const fileBytes = Buffer.byteLength(text)
const loaded = await timed(() => fromJSONL(text))
if (loaded.value._tag === 'Left') {
  console.error(`Cannot read ${SAMPLE}: ${formatDecodeFailure(loaded.value.left)}`)
  process.exit(1)
}
const history = loaded.value.right
const loadBlock = watch.take()
console.log(`sample session: ${int(history.length)} messages, ${size(fileBytes)} of JSONL, decoded in ${dur(loaded.ms)}`)

const engine = createNodeEngine({ encoding: 'o200k_base' })
const started = await timed(() => engine.ready())
console.log(`engine: ${engine.mode} (worker_threads), o200k_base, ready in ${dur(started.ms)}\n`)
watch.take()

const opened = await timed(() => engine.open('demo', history, { onProgress: bar('open') }))
const session = opened.value
const openBlock = watch.take()
const before = await session.tokens()

const pruned = await timed(() => session.prune({ protectTokens: 40_000 }))
const afterPrune = applyChanges(pruned.value)(history)
const pruneBlock = watch.take()

const planned = await timed(() => session.plan({ keepRecentTokens: KEEP_RECENT_TOKENS }))
const planBlock = watch.take()
const p = planned.value

const compacted = await timed(() => session.compact({ keepRecentTokens: KEEP_RECENT_TOKENS, onProgress: bar('compact') }))
const compactBlock = watch.take()
const final: Messages = compacted.value.messages
watch.stop()

const bytes = (ms: Messages): number => Buffer.byteLength(toJSONL(ms))
console.log(
  `\nplan: summarise ${int(p.messages.head)} messages (${int(p.tokens.head)} tokens), keep ${int(p.messages.preserved)} (${int(p.tokens.preserved)} tokens)${
    p.splitTurn ? ', cutting inside a turn' : ''
  }\n`,
)
printTable(
  ['', 'messages', 'tokens (o200k)', 'JSONL', 'time', 'longest main-thread block'],
  [
    ['loaded', int(history.length), '—', size(fileBytes), dur(loaded.ms), dur(loadBlock)],
    ['opened in the worker', int(before.messages), int(before.tokens), size(bytes(history)), dur(opened.ms), dur(openBlock)],
    ['pruned', int(afterPrune.length), int(pruned.value.tokens), size(bytes(afterPrune)), dur(pruned.ms), dur(pruneBlock)],
    ['planned', '', '', '', dur(planned.ms), dur(planBlock)],
    ['compacted', int(final.length), int(compacted.value.tokens), size(bytes(final)), dur(compacted.ms), dur(compactBlock)],
  ],
)

writeFileSync(join(OUT, 'compacted.md'), renderMarkdown(final))
writeFileSync(join(OUT, 'compacted.jsonl'), toJSONL(final))
const summary = final.find(isCompactionSummary)
const r = compacted.value.report
// every number below is one the table or the plan line shows
const unseen = r.archived - r.summarised
console.log(
  `\n${int(r.summarised)} messages summarised into one, ${int(r.preserved)} kept verbatim: ${int(before.messages)} → ${int(final.length)} messages, ${
    int(before.tokens)
  } → ${int(compacted.value.tokens)} tokens, ${size(bytes(history))} → ${size(bytes(final))} of JSONL; ${int(r.archived)} archived (your copy keeps them)${
    unseen > 0 ? `: the ${int(r.summarised)} summarised and ${int(unseen)} no model sees (notices, bookmarks, records)` : ''
  }`,
)
if (summary !== undefined) {
  const lines = textContent(summary).split('\n')
  console.log(
    `\nthe summary (extractive, offline), first lines:\n${lines.slice(0, 6).map((l) => `  ${l.length > 110 ? `${l.slice(0, 107)}…` : l}`).join('\n')}\n  … ${
      lines.length - 6
    } more lines`,
  )
}
console.log(`\nwrote ${join(OUT, 'compacted.md')} and ${join(OUT, 'compacted.jsonl')}`)
console.log('explore it in the browser (tokens per message, prune and compact with a frame-time graph): npm run demo:web')
engine.dispose()
