/**
 * Rendering a history as text: plain text (`render`, `renderMessage`), log lines (`renderLogLines`),
 * compact transcript lines for a compaction prompt (`renderTranscriptLines`), and Markdown
 * (`renderMarkdown`, `renderMarkdownWith`) with each tool result under its call.
 *
 * Renderers show what they are given (metadata messages excepted, which are never rendered), so
 * they compose with the views: `pipe(history, forExport, renderMarkdown)` is a Markdown export.
 *
 * @module
 */
import { toolResultText } from '../message/tool-result-content.ts'
import { isInternal } from '../message/accessors.ts'
import { type Message, type Messages } from '../message/message.ts'
import { isCompactionBoundary } from '../message/part-make.ts'
import { type FilePart, type ImagePart, type Part, type ProviderPart, type ToolCallPart, type ToolResultPart } from '../message/part-model.ts'
import { isObject } from '../internal/object.ts'
import { demoteHeadings, FENCE } from './_markdown.ts'

// --- helpers ---

const TITLES = { system: 'System', user: 'User', assistant: 'Assistant', tool: 'Tool' } as const

const joinText = (m: Message, type: 'text' | 'reasoning'): string => {
  let s = ''
  for (const p of m.parts) {
    if (p.type !== type) continue
    const t = (p as { readonly text: string }).text
    if (type === 'reasoning' && (p as { readonly redacted?: boolean }).redacted === true) continue
    s = s === '' ? t : `${s}\n${t}`
  }
  return s.trim()
}

const mediaRef = (p: ImagePart | FilePart): string => {
  const what = p.type === 'image' ? 'image' : `file${p.filename === undefined ? '' : ` ${p.filename}`}`
  if (p.url !== undefined && !p.url.startsWith('data:')) return `[${what}: ${p.url}]`
  const bytes = p.data === undefined ? '' : `, ${p.data.length} bytes`
  return `[${what}: ${p.mediaType ?? 'inline'}${bytes}]`
}

const isMedia = (p: Part): p is ImagePart | FilePart => p.type === 'image' || p.type === 'file'

/** The text a provider part carries that people can read: a compaction's summary, a block's `text` or `content` string. */
const providerText = (p: ProviderPart): string => {
  if (!isObject(p.data)) return ''
  for (const key of ['content', 'text', 'summary']) {
    const v = p.data[key]
    if (typeof v === 'string') return v.trim()
  }
  return ''
}

/** A provider part as a reference: `[anthropic web_search_tool_result]`, with up to 200 characters of its readable text. */
const providerRef = (p: ProviderPart): string => {
  const t = oneLine(providerText(p))
  return `[${p.provider} ${p.kind}${t === '' ? '' : `: ${t.length > 200 ? `${t.slice(0, 200)}…` : t}`}]`
}

const providerLines = (m: Message, skip: (p: ProviderPart) => boolean = () => false): string[] => {
  const out: string[] = []
  for (const p of m.parts) if (p.type === 'provider' && !skip(p)) out.push(providerRef(p))
  return out
}

const mediaLines = (m: Message): string => {
  let s = ''
  for (const p of m.parts) if (isMedia(p)) s += `${s === '' ? '' : '\n'}${mediaRef(p)}`
  return s
}

/** Whether a message belongs to a sub-conversation (`metadata.subagent`, set by the session-file readers). */
const isSubconversation = (m: Message): boolean => {
  const s = m.metadata?.['subagent']
  return typeof s === 'object' && s !== null
}

const indent = (s: string, by: string): string => by + s.replace(/\n/g, `\n${by}`)

const oneLine = (s: string): string => s.replace(/\s*\n\s*/g, ' ').trim()

const resultsOf = (m: Message): ToolResultPart[] => m.parts.filter((p): p is ToolResultPart => p.type === 'tool_result')
const callsOf = (m: Message): ToolCallPart[] => m.parts.filter((p): p is ToolCallPart => p.type === 'tool_call')

// --- plain text ---

