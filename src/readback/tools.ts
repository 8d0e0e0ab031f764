/**
 * The read-back tools an agent is given, whatever its framework: `read_pruned_output` (a pruned
 * output read back through the reference its placeholder shows, a page at a time) and
 * `search_history` (the archived history searched), each a name, a description, a JSON Schema of
 * its input and a function from the input the model wrote to the answer it reads.
 * `chatfold/ai-sdk`, `chatfold/openai-agents` and `chatfold/claude-agent-sdk` give them in their
 * frameworks' shapes.
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import type { Messages } from '../message/message.ts'
import { failureFromErrors, formatDecodeFailure } from '../message/failure.ts'
import { formatReadBackFailure, readBack, type ReadBackPage } from './read-back.ts'
import { searchHistory, type SearchHit } from './search-history.ts'
import { type HistoryIndex, indexHistory, isHistoryIndex, type ReadBackSource } from './history-index.ts'

// --- model ---

/**
 * Options of {@link readBackTools}: `source`, the history the outputs are read from (called on
 * each use: the history before pruning, a compaction's archive, the history of a framework session
 * kept in the chat store), or that
 * history prepared by `indexHistory` (the tools prepare each history they are given once); the most
 * UTF-8 bytes of one page (default 16,000) and of one search answer (default 8,000).
 *
 * @example
 * import { indexHistory, type ReadBackToolsOptions } from 'chatfold/readback'
 * declare const archive: import('chatfold').Messages
 * const options: ReadBackToolsOptions = { source: () => archive, maxBytes: 8_000 }
 * const index = indexHistory([]) // prepared once, given on every use
 * const prepared: ReadBackToolsOptions = { source: () => index }
 *
 * @since 0.1.0
 * @category read-back
 */
export type ReadBackToolsOptions = {
  readonly source: () => ReadBackSource | Promise<ReadBackSource>
  readonly maxBytes?: number
  readonly searchBytes?: number
}

/**
 * What `read_pruned_output` answers: a page (see `ReadBackPage`), or why there is none.
 *
 * @example
 * import type { ReadAnswer } from 'chatfold/readback'
 * const a: ReadAnswer = { error: 'Cannot read back call_9@0f3a9c21d4e5b687: no message of this history holds that tool output' }
 *
 * @since 0.1.0
 * @category read-back
 */
export type ReadAnswer = ReadBackPage | { readonly error: string }

/**
 * What `search_history` answers: the hits and how many parts matched, or why nothing was searched.
 *
 * @example
 * import type { SearchAnswer } from 'chatfold/readback'
 * const a: SearchAnswer = { hits: [], matched: 0 }
 *
 * @since 0.1.0
 * @category read-back
 */
export type SearchAnswer = { readonly hits: ReadonlyArray<SearchHit>; readonly matched: number } | { readonly error: string }

/**
 * One tool, framework-neutral: its name, what the model is told about it, the JSON Schema of its
 * input (strict: every property required, `null` for a default), and its function.
 *
 * @example
 * import { readBackTools, type ReadBackTool } from 'chatfold/readback'
 * const tools = readBackTools({ source: () => [] })
 * const read: ReadBackTool<unknown> = tools.read
 *
 * @since 0.1.0
 * @category read-back
 */
export type ReadBackTool<A> = {
  readonly name: string
  readonly description: string
  readonly parameters: {
    readonly type: 'object'
    readonly properties: Readonly<Record<string, unknown>>
    readonly required: ReadonlyArray<string>
    readonly additionalProperties: false
  }
  readonly run: (input: unknown) => Promise<A>
}

// --- inputs ---

const ReadInputC = t.type({ ref: t.string, offset: t.union([t.number, t.null, t.undefined]) }, 'ReadInput')
const SearchInputC = t.type({
  query: t.string,
  match: t.union([t.literal('text'), t.literal('regex'), t.null, t.undefined]),
  limit: t.union([t.number, t.null, t.undefined]),
}, 'SearchInput')

