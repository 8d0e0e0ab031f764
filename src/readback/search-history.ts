/**
 * Searching a history for a text or a pattern, over what its messages said and what their tools
 * answered (text parts, tool results, tool-call arguments): the matching parts ranked by how often
 * they match, then newest first, each with a snippet around its first match and, for a tool's
 * output, the reference to read the whole of it back (`readBack`), within a byte budget.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import type { Part, ToolCallPart, ToolResultPart } from '../message/part-model.ts'
import { toolResultText } from '../message/tool-result-content.ts'
import { utf8Hash } from '../internal/content-hash.ts'
import { nonNegativeInt } from '../internal/number.ts'
import { pointersOf, REF_DIGITS, refStem } from '../history/pointer.ts'

// --- model ---

/**
 * Options of {@link searchHistory}: the `query`; `match`, `text` (the default: the query as it is,
 * ignoring case) or `regex` (a JavaScript regular expression, ignoring case unless `case` is
 * `sensitive`); the most hits (default 20) and the most UTF-8 bytes of snippets (default 8,000) an
 * answer holds, and how many characters a snippet shows around its match (default 160).
 *
 * @example
 * import type { HistorySearchOptions } from 'chatfold/readback'
 * const opts: HistorySearchOptions = { query: 'ENOENT|EACCES', match: 'regex', limit: 10 }
 *
 * @since 0.1.0
 * @category read-back
 */
export type HistorySearchOptions = {
  readonly query: string
  readonly match?: 'text' | 'regex'
  readonly case?: 'insensitive' | 'sensitive'
  readonly limit?: number
  readonly maxBytes?: number
  readonly snippetChars?: number
}

/**
 * One matching part: its message (id, role), where the match is (`text`, a tool `result`, or a
 * call's `arguments`), the tool call's id and tool name and the reference to read the whole output
 * back (for a tool's output), how many times it matches, and a snippet around the first match.
 *
 * @example
 * import type { SearchHit } from 'chatfold/readback'
 * const hit: SearchHit = { messageId: 't7', role: 'tool', where: 'result', toolCallId: 'call_3', tool: 'bash', ref: 'call_3@0f3a9c21', matches: 2, snippet: '…Error: ENOENT: no such file…' }
 *
 * @since 0.1.0
 * @category read-back
 */
export type SearchHit = {
  readonly messageId: string
  readonly role: Message['role']
  readonly where: 'text' | 'result' | 'arguments'
  readonly toolCallId?: string
  readonly tool?: string
  readonly ref?: string
  readonly matches: number
  readonly snippet: string
}

/**
 * What a search found: the hits given (ranked), how many parts matched in all, and `failure` when
 * the query is not a valid regular expression (then nothing is searched).
 *
 * @example
 * import { searchHistory } from 'chatfold/readback'
 * searchHistory({ query: 'needle' })([]) // { hits: [], matched: 0 }
 *
 * @since 0.1.0
 * @category read-back
 */
export type SearchResult = { readonly hits: ReadonlyArray<SearchHit>; readonly matched: number; readonly failure?: string }

// --- searching ---

const encoder = new TextEncoder()

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** At most this many matches are counted in one part (its rank does not need more). */
const MAX_COUNT = 1_000

/** A candidate before ranking: the hit without its snippet, and where its text is. */
type Candidate = { readonly hit: Omit<SearchHit, 'snippet'>; readonly text: string; readonly at: number; readonly length: number; readonly order: number }

/** The searchable text of a part, and where it is; `undefined` for a part with none (or a placeholder: what it stood for is not there). */
const searchable = (p: Part, taken: ReadonlySet<string> | undefined): { readonly where: SearchHit['where']; readonly text: string } | undefined => {
  if (p.type === 'text') return { where: 'text', text: p.text }
  if (p.type === 'tool_result') {
    const r = p as ToolResultPart
    return taken?.has(`${r.toolCallId}\u0000result`) === true ? undefined : { where: 'result', text: toolResultText(r) }
  }
  if (p.type === 'tool_call') {
    const c = p as ToolCallPart
    return taken?.has(`${c.id}\u0000arguments`) === true ? undefined : { where: 'arguments', text: c.arguments }
  }
  return undefined
}

/** The outputs taken from `m` by a prune or a clearing (its `metadata.pointers`), as `id\0side` keys; `undefined` when none. */
const takenFrom = (m: Message): ReadonlySet<string> | undefined => {
  const ps = pointersOf(m)
  return ps.length === 0 ? undefined : new Set(ps.map((p) => `${p.toolCallId}\u0000${p.part}`))
}