/**
 * A message as plain text, ending with a newline: `[User]: …`,
 * `[Assistant thinking]: …`, `[Assistant]: …`, each call as `  → name(arguments)`, each tool
 * result as `  ← name result:` with its content indented, images and files as `[image: …]`
 * references, a provider part as `[provider kind: its readable text]`, a bookmark as
 * `=== label ===`, a display notice as `[Notice]: …` (a message of a sub-conversation, marked
 * `metadata.subagent`, as `[User (sub-conversation)]: …` with its calls and results); a metadata
 * message renders as the empty string.
 *
 * @example
 * import { renderMessage } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * renderMessage(textMessage('user', 'What is Go?')) // '[User]: What is Go?\n'
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderMessage = (m: Message): string => {
  if (m.kind === 'metadata') return ''
  if (m.kind === 'bookmark') return `=== ${oneLine(joinText(m, 'text'))} ===\n`
  let out = ''
  const text = joinText(m, 'text')
  const media = mediaLines(m)
  // a sub-conversation's messages are display messages that show as the messages they are
  const sub = m.kind === 'display' && isSubconversation(m)
  if (m.kind === 'display' && !sub) return `[Notice]: ${text}${media === '' ? '' : `\n${media}`}\n`
  const title = sub ? `${TITLES[m.role]} (sub-conversation)` : TITLES[m.role]
  if (m.role === 'assistant') {
    const thinking = joinText(m, 'reasoning')
    if (thinking !== '') out += `[${title} thinking]: ${thinking}\n`
  }
  if (text !== '' || (m.role !== 'assistant' && m.role !== 'tool')) out += `[${title}]: ${text}\n`
  if (media !== '') out += `${media}\n`
  for (const line of providerLines(m)) out += `${line}\n`
  for (const c of callsOf(m)) out += `  → ${c.name}(${c.arguments})\n`
  for (const r of resultsOf(m)) out += `  ← ${r.name ?? 'tool'} ${r.isError ? 'error' : 'result'}:\n${indent(toolResultText(r).trim(), '    ')}\n`
  return out
}

/**
 * A history as plain text: every message rendered, one after another.
 *
 * @example
 * import { render } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * render([textMessage('user', 'hi'), textMessage('assistant', 'Hello!')]) // '[User]: hi\n[Assistant]: Hello!\n'
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (ms: Messages): string => {
  const out: string[] = []
  for (const m of ms) out.push(renderMessage(m))
  return out.join('')
}

/**
 * A message as log lines, each starting with a bracketed label: `[user] …`,
 * `[assistant (thinking)] …`, `[assistant] …`, `[call c1] name(arguments)`, `[tool c1] name: …`,
 * `[bookmark] --- label ---`, `[metadata] {…}`. One-turn and internal kinds show in the label
 * (`[user/synthetic] …`). No trailing newline.
 *
 * @example
 * import { renderLogLines } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * renderLogLines(textMessage('user', 'Reminder', { kind: 'synthetic' })) // '[user/synthetic] Reminder'
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderLogLines = (m: Message): string => {
  if (m.kind === 'bookmark') return `[bookmark] --- ${oneLine(joinText(m, 'text'))} ---`
  if (m.kind === 'metadata') return `[metadata] ${JSON.stringify(m.metadata ?? {})}`
  const label = m.kind === 'normal' ? m.role : `${m.role}/${m.kind}`
  const lines: string[] = []
  const thinking = joinText(m, 'reasoning')
  if (thinking !== '') lines.push(`[${label} (thinking)] ${thinking}`)
  const text = joinText(m, 'text')
  if (text !== '') lines.push(`[${label}] ${text}`)
  for (const p of m.parts) if (isMedia(p)) lines.push(`[${label}] ${mediaRef(p)}`)
  for (const line of providerLines(m)) lines.push(`[${label}] ${line}`)
  for (const c of callsOf(m)) lines.push(`[call ${c.id}] ${c.name}(${c.arguments})`)
  for (const r of resultsOf(m)) lines.push(`[${label} ${r.toolCallId}${r.isError ? ' error' : ''}] ${r.name ?? 'tool'}: ${r.content}`)
  if (m.error !== undefined) lines.push(`[${label} error] ${m.error}`)
  return lines.length === 0 ? `[${label}]` : lines.join('\n')
}

/**
 * A message as compact, labelled lines for a compaction prompt:
 * `[User]: …`, `[Assistant]: …` and `  → name(arguments)` per call, `  ← name result:` with the
 * content indented. Reasoning is left out, and system, display, bookmark and metadata messages
 * give the empty string. Content is included as is: cut it first (`forCompaction`).
 *
 * @example
 * import { renderTranscriptLines } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * renderTranscriptLines(textMessage('user', 'Fix the test')) // '[User]: Fix the test'
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderTranscriptLines = (m: Message): string => {
  if (m.role === 'system' || isInternal(m)) return ''
  const lines: string[] = []
  const text = joinText(m, 'text')
  if (text !== '' || m.role === 'user') lines.push(`[${TITLES[m.role]}]: ${text}`)
  for (const p of m.parts) if (isMedia(p)) lines.push(mediaRef(p))
  // a compaction boundary is the transcript's previous summary (renderTranscript), not a line here
  lines.push(...providerLines(m, isCompactionBoundary))
  for (const c of callsOf(m)) lines.push(`  → ${c.name}(${c.arguments})`)
  for (const r of resultsOf(m)) lines.push(`  ← ${r.name ?? 'tool'} ${r.isError ? 'error' : 'result'}:\n${indent(toolResultText(r).trim(), '    ')}`)
  return lines.join('\n')
}

// --- markdown ---

/** The longest run of `ch` in `s`. */
const longestRun = (s: string, ch: string): number => {
  let best = 0
  let i = s.indexOf(ch)
  while (i >= 0) {
    let j = i + 1
    while (s[j] === ch) j++
    if (j - i > best) best = j - i
    i = s.indexOf(ch, j)
  }
  return best
}

