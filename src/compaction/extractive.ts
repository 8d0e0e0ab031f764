/**
 * A summariser that needs no model: it extracts, deterministically, what a transcript says.
 *
 * @module
 */
import type { Messages } from '../message/message.ts'
import { renderTranscript } from './transcript.ts'
import { PREVIOUS_SUMMARY } from './_previous-summary.ts'
import { SUMMARY_SECTIONS, type SummarySection } from './summary.ts'

// --- parsing the transcript ---

type Block =
  | { readonly kind: 'user' | 'assistant' | 'tool' | 'summary'; text: string }
  | { readonly kind: 'call'; readonly name: string; text: string }
  | { readonly kind: 'result'; readonly name: string; readonly error: boolean; text: string }

const SPEAKER = /^\[(User|Assistant|Tool|System)\]: ?(.*)$/
const CALL = /^ {2}→ ([^\s(]+)\((.*)$/
const RESULT = /^ {2}← (\S+) (result|error):$/

const parse = (transcript: string): Block[] => {
  const blocks: Block[] = []
  const lines: string[][] = [] // each block's lines, joined once at the end
  const open = (b: Block): void => {
    blocks.push(b)
    lines.push(b.text === '' ? [] : [b.text])
  }
  for (const line of transcript.split('\n')) {
    const c = line.charCodeAt(0)
    let m: RegExpExecArray | null = null
    if (c === 91 /* [ */) {
      if (line === PREVIOUS_SUMMARY) {
        open({ kind: 'summary', text: '' })
        continue
      }
      if ((m = SPEAKER.exec(line)) !== null) {
        open({ kind: (m[1] ?? 'user').toLowerCase() as 'user', text: m[2] ?? '' })
        continue
      }
    } else if (c === 32 && line.charCodeAt(1) === 32 && line.charCodeAt(2) !== 32) {
      if ((m = CALL.exec(line)) !== null) {
        open({ kind: 'call', name: m[1] ?? '', text: (m[2] ?? '').replace(/\)$/, '') })
        continue
      }
      if ((m = RESULT.exec(line)) !== null) {
        open({ kind: 'result', name: m[1] ?? '', error: m[2] === 'error', text: '' })
        continue
      }
    }
    lines[lines.length - 1]?.push(line.startsWith('    ') ? line.slice(4) : line)
  }
  blocks.forEach((b, i) => {
    b.text = (lines[i] ?? []).join('\n')
  })
  return blocks
}

/** The sections of a previous summary, by name (what follows each `## ` heading). */
const sectionsOf = (summary: string): Map<SummarySection, string[]> => {
  const out = new Map<SummarySection, string[]>()
  let at: SummarySection | undefined
  for (const line of summary.split('\n')) {
    const h = /^#{1,6}\s*\**([^*]+?)\**\s*:?\s*$/.exec(line)
    if (h !== null) {
      at = SUMMARY_SECTIONS.find((s) => s.toLowerCase() === (h[1] ?? '').trim().toLowerCase())
      continue
    }
    const item = line.replace(/^\s*[-*]\s*/, '').trim()
    if (at !== undefined && item !== '' && item !== 'none') out.set(at, [...(out.get(at) ?? []), item])
  }
  return out
}

// --- extraction ---

const oneLine = (s: string, max: number): string => {
  const flat = s.replace(/\s+/g, ' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

const sentences = (s: string): string[] =>
  s
    .split(/(?<=[.!?。！？])\s+|\n+/)
    .map((x) => x.trim())
    .filter((x) => x !== '')

const CONSTRAINT = /\b(must|never|always|don'?t|do not|should|shouldn'?t|only|without|avoid|prefer|make sure|keep)\b/i
const DECISION = /\b(decided?|chose|choose|instead|will use|going to|the fix|root cause|because|switch(?:ed)? to|rather than)\b/i
const PATH = /^(?:\.{0,2}\/)?(?:[\w@.-]+\/)+[\w.-]+\.[A-Za-z]\w{0,5}$/
const BARE_FILE = /^[\w-]+(?:\.[\w-]+)*\.(?:tsx?|jsx?|mjs|cjs|json|md|py|go|rs|java|rb|sh|ya?ml|toml|css|html|sql|c|h|cpp|txt|lock)$/
const IDENT = /^(?:[a-z]+(?:[A-Z][a-z0-9]*)+|[a-z]+(?:_[a-z0-9]+)+)$/
const QUOTED = /`([^`\n]{2,60})`/g
const SEPARATORS = /[\s"'`()[\]{},;<>=|]+/

