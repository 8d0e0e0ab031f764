/**
 * `chatfold stats`: what a history holds, counted once, and the usage it records next to the
 * estimate (`recordedUsage`).
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import { type ToolPairIssue, validateToolPairs } from '../history/pairs.ts'
import { type EncodingName, loadEstimator } from '../tokenizer/load.ts'
import { countMessage } from '../tokens/count.ts'
import { type TokenBreakdown } from '../tokens/message-tokens.ts'
import { type RecordedUsage, recordedUsage, type UsageEstimates } from '../tokens/recorded-usage.ts'
import { loadHistory, loadOptions, notes, readReport } from './_load.ts'
import { type CliIO, progressBar } from './_progress.ts'
import { CliError, EXIT } from './_exit.ts'
import { type Common, showProgress } from './_common.ts'
import { grouped } from '../internal/number.ts'
import { forLLM, lastCompactionBoundary } from '../history/views.ts'
import { type ContextTokens, contextTokens, usageCorrected } from '../tokens/usage.ts'
import { billedLedger, costJson, costLines } from './_cost.ts'

/** The figures `stats` prints. */
export type Stats = {
  readonly messages: number
  readonly bytes: number
  readonly byRole: Readonly<Record<string, number>>
  readonly byKind: Readonly<Record<string, number>>
  readonly tokens: { readonly total: number; readonly content: number; readonly thinking: number; readonly tools: number }
  readonly toolCalls: number
  readonly toolErrors: number
  readonly largest: ReadonlyArray<{ readonly index: number; readonly id: string; readonly role: string; readonly tokens: number }>
  /** Tool pairing of what is sent to a model (the `forLLM` view: display-only messages such as sub-agent runs play no part); indexes are into that view. */
  readonly toolPairs: { readonly valid: boolean; readonly issues: ReadonlyArray<ToolPairIssue> }
  readonly usage: RecordedUsage
  /** Blocks only one provider knows, kept as provider parts, by `provider kind` (`anthropic compaction`). */
  readonly providerParts: Readonly<Record<string, number>>
  /** Where the last provider compaction boundary stands (what precedes it is not sent), when there is one. */
  readonly compactionBoundary?: { readonly index: number; readonly id: string; readonly provider: string; readonly replaced: number }
  /** The context a provider will see of the history: the last usage it records plus the estimate of what follows (`contextTokens`). */
  readonly context: ContextTokens
  /** The estimate alone of what reaches a model, no report anchoring it: what `context` corrects. */
  readonly contextEstimate: number
}

const bump = (r: Record<string, number>, k: string): void => void (r[k] = (r[k] ?? 0) + 1)

/** Counts a history with a counter (kept: usage reuses its counts); `onMessage` is called every 500 messages (for a progress bar). */
export const statsOf = (count: (m: Message) => TokenBreakdown, ms: Messages, bytes: number, top: number, onMessage?: (done: number) => void): Stats => {
  const byRole: Record<string, number> = {}
  const byKind: Record<string, number> = {}
  const providerParts: Record<string, number> = {}
  let total = 0
  let content = 0
  let thinking = 0
  let tools = 0
  let toolCalls = 0
  let toolErrors = 0
  const sized: Array<{ index: number; id: string; role: string; tokens: number }> = []
  ms.forEach((m: Message, i) => {
    bump(byRole, m.role)
    bump(byKind, m.kind)
    const t = count(m)
    total += t.total
    content += t.content
    thinking += t.thinking
    tools += t.tools
    for (const p of m.parts) {
      if (p.type === 'tool_call') toolCalls++
      else if (p.type === 'tool_result' && p.isError) toolErrors++
      else if (p.type === 'provider') bump(providerParts, `${p.provider} ${p.kind}`)
    }
    sized.push({ index: i, id: m.id, role: m.role, tokens: t.total })
    if (onMessage !== undefined && (i + 1) % 500 === 0) onMessage(i + 1)
  })
  onMessage?.(ms.length)
  const largest = sized.sort((a, b) => b.tokens - a.tokens || a.index - b.index).slice(0, top)
  const usage = recordedUsage({ count: (m) => count(m).total })(ms)
  const at = lastCompactionBoundary(ms)
  const boundary = at === undefined ? undefined : ms[at.message]
  const part = boundary?.parts[at?.part ?? 0]
  const compactionBoundary = at === undefined || boundary === undefined || part?.type !== 'provider' ? {} : {
    compactionBoundary: {
      index: at.message,
      id: boundary.id,
      provider: part.provider,
      replaced: ms.slice(0, at.message).filter((m) => m.role !== 'system').length,
    },
  }
  const context = contextTokens({ count: (m) => count(m).total })(ms)
  const contextEstimate = usageCorrected({ count: (m) => count(m).total })(ms)
  return {
    messages: ms.length,
    bytes,
    byRole,
    byKind,
    tokens: { total, content, thinking, tools },
    toolCalls,
    toolErrors,
    largest,
    toolPairs: validateToolPairs(forLLM(ms)),
    usage,
    context,
    contextEstimate,
    providerParts,
    ...compactionBoundary,
  }
}