/** `content` in a code block whose fence is longer than any backtick run inside it, so nothing escapes. */
const fenced = (content: string, info = ''): string => {
  const f = '`'.repeat(Math.max(3, longestRun(content, '`') + 1))
  return `${f}${info}\n${content}${content.endsWith('\n') || content === '' ? '' : '\n'}${f}\n`
}

/** CommonMark HTML blocks that run until an end marker rather than a blank line: start, end, closing line. */
const HTML_BLOCKS: ReadonlyArray<readonly [RegExp, RegExp, string]> = [
  [/^ {0,3}<(?:pre|script|style|textarea)(?:\s|>|$)/i, /<\/(?:pre|script|style|textarea)>/i, '</pre></script></style></textarea>'],
  [/^ {0,3}<!--/, /-->/, '-->'],
  [/^ {0,3}<\?/, /\?>/, '?>'],
  [/^ {0,3}<![A-Za-z]/, />/, '>'],
  [/^ {0,3}<!\[CDATA\[/, /\]\]>/, ']]>'],
]

/**
 * Markdown text with whatever it leaves open at its end closed there: a code fence, or an HTML
 * block that runs until an end marker (a comment, `<pre>`, …), so that it cannot swallow what
 * follows it. Text with no such construct comes back as is.
 */
const contained = (s: string): string => {
  if (!s.includes('```') && !s.includes('~~~') && !s.includes('<')) return s
  let fence: { readonly ch: string; readonly len: number } | undefined
  let html: readonly [RegExp, RegExp, string] | undefined
  for (const line of s.split('\n')) {
    if (fence !== undefined) {
      const m = FENCE.exec(line)
      if (m !== null && (m[1] as string)[0] === fence.ch && (m[1] as string).length >= fence.len && (m[2] as string).trim() === '') fence = undefined
      continue
    }
    if (html !== undefined) {
      if (html[1].test(line)) html = undefined
      continue
    }
    const m = FENCE.exec(line)
    if (m !== null) {
      const run = m[1] as string
      if (!(run[0] === '`' && (m[2] as string).includes('`'))) fence = { ch: run[0] as string, len: run.length }
      continue
    }
    const block = HTML_BLOCKS.find(([start]) => start.test(line))
    if (block !== undefined && !block[1].test(line.slice(line.indexOf('<') + 2))) html = block
  }
  if (fence !== undefined) return `${s}\n${fence.ch.repeat(fence.len)}`
  if (html !== undefined) return `${s}\n${html[2]}`
  return s
}