/**
 * The words of a text, trailing punctuation removed; long ones (over 200 characters) skipped, so
 * the patterns above run in linear time on any input.
 */
const wordsOf = (s: string): string[] => {
  const out: string[] = []
  for (const w of s.split(SEPARATORS)) {
    if (w.length < 2 || w.length > 200) continue
    const last = w.charCodeAt(w.length - 1)
    out.push(last === 46 || last === 58 || last === 33 || last === 63 ? w.replace(/[.:!?]+$/, '') : w)
  }
  return out
}

const filesIn = (s: string): string[] =>
  wordsOf(s)
    .filter((w) => w.includes('.') && (w.includes('/') ? PATH.test(w) : BARE_FILE.test(w)))
    .map((w) => (w.startsWith('./') ? w.slice(2) : w))

const identifiersIn = (s: string): string[] => [...[...s.matchAll(QUOTED)].map((m) => m[1] ?? ''), ...wordsOf(s).filter((w) => IDENT.test(w))]

/** Items by how often they occur, then by first occurrence; the top `max`. */
const ranked = (items: Iterable<string>, max: number): Array<readonly [string, number]> => {
  const counts = new Map<string, number>()
  for (const x of items) counts.set(x, (counts.get(x) ?? 0) + 1)
  // Map order is first occurrence, and the sort is stable: ties keep it.
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, max)
}

const IDENTIFIERS = 'identifiers:'

const unique = (xs: ReadonlyArray<string>, max: number): string[] => [...new Set(xs)].slice(0, max)

/**
 * The last `max` distinct items, in the order of their last occurrence, each repeated one with how
 * many times it occurred: one line per fact, however often it happened.
 */
const latestDistinct = (items: ReadonlyArray<string>, max: number): string[] => {
  const counts = new Map<string, number>()
  for (const x of items) counts.set(x, (counts.get(x) ?? 0) + 1)
  const picked: string[] = []
  for (let i = items.length - 1; i >= 0 && picked.length < max; i--) {
    const x = items[i] as string
    if (!picked.includes(x)) picked.push(x)
  }
  return picked.reverse().map((x) => ((counts.get(x) ?? 1) > 1 ? `${x} (${counts.get(x)} times)` : x))
}

/**
 * A section under a third-level heading: a summary is the text of one message, which Markdown
 * renders under its own `## Role` heading, so the sections nest below it.
 */
const section = (name: SummarySection, items: ReadonlyArray<string>): string =>
  `### ${name}\n${items.length === 0 ? '- none' : items.map((x) => `- ${x}`).join('\n')}`

/**
 * The extractive summary of a transcript, synchronously: what `extractiveSummarize` resolves to.
 *
 * @example
 * import { extractiveSummary } from 'chatfold/compaction'
 * extractiveSummary('[User]: Fix src/parse.ts; never touch the tests.')
 *
 * @since 0.1.0
 * @category compaction
 */
