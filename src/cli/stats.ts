/**
 * `chatfold stats`: what a history holds, counted once.
 *
 * @module
 */
import type { Message, Messages } from '../message.ts'
import { type ToolPairIssue, validateToolPairs } from '../messages/pairs.ts'
import { countMessage, type Estimator } from '../tokens.ts'
import { forLLM } from '../messages/views.ts'

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
}

const bump = (r: Record<string, number>, k: string): void => void (r[k] = (r[k] ?? 0) + 1)

/** Counts a history with an estimator; `onMessage` is called every 500 messages (for a progress bar). */
export const statsOf = (estimate: Estimator, ms: Messages, bytes: number, top: number, onMessage?: (done: number) => void): Stats => {
  const count = countMessage(estimate)
  const byRole: Record<string, number> = {}
  const byKind: Record<string, number> = {}
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
    }
    sized.push({ index: i, id: m.id, role: m.role, tokens: t.total })
    if (onMessage !== undefined && (i + 1) % 500 === 0) onMessage(i + 1)
  })
  onMessage?.(ms.length)
  const largest = sized.sort((a, b) => b.tokens - a.tokens || a.index - b.index).slice(0, top)
  return { messages: ms.length, bytes, byRole, byKind, tokens: { total, content, thinking, tools }, toolCalls, toolErrors, largest, toolPairs: validateToolPairs(forLLM(ms)) }
}

const int = (n: number): string => n.toLocaleString('en')
const issueLine = (i: ToolPairIssue): string =>
  i.kind === 'missing_result'
    ? `#${i.index} ${i.messageId}: call ${i.toolCallId} (${i.name}) has no result`
    : i.kind === 'orphan_result'
      ? `#${i.index} ${i.messageId}: result for ${i.toolCallId} has no call`
      : i.kind === 'duplicate_id'
        ? `#${i.index} ${i.messageId}: call id ${i.toolCallId} used twice`
        : `#${i.index} ${i.messageId}: reasoning with no answer`

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
    'largest messages:',
    ...s.largest.map((l) => `  #${String(l.index).padEnd(6)} ${l.role.padEnd(9)} ${int(l.tokens).padStart(9)} tokens  ${l.id}`),
    s.toolPairs.valid ? 'tool pairs: ok' : `tool pairs: ${int(s.toolPairs.issues.length)} problem${s.toolPairs.issues.length === 1 ? '' : 's'}`,
    ...s.toolPairs.issues.slice(0, 20).map((i) => `  ${issueLine(i)}`),
    ...(s.toolPairs.issues.length > 20 ? [`  … ${int(s.toolPairs.issues.length - 20)} more`] : []),
  ].join('\n')
}