const quote = (s: string): string => `> ${s.replace(/\n/g, '\n> ')}`

const prettyArguments = (raw: string): { readonly text: string; readonly info: string } => {
  try {
    return { text: JSON.stringify(JSON.parse(raw) as unknown, null, 2), info: 'json' }
  } catch {
    return { text: raw, info: '' }
  }
}

const mediaMarkdown = (p: ImagePart | FilePart): string => {
  if (p.url !== undefined && !p.url.startsWith('data:')) {
    const label = (p.type === 'image' ? 'image' : (p.filename ?? 'file')).replace(/[[\]\\]/g, '\\$&')
    const target = `<${p.url.replace(/[<>\n]/g, encodeURIComponent)}>`
    return p.type === 'image' ? `![${label}](${target})` : `[${label}](${target})`
  }
  return `*${mediaRef(p).replace(/[*_\\]/g, '\\$&')}*`
}

/** A compaction boundary as a marked quote of its summary; any other provider part as an italic reference. */
const providerMarkdown = (p: ProviderPart): string =>
  isCompactionBoundary(p)
    ? quote(`**Compacted by ${oneLine(p.provider)}:** ${contained(providerText(p) || '(opaque)')}`)
    : `*${providerRef(p).replace(/[*_\\[\]]/g, '\\$&')}*`

/** A display message's label: `Notice`, or the role in a sub-conversation (`metadata.subagent`). */
const noticeLabel = (m: Message): string => (isSubconversation(m) ? `${TITLES[m.role]} (sub-conversation)` : 'Notice')

/** A message's own headings go below the export's `## Role` sections. */
const demoted = demoteHeadings(2)

/** `2026-03-02T10:00:09.000Z` as `2026-03-02 10:00:09 UTC`; other text as it is. */
const readableTime = (iso: string): string => {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/.exec(iso)
  return m === null ? iso : `${m[1] as string} ${m[2] as string} UTC`
}

/** The line under a message's heading: where an injected message came from (`metadata.origin`), its model and time, when it has them. */
const byline = (m: Message): string => {
  const origin = m.metadata?.['origin']
  const bits = [
    ...(typeof origin === 'string' && m.kind !== 'normal' ? [origin] : []),
    ...(m.model === undefined ? [] : [m.model]),
    ...(m.createdAt === undefined ? [] : [readableTime(m.createdAt)]),
  ]
  return bits.length === 0 ? '' : `\n*${bits.map((b) => oneLine(b).replace(/[*_\\\x60[\]<]/g, '\\$&')).join(' · ')}*\n`
}

const resultBlock = (r: ToolResultPart): string => `\n**${r.isError ? 'Error' : 'Result'}:**\n\n${fenced(toolResultText(r).trim())}`

/**
 * Options of `renderMarkdownWith`: `reasoning` is `omit` (the default) or `include` (as a quote).
 *
 * @example
 * import { renderMarkdownWith, type MarkdownOptions } from 'chatfold/history'
 * const opts: MarkdownOptions = { reasoning: 'include' }
 * const toMarkdown = renderMarkdownWith(opts)
 *
 * @since 0.1.0
 * @category rendering
 */
export type MarkdownOptions = { readonly reasoning?: 'omit' | 'include' }