const decodeInput = <A>(c: t.Type<A, unknown, unknown>, input: unknown): E.Either<string, A> => {
  // a framework that hands over the model's JSON text as it came
  let u = input
  if (typeof input === 'string') {
    try {
      u = JSON.parse(input)
    } catch {
      return E.left(`Cannot read the tool input: not JSON`)
    }
  }
  return E.mapLeft((es: t.Errors) => `Cannot read the tool input: ${formatDecodeFailure(failureFromErrors(es))}`)(c.decode(u))
}

// --- tools ---

/** The description of `read_pruned_output`, as the model reads it. */
const READ_DESCRIPTION = 'Read back a tool output that was pruned from this conversation to save context. ' +
  'Pass the reference its placeholder shows after "ref" (like call_1@0f3a9c21). ' +
  'Long outputs come a page at a time: when the answer has "next", call again with offset set to it.'

/** The description of `search_history`, as the model reads it. */
const SEARCH_DESCRIPTION = 'Search the earlier conversation, including tool outputs no longer in context, for a text (any case) or a regular expression. ' +
  'Hits are ranked by how often they match; a tool output hit has a "ref" to read all of it back with read_pruned_output.'

/**
 * The two read-back tools over a history, framework-neutral: `read` (`read_pruned_output`: a
 * pruned output read back through its reference, a page of at most `maxBytes` at a time, `next`
 * giving the offset of the following page) and `search` (`search_history`: `searchHistory` over the
 * source within `searchBytes`). A failure (a reference into content that is no longer there, a bad
 * pattern, an input the model got wrong) is answered as `{ error }`, which the model reads; it is
 * never thrown.
 *
 * @example
 * import { readBackTools } from 'chatfold/readback'
 * const { read } = readBackTools({ source: () => [] })
 * await read.run({ ref: 'call_1@0f3a9c21d4e5b687', offset: null })
 * // { error: 'Cannot read back call_1@0f3a9c21: no message of this history holds that tool output' }
 *
 * @since 0.1.0
 * @category read-back
 */
export const readBackTools = (
  options: ReadBackToolsOptions,
): { readonly read: ReadBackTool<ReadAnswer>; readonly search: ReadBackTool<SearchAnswer> } => {
  // each history the source gives is prepared once, for as long as it is held (a history is never changed in place)
  const indexes = new WeakMap<Messages, HistoryIndex>()
  const indexed = async (): Promise<HistoryIndex> => {
    const s = await options.source()
    if (isHistoryIndex(s)) return s
    const known = indexes.get(s)
    if (known !== undefined) return known
    const made = indexHistory(s)
    indexes.set(s, made)
    return made
  }
  return {
    read: {
      name: 'read_pruned_output',
      description: READ_DESCRIPTION,
      parameters: {
        type: 'object',
        properties: {
          ref: { type: 'string', description: 'The reference the placeholder shows, e.g. call_1@0f3a9c21' },
          offset: { type: ['integer', 'null'], description: 'Byte offset to read from: null for the start, or the "next" of the previous page' },
        },
        required: ['ref', 'offset'],
        additionalProperties: false,
      },
      run: async (input) => {
        const d = decodeInput(ReadInputC, input)
        if (E.isLeft(d)) return { error: d.left }
        const page = readBack(d.right.ref, { offset: d.right.offset ?? 0, ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }) })(
          await indexed(),
        )
        return E.isLeft(page) ? { error: formatReadBackFailure(page.left) } : page.right
      },
    },
    search: {
      name: 'search_history',
      description: SEARCH_DESCRIPTION,
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'The text (matched in any case) or the regular expression' },
          match: { type: ['string', 'null'], enum: ['text', 'regex', null], description: 'text (the default) or regex' },
          limit: { type: ['integer', 'null'], description: 'The most hits (default 20)' },
        },
        required: ['query', 'match', 'limit'],
        additionalProperties: false,
      },
      run: async (input) => {
        const d = decodeInput(SearchInputC, input)
        if (E.isLeft(d)) return { error: d.left }
        const { query, match, limit } = d.right
        const r = searchHistory({
          query,
          ...(match === null || match === undefined ? {} : { match }),
          ...(limit === null || limit === undefined ? {} : { limit }),
          ...(options.searchBytes === undefined ? {} : { maxBytes: options.searchBytes }),
        })(await indexed())
        return r.failure === undefined ? { hits: r.hits, matched: r.matched } : { error: r.failure }
      },
    },
  }
}