const snippetOf = (c: Candidate, chars: number): string => {
  const before = Math.max(0, c.at - Math.floor((chars - c.length) / 2))
  const from = Math.max(0, Math.min(before, c.text.length - chars))
  const to = Math.min(c.text.length, from + Math.max(chars, c.length))
  return `${from > 0 ? '…' : ''}${c.text.slice(from, to)}${to < c.text.length ? '…' : ''}`
}

/**
 * Searches a history (the archive of a compaction, the history before pruning, a stored
 * conversation) for `query` over its text parts, tool results and tool-call arguments (not over
 * placeholders, which no longer hold what they stood for: a message's `metadata.pointers` lists them). Ranks the matching parts by how many
 * times they match, then newest first, and gives the first `limit` whose snippets fit `maxBytes`;
 * a tool output's hit carries the reference `readBack` takes for the whole of it.
 *
 * @example
 * import { searchHistory } from 'chatfold/readback'
 * import { makeMessage, textMessage, toolCall, toolResult } from 'chatfold/message'
 * const history = [
 *   textMessage('user', 'Why does the build fail?'),
 *   makeMessage({ id: 'a1', role: 'assistant', parts: [toolCall({ id: 'c1', name: 'bash', arguments: '{"cmd":"npm run build"}' })] }),
 *   makeMessage({ id: 't1', role: 'tool', parts: [toolResult({ toolCallId: 'c1', name: 'bash', content: 'Error: ENOENT: src/cart.ts' })] }),
 * ]
 * searchHistory({ query: 'enoent' })(history).hits.map((h) => h.ref?.startsWith('c1@')) // [true]
 *
 * @since 0.1.0
 * @category read-back
 */
export const searchHistory = (opts: HistorySearchOptions) => (ms: Messages): SearchResult => {
  if (opts.query === '') return { hits: [], matched: 0 }
  let re: RegExp
  try {
    re = new RegExp(opts.match === 'regex' ? opts.query : escapeRegex(opts.query), opts.case === 'sensitive' ? 'g' : 'gi')
  } catch (e) {
    return { hits: [], matched: 0, failure: `Cannot search for ${JSON.stringify(opts.query)}: ${e instanceof Error ? e.message : String(e)}` }
  }
  const candidates: Candidate[] = []
  const names = new Map<string, string>()
  let order = 0
  for (const m of ms) {
    const taken = m.metadata === undefined ? undefined : takenFrom(m)
    for (const p of m.parts) {
      if (p.type === 'tool_call') names.set((p as ToolCallPart).id, (p as ToolCallPart).name)
      const s = searchable(p, taken)
      if (s === undefined) continue
      re.lastIndex = 0
      const first = re.exec(s.text)
      order++
      if (first === null) continue
      let matches = 1
      const length = first[0].length
      if (length > 0) { while (matches < MAX_COUNT && re.exec(s.text) !== null) matches++ }
      const call = p.type === 'tool_result' ? (p as ToolResultPart).toolCallId : p.type === 'tool_call' ? (p as ToolCallPart).id : undefined
      const tool = p.type === 'tool_result'
        ? ((p as ToolResultPart).name ?? names.get(call ?? ''))
        : p.type === 'tool_call'
        ? (p as ToolCallPart).name
        : undefined
      const hit: Omit<SearchHit, 'snippet'> = {
        messageId: m.id,
        role: m.role,
        where: s.where,
        ...(call === undefined ? {} : { toolCallId: call, ref: refStem(call, s.where === 'arguments' ? 'arguments' : 'result') }),
        ...(tool === undefined ? {} : { tool }),
        matches,
      }
      candidates.push({ hit, text: s.text, at: first.index, length, order })
    }
  }
  candidates.sort((a, b) => b.hit.matches - a.hit.matches || b.order - a.order)
  const limit = nonNegativeInt(opts.limit, 20)
  const budget = nonNegativeInt(opts.maxBytes, 8_000)
  const chars = Math.max(16, nonNegativeInt(opts.snippetChars, 160))
  const hits: SearchHit[] = []
  let used = 0
  for (const c of candidates) {
    if (hits.length >= limit) break
    const snippet = snippetOf(c, chars)
    // the hash is made only for the hits given (each reads its whole output once)
    const hit = c.hit.ref === undefined ? { ...c.hit, snippet } : { ...c.hit, ref: c.hit.ref + utf8Hash(c.text).slice(0, REF_DIGITS), snippet }
    const size = encoder.encode(JSON.stringify(hit)).length
    if (used + size > budget) break
    used += size
    hits.push(hit)
  }
  return { hits, matched: candidates.length }
}