/**
 * A history as Markdown, with options (see `renderMarkdown`); `reasoning: 'include'` shows each
 * assistant message's reasoning as a `> **Thinking:**` quote.
 *
 * @example
 * import { renderMarkdownWith } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * renderMarkdownWith({ reasoning: 'include' })([textMessage('user', 'hi')]) // '## User\n\nhi\n'
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderMarkdownWith = (opts: MarkdownOptions) => (ms: Messages): string => {
  const withReasoning = opts.reasoning === 'include'
  // each result goes under its call; the rest stand alone (calls of metadata and bookmark
  // messages are not rendered, so their results stand alone too)
  const calls = new Set<string>()
  for (const m of ms)
    if (m.role === 'assistant' && m.kind !== 'metadata' && m.kind !== 'bookmark') { for (const p of m.parts) if (p.type === 'tool_call') calls.add(p.id) }
  const results = new Map<string, ToolResultPart>()
  for (const m of ms) {
    if (m.kind === 'metadata') continue
    for (const p of m.parts) if (p.type === 'tool_result' && calls.has(p.toolCallId) && !results.has(p.toolCallId)) results.set(p.toolCallId, p)
  }
  const shown = new Set<ToolResultPart>()
  const blocks: string[] = []
  for (const m of ms) {
    if (m.kind === 'metadata') continue
    const text = joinText(m, 'text')
    if (m.kind === 'bookmark') {
      blocks.push(`---\n\n*${oneLine(text).replace(/[*_\\]/g, '\\$&') || 'Bookmark'}*\n`)
      continue
    }
    let b = ''
    if (m.kind === 'display') b += `${quote(`**${noticeLabel(m)}:** ${contained(demoted(text))}`)}\n`
    else if (m.role !== 'tool' || text !== '') {
      b += `## ${TITLES[m.role]}${m.sender === undefined ? '' : ` (${oneLine(m.sender)})`}\n${byline(m)}`
      if (withReasoning) {
        const thinking = joinText(m, 'reasoning')
        if (thinking !== '') b += `\n${quote(`**Thinking:** ${contained(demoted(thinking))}`)}\n`
      }
      if (text !== '') b += `\n${contained(demoted(text))}\n`
    }
    for (const p of m.parts) if (isMedia(p)) b += `\n${mediaMarkdown(p)}\n`
    for (const p of m.parts) if (p.type === 'provider') b += `\n${providerMarkdown(p)}\n`
    for (const p of m.parts) {
      if (p.type === 'tool_call') {
        const args = prettyArguments(p.arguments)
        b += `\n### Tool: ${oneLine(p.name)}\n\n**Arguments:**\n\n${fenced(args.text, args.info)}`
        const r = m.role === 'assistant' ? results.get(p.id) : undefined
        if (r !== undefined && !shown.has(r)) {
          shown.add(r)
          b += resultBlock(r)
        }
      } else if (p.type === 'tool_result' && results.get(p.toolCallId) !== p) {
        // unpaired (or a repeat): on its own, where it stands
        b += `${b === '' ? '' : '\n'}## Tool result: ${oneLine(p.name ?? 'tool')}\n${resultBlock(p)}`
      }
    }
    if (b !== '') blocks.push(b)
  }
  return blocks.join('\n')
}

/**
 * A history as Markdown, reasoning left out: a `## Role` section per
 * message, with a line in italics giving its model and time when it has them (`*model ·
 * 2026-03-02 10:00:09 UTC*`, led by `metadata.origin` for an injected message) and its own
 * headings two levels deeper (a `# Title` in a reply becomes `### Title`, below the export's
 * sections); each tool call as `### Tool: name` with its arguments and, right under it, its
 * result; a result without a call shows on its own; bookmarks are a rule with the label in
 * italics; display notices are quotes (labelled with their role in a sub-conversation, whose
 * messages carry `metadata.subagent`); images, files and provider parts are references, and a
 * provider's compaction a quote of its summary marked `Compacted by …`. Every fence is longer
 * than any backtick run in its content, and a message's own open fences are closed, so no content
 * breaks out of its block. Pass `forExport(history)` for a human-readable export.
 *
 * @example
 * import { makeMessage, renderMarkdown, toolCall, toolResult } from 'chatfold'
 * renderMarkdown([
 *   makeMessage({ role: 'assistant', parts: [toolCall({ id: 'c1', name: 'ls', arguments: '{}' })] }),
 *   makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: 'README.md' })] }),
 * ])
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderMarkdown: (ms: Messages) => string = renderMarkdownWith({ reasoning: 'omit' })