export const extractiveSummary = (transcript: string): string => {
  const blocks = parse(transcript)
  const previous = new Map<SummarySection, string[]>()
  for (const b of blocks) if (b.kind === 'summary') { for (const [k, v] of sectionsOf(b.text)) previous.set(k, [...(previous.get(k) ?? []), ...v]) }
  const prev = (s: SummarySection): string[] => previous.get(s) ?? []
  const users = blocks.filter((b) => b.kind === 'user' && b.text.trim() !== '')
  const assistants = blocks.filter((b) => b.kind === 'assistant' && b.text.trim() !== '')
  const calls = blocks.filter((b): b is Extract<Block, { kind: 'call' }> => b.kind === 'call')
  const errors = blocks.filter((b): b is Extract<Block, { kind: 'result' }> => b.kind === 'result' && b.error)
  const first = users[0]
  const latest = users[users.length - 1]
  const last = blocks.filter((b) => b.kind === 'user' || b.kind === 'assistant').at(-1)

  const goal = [
    ...prev('Goal').slice(0, 4),
    ...(first === undefined ? [] : [`First request: ${oneLine(first.text, 400)}`]),
    ...(latest !== undefined && latest !== first ? [`Latest request: ${oneLine(latest.text, 400)}`] : []),
  ]
  const constraints = unique(
    [...prev('Constraints'), ...users.flatMap((b) => sentences(b.text).filter((s) => CONSTRAINT.test(s)).map((s) => oneLine(s, 200)))],
    10,
  )
  const tools = ranked(
    calls.map((c) => c.name),
    12,
  ).map(([name, n]) => `${name} ×${n}`)
  const progress = unique([
    ...prev('Progress').slice(0, 8),
    `${users.length} user messages, ${assistants.length} assistant replies, ${calls.length} tool calls${
      tools.length === 0 ? '' : ` (${tools.join(', ')})`
    }, ${errors.length} tool errors`,
    ...latestDistinct(
      errors.map((e) => `${e.name} failed: ${oneLine(e.text.split('\n')[0] ?? '', 160)}`),
      5,
    ),
  ], 20)
  const decisions = unique(
    [...prev('Decisions'), ...assistants.flatMap((b) => sentences(b.text).filter((s) => DECISION.test(s)).map((s) => oneLine(s, 200)))].slice(-10),
    10,
  )
  const next = [
    ...(last === undefined
      ? []
      : last.kind === 'user'
      ? [`Answer the pending request: ${oneLine(last.text, 400)}`]
      : [`Continue from the last reply: ${oneLine(last.text, 600)}`]),
    ...prev('Next steps').slice(0, 3),
  ]
  const mentioned = blocks.flatMap((b) => filesIn(b.text))
  const prevFiles = prev('Files').filter((f) => !f.startsWith(IDENTIFIERS))
  const prevIdentifiers = prev('Files')
    .filter((f) => f.startsWith(IDENTIFIERS))
    .flatMap((f) => f.slice(IDENTIFIERS.length).split(',').map((x) => x.trim()))
    .filter((x) => x !== '')
  const files = ranked([...prevFiles.map((f) => f.split(' ')[0] ?? f), ...mentioned], 25).map(([f, n]) => (n > 1 ? `${f} (${n} mentions)` : f))
  const identifiers = ranked([...prevIdentifiers, ...blocks.filter((b) => b.kind !== 'result').flatMap((b) => identifiersIn(b.text))], 20).map(([x]) => x)
  if (identifiers.length > 0) files.push(`${IDENTIFIERS} ${identifiers.join(', ')}`)
  return [
    section('Goal', goal),
    section('Constraints', constraints),
    section('Progress', progress),
    section('Decisions', decisions),
    section('Next steps', next),
    section('Files', files),
  ].join('\n')
}

/**
 * A summariser that needs no model, for offline use, tests and demos; a fallback, not a
 * replacement: real use passes a model to `compact`. From a transcript (or from messages, which
 * it turns into one with `renderTranscript`) it extracts the goals the user stated (the first and
 * latest requests), their constraints (sentences with must, never, only, …), the tools used and
 * the errors they gave (one line per distinct error, with how often it occurred), the assistant's decisions, the last reply or pending request, and the files
 * and identifiers mentioned most, under the six sections of `SUMMARY_PROMPT` as `### ` headings (so
 * `validateSummary` accepts it, and rendered as Markdown they nest under the summary message's `## ` heading). A previous summary in the transcript is carried forward.
 * Deterministic: the same input gives the same summary.
 *
 * @example
 * import { extractiveSummarize, textMessage } from 'chatfold'
 * const summary = await extractiveSummarize([textMessage('user', 'Fix src/parse.ts; never touch the tests.')])
 *
 * @since 0.1.0
 * @category compaction
 */
export const extractiveSummarize = (input: string | Messages): Promise<string> =>
  Promise.resolve(extractiveSummary(typeof input === 'string' ? input : renderTranscript({})(input)))
