/**
 * Searching a history for a text or a pattern, over what its messages said and what their tools
 * answered (text parts, tool results, tool-call arguments): the matching parts ranked by how often
 * they match, then newest first, each with a snippet around its first match and, for a tool's
 * output, the reference to read the whole of it back (`readBack`), within a byte budget.
 *
 * @module
 */
import type { Message } from '../message/message.ts'
import { utf8Hash } from '../internal/content-hash.ts'
import { nonNegativeInt } from '../internal/number.ts'
import { REF_DIGITS, refStem } from '../history/pointer.ts'
import { forEachSearchable, type IndexedPart, isHistoryIndex, type ReadBackSource } from './history-index.ts'
import { plainFinds } from './_plain-search.ts'

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

/** A query of ASCII only (its matches ignoring case are exactly where the lower-cased text holds it lower-cased). */
const ASCII = /^[^\u0080-\uffff]*$/

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** At most this many matches are counted in one part (its rank does not need more). */
const MAX_COUNT = 1_000

/** A candidate before ranking: the hit without its snippet, and where its text is. */
type Candidate = { readonly hit: Omit<SearchHit, 'snippet'>; readonly text: string; readonly at: number; readonly length: number; readonly order: number }

/** The lower-cased needle of a search a plain-text lookup can answer (a text of ASCII only, any case, no NUL); `undefined` for another. */
const plainNeedle = (opts: HistorySearchOptions): string | undefined =>
  opts.match === 'regex' || opts.case === 'sensitive' || !ASCII.test(opts.query) || opts.query.includes('\u0000') ? undefined : opts.query.toLowerCase()

const snippetOf = (c: Candidate, chars: number): string => {
  const before = Math.max(0, c.at - Math.floor((chars - c.length) / 2))
  const from = Math.max(0, Math.min(before, c.text.length - chars))
  const to = Math.min(c.text.length, from + Math.max(chars, c.length))
  return `${from > 0 ? '…' : ''}${c.text.slice(from, to)}${to < c.text.length ? '…' : ''}`
}

/**
 * Searches a history (the archive of a compaction, the history before pruning, the history of a framework
 * session kept in the chat store) for `query` over its text parts, tool results and tool-call arguments (not over
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
export const searchHistory = (opts: HistorySearchOptions) => (source: ReadBackSource): SearchResult => {
  if (opts.query === '') return { hits: [], matched: 0 }
  let re: RegExp
  try {
    re = new RegExp(opts.match === 'regex' ? opts.query : escapeRegex(opts.query), opts.case === 'sensitive' ? 'g' : 'gi')
  } catch (e) {
    return { hits: [], matched: 0, failure: `Cannot search for ${JSON.stringify(opts.query)}: ${e instanceof Error ? e.message : String(e)}` }
  }
  const candidates: Candidate[] = []
  const add = (p: IndexedPart, order: number, matches: number, at: number, length: number): void => {
    const hit: Omit<SearchHit, 'snippet'> = {
      messageId: p.message.id,
      role: p.message.role,
      where: p.where,
      ...(p.call === undefined ? {} : { toolCallId: p.call, ref: refStem(p.call, p.where === 'arguments' ? 'arguments' : 'result') }),
      ...(p.tool === undefined ? {} : { tool: p.tool }),
      matches,
    }
    candidates.push({ hit, text: p.text, at, length, order })
  }
  const test = (p: IndexedPart, order: number): void => {
    re.lastIndex = 0
    const first = re.exec(p.text)
    if (first === null) return
    let matches = 1
    const length = first[0].length
    if (length > 0) { while (matches < MAX_COUNT && re.exec(p.text) !== null) matches++ }
    add(p, order, matches, first.index, length)
  }
  const needle = plainNeedle(opts)
  if (!isHistoryIndex(source)) {
    let order = 0
    forEachSearchable(source, (p) => test(p, order++))
  } else if (needle === undefined) source.parts.forEach((p, k) => test(p, k))
  else {
    // the parts holding the needle's longest word, their matches counted where the lower-cased text tells them exactly
    for (const f of plainFinds(needle, source, MAX_COUNT)) {
      const p = source.parts[f.part] as IndexedPart
      if (f.matches === undefined) test(p, f.part)
      else add(p, f.part, f.matches, f.at ?? 0, needle.length)
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