const int = grouped
const issueLine = (i: ToolPairIssue): string =>
  i.kind === 'missing_result'
    ? `#${i.index} ${i.messageId}: call ${i.toolCallId} (${i.name}) has no result`
    : i.kind === 'orphan_result'
    ? `#${i.index} ${i.messageId}: result for ${i.toolCallId} has no call`
    : i.kind === 'duplicate_id'
    ? `#${i.index} ${i.messageId}: call id ${i.toolCallId} used twice`
    : `#${i.index} ${i.messageId}: reasoning with no answer`

const duration = (ms: number): string => {
  const s = Math.round(ms / 1000)
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  return h > 0 ? `${h} h ${m} min` : m > 0 ? `${m} min ${s % 60} s` : `${s} s`
}

/** The recorded usage as lines: the span, a row per model (reported next to estimated), the last request. */
const usageLines = (u: RecordedUsage, encoding: string): string[] => {
  const lines: string[] = []
  if (u.span !== undefined) lines.push(`time: ${u.span.first} → ${u.span.last} (${duration(u.span.ms)})`)
  if (u.byModel.length === 0) return [...lines, `usage: none recorded${u.malformed.length > 0 ? ` (${u.malformed.length} unreadable)` : ''}`]
  const cols = ['replies', 'input', 'output', 'cache read', 'cache write', 'est. prompt', 'est. output']
  const width = Math.max(5, ...u.byModel.map((m) => m.model.length))
  const row = (name: string, xs: ReadonlyArray<number | string>): string =>
    `  ${name.padEnd(width)} ${xs.map((x, i) => (typeof x === 'number' ? int(x) : x).padStart(Math.max(9, (cols[i] as string).length))).join(' ')}`
  /** The estimate of the prompts as a share of the reported ones. */
  const share = (m: UsageEstimates): string => (m.reportedPrompt > 0 ? `${((100 * m.estimatedPrompt) / m.reportedPrompt).toFixed(0)}%` : '—')
  lines.push(`usage as reported, per model (est.: ${encoding}; est. prompt: the history's part of the reported prompts):`, row('model', cols))
  for (const m of u.byModel) lines.push(row(m.model, [m.replies, m.input, m.output, m.cacheRead, m.cacheWrite, share(m), m.estimatedOutput]))
  if (u.byModel.length > 1)
    lines.push(row('total', [u.total.replies, u.total.input, u.total.output, u.total.cacheRead, u.total.cacheWrite, share(u.total), u.total.estimatedOutput]))
  if (u.unreported > 0 || u.malformed.length > 0)
    lines.push(
      `  ${int(u.unreported)} replies without usage${
        u.malformed.length > 0
          ? `, ${u.malformed.length} with usage in an unknown shape: ${u.malformed.slice(0, 5).join(', ')}${u.malformed.length > 5 ? ', …' : ''}`
          : ''
      }`,
    )
  const l = u.last
  if (l !== undefined)
    lines.push(
      `last request (${l.messageId}${l.model === undefined ? '' : `, ${l.model}`}): reported prompt ${int(l.reportedContext)} (input ${
        int(l.reported.input)
      } + cache read ${int(l.reported.cacheRead)} + cache write ${int(l.reported.cacheWrite)}), estimated ${int(l.estimatedContext)} (${encoding})${
        l.ratio === undefined ? '' : `, ratio ${l.ratio.toFixed(3)}`
      }`,
    )
  return lines
}

