/**
 * `chatfold/claude-agent-sdk`: a `SessionStore` of the Claude Agent SDK
 * (`@anthropic-ai/claude-agent-sdk`, an optional peer dependency, for its types only) kept in the
 * chat store, in this process or through its HTTP API, on any of the store's backends; and the
 * stored transcript read as a chatfold history, its `compact_boundary` records as compactions.
 *
 * @module
 */
import type { SessionKey, SessionStore, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import * as E from 'fp-ts/Either'
import type { ChatLog, ChatLogRead } from '../store/chat-log.ts'
import { type JsonRecord, JsonRecordC } from '../internal/json.ts'
import { failureFromErrors, formatDecodeFailure } from '../message/failure.ts'
import { type ClaudeCodeOptions, type ClaudeCodeSession, readClaudeCode } from '../sessions/claude-code.ts'
import type { PriceTable } from '../cost/price.ts'
import { type SessionReport, sessionReportOf } from './session-report.ts'

export { type ChatLog, type ChatLogRead, type ChatLogRecord, httpChatLog, type HttpChatLogOptions, storeChatLog } from '../store/chat-log.ts'
export { type SessionReport, sessionReportOf } from './session-report.ts'
export { readBackMcpTools } from './read-back-tools.ts'

/** The store's conversation ids are at most this long. */
const MAX_ID = 256

const PREFIX = 'claude-agent-sdk/'

/** The conversation of a key: its parts encoded, so that `/` only separates them. */
const conversationOf = (key: SessionKey): string => {
  if (key.subpath === '') throw new Error('Cannot use a session key with an empty subpath: omit it for the main transcript')
  const id = [
    PREFIX + encodeURIComponent(key.projectKey),
    encodeURIComponent(key.sessionId),
    ...(key.subpath === undefined ? [] : [encodeURIComponent(key.subpath)]),
  ].join('/')
  if (id.length > MAX_ID)
    throw new Error(
      `Cannot store session ${JSON.stringify(key.sessionId)}: its key makes a conversation id of ${id.length} characters, over the store's ${MAX_ID}`,
    )
  return id
}

/** One entry (what earlier versions wrote, read still), or a batch of entries as one record: stored whole or not at all. */
type Entry = { readonly kind: 'entry'; readonly at: number; readonly entry: SessionStoreEntry }
type Entries = { readonly kind: 'entries'; readonly at: number; readonly entries: ReadonlyArray<SessionStoreEntry> }
type Deleted = { readonly kind: 'deleted'; readonly at: number }
type Folded = { readonly at: number; readonly entries: ReadonlyArray<SessionStoreEntry>; readonly written: boolean }

const isEntry = (r: JsonRecord): r is JsonRecord & Entry => r['kind'] === 'entry' && typeof r['at'] === 'number' && typeof r['entry'] === 'object'
const isEntries = (r: JsonRecord): r is JsonRecord & Entries => r['kind'] === 'entries' && typeof r['at'] === 'number' && Array.isArray(r['entries'])

/**
 * What a transcript's records leave: the entries since the last deletion, in order, the first of
 * a `uuid` only (should two writers have raced past the check `append` makes). When the store has
 * dropped the oldest records (its `maxHistorySize`), the transcript is read from the first
 * deletion it still holds; without one it cannot be read whole, and is refused.
 */
const fold = (read: ChatLogRead, id: string): Folded => {
  const { records, from } = read
  const start = from === 0 ? 0 : records.findIndex((r) => r['kind'] === 'deleted')
  if (start < 0)
    throw new Error(
      `Cannot read transcript ${
        JSON.stringify(id)
      }: the store has dropped its first ${from} records (its maxHistorySize); open it with maxHistorySize: Infinity`,
    )
  let entries: SessionStoreEntry[] = []
  let seen = new Set<string>()
  let at = 0
  let written = false
  records.slice(start).forEach((r, i) => {
    const time = typeof r['at'] === 'number' ? r['at'] : 0
    at = Math.max(at, time)
    if (isEntry(r) || isEntries(r)) {
      for (const entry of isEntry(r) ? [r.entry] : r.entries) {
        const uuid = entry.uuid
        if (typeof uuid === 'string' && seen.has(uuid)) continue
        if (typeof uuid === 'string') seen.add(uuid)
        entries.push(entry)
        written = true
      }
    } else if (r['kind'] === 'deleted') {
      entries = []
      seen = new Set()
      written = false
    } else throw new Error(
        `Cannot read transcript ${JSON.stringify(id)}: record ${from + start + i} is not a transcript record (kind: ${JSON.stringify(r['kind'])})`,
      )
  })
  return { at, entries, written }
}

/** Whether a transcript holds entries (its last record is one, not a deletion), and when it was last written: what listing needs, without reading it whole. */
const lastWrite = (read: ChatLogRead): { readonly written: boolean; readonly at: number } => ({
  written: read.records.at(-1)?.['kind'] === 'entry' || read.records.at(-1)?.['kind'] === 'entries',
  at: read.records.reduce((a, r) => Math.max(a, typeof r['at'] === 'number' ? r['at'] : 0), 0),
})

const asRecord = (r: Entries | Deleted): JsonRecord => {
  const data = JsonRecordC.decode(r)
  if (E.isLeft(data)) throw new Error(`Cannot store a transcript entry that is not JSON: ${formatDecodeFailure(failureFromErrors(data.left))}`)
  return data.right
}

/**
 * A `SessionStore` with everything the SDK may call implemented, and `history`.
 *
 * @since 0.1.0
 * @category integrations
 */
export type ChatStoreSessionStore = Required<Pick<SessionStore, 'append' | 'load' | 'listSessions' | 'delete' | 'listSubkeys'>> & {
  /** The stored transcript read by `readClaudeCode`: the history from the last compaction on, the archive, the compactions. */
  readonly history: (key: SessionKey, options?: ClaudeCodeOptions) => Promise<ClaudeCodeSession | undefined>
  /** What the stored transcript cost, and the receipt of what its compactions took out of the prompt (`sessionReportOf` over `history`). */
  readonly report: (key: SessionKey, options?: ClaudeCodeOptions & { readonly prices?: PriceTable }) => Promise<SessionReport | undefined>
}

/**
 * A session store of the Claude Agent SDK kept in the chat store (`storeChatLog(store)` over any
 * backend, or `httpChatLog({ url, token })` for a served one): pass it as `sessionStore` to
 * `query`. It keeps the contract of the SDK's `SessionStore`: entries load back deep-equal, in
 * append order; an entry whose `uuid` the transcript holds already is skipped (a retried batch
 * or a replayed import adds nothing), entries without one are always appended; `load` answers
 * null for a transcript never written or deleted; `listSessions` lists the main transcripts with
 * the time of their last write; `delete` of a main transcript deletes its subagent transcripts
 * too; `listSubkeys` lists those. The store is append-only: a deletion is a record, after which
 * the transcript reads as never written (the entries stay in the store's log: retention is the
 * store's). A compaction the SDK writes is appended as any batch, never refused (the SDK drops a
 * batch it cannot store): its `compact_boundary` names the entry it was computed from, so a write
 * another process lands meanwhile stays on a branch of its own. `history(key)` reads the transcript
 * with `readClaudeCode`, its `compact_boundary` records as compaction boundaries; `report(key)` gives what it cost (each reply's recorded usage
 * priced, cache reads and writes apart) and the receipt of what its compactions took out.
 *
 * @example
 * import { createChatStore } from 'chatfold/store'
 * import { chatStoreSessionStore, storeChatLog } from 'chatfold/claude-agent-sdk'
 * const sessionStore = chatStoreSessionStore(storeChatLog(createChatStore({ maxHistorySize: Infinity })))
 * // query({ prompt, options: { sessionStore } })
 *
 * @since 0.1.0
 * @category integrations
 */
export const chatStoreSessionStore = (log: ChatLog): ChatStoreSessionStore => {
  let lastAt = 0
  const now = (): number => (lastAt = Math.max(Date.now(), lastAt + 1))
  /** The writes of one transcript, one after another: each reads what the one before it wrote. */
  const tails = new Map<string, Promise<unknown>>()
  const inTurn = <A>(id: string, task: () => Promise<A>): Promise<A> => {
    const run = (tails.get(id) ?? Promise.resolve()).then(task, task)
    const tail = run.catch(() => undefined)
    tails.set(id, tail)
    void tail.then(() => {
      if (tails.get(id) === tail) tails.delete(id)
    })
    return run
  }
  const read = async (key: SessionKey): Promise<Folded> => {
    const id = conversationOf(key)
    return fold(await log.read(id), id)
  }
  const history = async (key: SessionKey, options: ClaudeCodeOptions = {}): Promise<ClaudeCodeSession | undefined> => {
    const folded = await read(key)
    if (!folded.written) return undefined
    const r = readClaudeCode(options)(folded.entries)
    if (E.isLeft(r)) throw new Error(`Cannot read session ${JSON.stringify(key.sessionId)} as a history: ${formatDecodeFailure(r.left)}`)
    return r.right
  }
  const subkeys = async (key: { readonly projectKey: string; readonly sessionId: string }): Promise<string[]> => {
    const main = conversationOf(key)
    const ids = await log.conversations(`${main}/`)
    const out: string[] = []
    for (const id of ids) if (lastWrite(await log.read(id)).written) out.push(decodeURIComponent(id.slice(main.length + 1)))
    return out
  }
  const remove = async (key: SessionKey): Promise<void> => {
    const id = conversationOf(key)
    await inTurn(id, async () => {
      if (lastWrite(await log.read(id)).written) await log.append(id, [{ text: 'deleted', data: asRecord({ kind: 'deleted', at: now() }) }])
    })
  }
  return {
    append: async (key, entries) => {
      if (entries.length === 0) return
      const id = conversationOf(key)
      await inTurn(id, async () => {
        // entries whose uuid the transcript holds are left out (a fold keeps the first of a uuid, should another writer add it meanwhile)
        const seen = new Set(fold(await log.read(id), id).entries.flatMap((e) => (typeof e.uuid === 'string' ? [e.uuid] : [])))
        const fresh = entries.filter((entry) => {
          const uuid = typeof entry.uuid === 'string' ? entry.uuid : undefined
          if (uuid === undefined) return true
          if (seen.has(uuid)) return false
          seen.add(uuid)
          return true
        })
        if (fresh.length === 0) return
        // the batch is one record: stored whole or not at all
        const first = fresh[0]?.type
        const text = fresh.length === 1 && typeof first === 'string' && first !== '' ? first : `${fresh.length} entries`
        await log.append(id, [{ text, data: asRecord({ kind: 'entries', at: now(), entries: fresh }) }])
      })
    },
    load: async (key) => {
      const folded = await read(key)
      return folded.written ? [...folded.entries] : null
    },
    listSessions: async (projectKey) => {
      const prefix = `${PREFIX}${encodeURIComponent(projectKey)}/`
      const out: Array<{ sessionId: string; mtime: number }> = []
      for (const id of await log.conversations(prefix)) {
        const rest = id.slice(prefix.length)
        if (rest.includes('/')) continue
        const last = lastWrite(await log.read(id))
        if (last.written) out.push({ sessionId: decodeURIComponent(rest), mtime: Math.floor(last.at) })
      }
      return out
    },
    delete: async (key) => {
      if (key.subpath === undefined) { for (const subpath of await subkeys(key)) await remove({ ...key, subpath }) }
      await remove(key)
    },
    listSubkeys: subkeys,
    history,
    report: async (key, { prices, ...options } = {}) => {
      const session = await history(key, options)
      return session === undefined ? undefined : sessionReportOf(prices === undefined ? {} : { prices })(session)
    },
  }
}