/** The usage-anchored context size, next to the estimate alone. */
const contextLine = (c: ContextTokens, alone: number, encoding: string): string =>
  c.anchor === undefined
    ? `context: ${int(c.total)} tokens estimated (${encoding}; no usage recorded to anchor it)`
    : `context: ${int(c.total)} tokens = ${int(c.reported)} reported at ${c.anchor} + ${int(c.estimated)} estimated since (${encoding}); the estimate alone: ${
      int(alone)
    }`

/** The stats as text for a person. */
export const formatStats = (file: string, format: string, encoding: string, s: Stats): string => {
  const rows = (r: Readonly<Record<string, number>>): string =>
    Object.entries(r)
      .map(([k, n]) => `  ${k.padEnd(10)} ${int(n).padStart(9)}`)
      .join('\n')
  return [
    `${file} (${format}): ${int(s.messages)} messages, ${int(s.bytes)} bytes`,
    'by role:',
    rows(s.byRole),
    'by kind:',
    rows(s.byKind),
    `tokens (${encoding}):`,
    rows({ total: s.tokens.total, content: s.tokens.content, thinking: s.tokens.thinking, tools: s.tokens.tools }),
    `tool calls: ${int(s.toolCalls)}, tool errors: ${int(s.toolErrors)}`,
    ...(Object.keys(s.providerParts).length === 0 ? [] : ['kept as provider parts (blocks only one provider knows):', rows(s.providerParts)]),
    ...(s.compactionBoundary === undefined ? [] : [
      `compacted by ${s.compactionBoundary.provider} at #${s.compactionBoundary.index} ${s.compactionBoundary.id}: the ${
        int(s.compactionBoundary.replaced)
      } messages before it are not sent`,
    ]),
    'largest messages:',
    ...s.largest.map((l) => `  #${String(l.index).padEnd(6)} ${l.role.padEnd(9)} ${int(l.tokens).padStart(9)} tokens  ${l.id}`),
    ...usageLines(s.usage, encoding),
    contextLine(s.context, s.contextEstimate, encoding),
    s.toolPairs.valid ? 'tool pairs: ok' : `tool pairs: ${int(s.toolPairs.issues.length)} problem${s.toolPairs.issues.length === 1 ? '' : 's'}`,
    ...s.toolPairs.issues.slice(0, 20).map((i) => `  ${issueLine(i)}`),
    ...(s.toolPairs.issues.length > 20 ? [`  … ${int(s.toolPairs.issues.length - 20)} more`] : []),
  ].join('\n')
}

/** `chatfold stats FILE`: the figures for a person, or as JSON; exit 1 when the tool pairs have problems. */
export const statsCommand = async (
  io: CliIO,
  file: string,
  o: Common & { readonly encoding: EncodingName; readonly top: number; readonly cost?: boolean; readonly prices?: string },
): Promise<void> => {
  const h = loadHistory(file, loadOptions(o))
  notes(io, file, o, h)
  const count = countMessage(await loadEstimator(o.encoding))
  const bar = progressBar(io, 'count', showProgress(io, o))
  const s = statsOf(count, h.messages, h.bytes, o.top, (done) => bar.update(done, h.messages.length))
  bar.end()
  // what a compaction recorded in the file replaced
  const archived = h.archive.length
  const ledger = o.cost === true ? billedLedger(file, o, h) : undefined
  io.out(
    o.json === true
      ? `${
        JSON.stringify(
          { file, format: h.format, encoding: o.encoding, ...readReport(h), ...s, archived, ...(ledger === undefined ? {} : { cost: costJson(ledger) }) },
          null,
          2,
        )
      }\n`
      : `${formatStats(file, h.format, o.encoding, s)}${
        archived === 0 ? '' : `\ncompacted: ${grouped(archived)} messages before the compaction summary are archived`
      }${ledger === undefined ? '' : `\n${costLines(ledger).join('\n')}`}\n`,
  )
  if (!s.toolPairs.valid) throw new CliError(EXIT.problems, '')
}
