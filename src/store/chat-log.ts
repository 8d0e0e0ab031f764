/**
 * A log of JSON records per conversation, kept in the chat store: what the framework integrations
 * (`chatfold/openai-agents`, `chatfold/claude-agent-sdk`) write their sessions to. Each record is
 * one chat message of its conversation, its payload in the message's metadata, so any backend of
 * the store (memory, file, Durable Objects, Deno KV) keeps it, in process (`storeChatLog`) or
 * through the store's HTTP API (`httpChatLog`). The store is append-only: a record is never
 * changed or removed, and readers fold the records into the current state.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import type { ChatStore } from './store.ts'
import { getConversation } from './query.ts'
import { conversationIds, getConversationMetadata } from './state.ts'
import { type JsonRecord, parseJsonText } from '../internal/json.ts'
import { formatDecodeFailure } from '../message/failure.ts'
import { newId } from '../internal/id.ts'
import { isObject } from '../internal/object.ts'
import { overlaysOf } from './overlay.ts'
import { formatStoreFailure } from './simulator.ts'

/**
 * One record to append: its payload (a JSON object) and the text the store shows for it.
 *
 * @since 0.1.0
 * @category integrations
 */
export type ChatLogRecord = { readonly text: string; readonly data: JsonRecord }

/**
 * What a conversation's log holds: the payloads of its records in order, the position of the
 * first (0, unless the store has dropped the oldest: its `maxHistorySize`), and the position the
 * next record takes (`from + records.length`, unless a compaction's record stands for a range of
 * them: see `ChatLog.compact`).
 *
 * @since 0.1.0
 * @category integrations
 */
export type ChatLogRead = { readonly records: ReadonlyArray<JsonRecord>; readonly from: number; readonly next?: number }

/**
 * A log of records per conversation (a conversation of the chat store): append in order, read
 * back in the same order, list the conversations. Each record's message id is its position
 * (`r0`, `r1`, …), so a reader knows when the store has dropped the oldest ones (`from`), and two
 * writers never take the same position: the store refuses the second, which appends after.
 *
 * @example
 * import { createChatStore } from 'chatfold/store'
 * import { storeChatLog } from 'chatfold/openai-agents'
 * const log = storeChatLog(createChatStore({ maxHistorySize: Infinity }))
 * await log.append('s-1', [{ text: 'note', data: { n: 1 } }])
 * await log.read('s-1') // { records: [{ n: 1 }], from: 0, next: 1 }
 *
 * @since 0.1.0
 * @category integrations
 */
export type ChatLog = {
  /**
   * Appends records in order, after whatever the conversation holds; with `at`, the first record
   * only at that position (where a read ended: `from + records.length`), resolving false, with
   * nothing appended, when another writer has taken it since.
   */
  readonly append: (conversationId: string, records: ReadonlyArray<ChatLogRecord>, at?: number) => Promise<boolean>
  /**
   * Commits `record` as a compaction standing for the records `from`…`head` (a committed overlay
   * of the store: those records stay, the read gives this one in their place), only if `head` is
   * still the conversation's last record; resolves false, with nothing kept, when another writer
   * has appended since (read again and compute again: what it wrote is kept). Absent on a log
   * whose store does not commit compactions.
   */
  readonly compact?: (conversationId: string, record: ChatLogRecord, from: number, head: number) => Promise<boolean>
  /** The records a conversation holds (the latest compaction's record in place of the range it stands for); no records for a conversation never written. */
  readonly read: (conversationId: string) => Promise<ChatLogRead>
  /** The ids of the conversations starting with `prefix`. */
  readonly conversations: (prefix: string) => Promise<ReadonlyArray<string>>
}

/**
 * The metadata field holding the key of a record written over HTTP: what tells a retried write's
 * 409 (its own record, whose answer was lost) from another writer's. Not part of the record read.
 */
const KEY_FIELD = 'chatlog_key'

const withoutKey = (data: JsonRecord): JsonRecord => {
  if (!Object.prototype.hasOwnProperty.call(data, KEY_FIELD)) return data
  const { [KEY_FIELD]: _key, ...rest } = data
  return rest
}

const positionOf = (id: string): number | undefined => {
  const r = /^r(0|[1-9]\d*)$/.exec(id)
  return r === null ? undefined : Number(r[1])
}

/** The field of a compaction overlay's summary (JSON) holding the record it stands as. */
const OVERLAY_FIELD = 'chatlog'

/** What a log's compaction keeps as the overlay's summary: its record, as JSON. */
const overlaySummary = (r: ChatLogRecord): string => JSON.stringify({ [OVERLAY_FIELD]: r.data })

type Range = { readonly from: string; readonly head: string; readonly summary: string }

const isRange = (u: unknown): u is Range => isObject(u) && typeof u['from'] === 'string' && typeof u['head'] === 'string' && typeof u['summary'] === 'string'

/**
 * The records of held messages, checked to be consecutive log positions, the latest overlay whose
 * head they hold (one committed on a read that saw that head) standing, as its record, for its range.
 */
const readHeld = (
  conversationId: string,
  held: ReadonlyArray<{ readonly id: string; readonly metadata?: JsonRecord | undefined }>,
  overlays: ReadonlyArray<Range> = [],
): ChatLogRead => {
  const first = held[0] === undefined ? 0 : positionOf(held[0].id)
  held.forEach((m, i) => {
    if (first === undefined || positionOf(m.id) !== first + i)
      throw new Error(
        `Cannot read conversation ${JSON.stringify(conversationId)}: message ${JSON.stringify(m.id)} is not a log record at position ${(first ?? 0) + i}`,
      )
  })
  const records = held.map((m) => withoutKey(m.metadata ?? {}))
  const from = first ?? 0
  const next = from + held.length
  const heldIds = new Set(held.map((m) => m.id))
  const overlay = [...overlays].reverse().find((o) => heldIds.has(o.head))
  if (overlay === undefined) return { records, from, next }
  const parsed = parseJsonText(overlay.summary)
  const record = E.isRight(parsed) && isObject(parsed.right) ? parsed.right[OVERLAY_FIELD] : undefined
  if (!isObject(record))
    throw new Error(`Cannot read conversation ${JSON.stringify(conversationId)}: its compaction up to ${JSON.stringify(overlay.head)} holds no log record`)
  // a range whose first records the store has dropped (its maxHistorySize): what is left of it
  const start = Math.max(held.findIndex((m) => m.id === overlay.from), 0)
  const end = held.findIndex((m) => m.id === overlay.head)
  return { records: [...records.slice(0, start), record as JsonRecord, ...records.slice(end + 1)], from, next }
}

/** Most times a submit whose answer was lost is sent again. */
const LOST_ANSWER_TRIES = 4

/** Most tries of one record at a position other writers keep taking (each after a random pause). */
const MAX_TRIES = 64

/** A pause of up to 2^min(attempt, 6) ms, random, so that writers that keep colliding spread out. */
const pause = (attempt: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** Math.min(attempt, 6)))

/**
 * Appends each record at the next position, counting again (after a random pause) when another
 * writer took it; with `at`, the first record at that position or nothing (false).
 */
const appendAt = async <R>(
  records: ReadonlyArray<R>,
  at: number | undefined,
  count: () => Promise<number>,
  put: (record: R, id: string) => Promise<'taken' | 'done'>,
): Promise<boolean> => {
  if (records.length === 0) return true
  let n = at ?? (await count())
  for (const [i, r] of records.entries()) {
    for (let attempt = 0;; attempt++) {
      if ((await put(r, `r${n}`)) === 'done') break
      if (i === 0 && at !== undefined) return false
      if (attempt >= MAX_TRIES) throw new Error(`Cannot append: position r${n} stays taken`)
      await pause(attempt)
      n = await count()
    }
    n++
  }
  return true
}

/**
 * Runs the tasks given for one key one after another, in the order given: the appends of one log
 * to one conversation never race each other for a position.
 */
const serially = () => {
  const tails = new Map<string, Promise<unknown>>()
  return <A>(key: string, task: () => Promise<A>): Promise<A> => {
    const run = (tails.get(key) ?? Promise.resolve()).then(task, task)
    const tail = run.then(
      () => undefined,
      () => undefined,
    )
    tails.set(key, tail)
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key)
    })
    return run
  }
}

/**
 * A `ChatLog` over a `ChatStore` in this process; each append resolves once the store's `flush`
 * (a durable store's) has.
 *
 * @example
 * import { createChatStore } from 'chatfold/store'
 * import { storeChatLog } from 'chatfold/claude-agent-sdk'
 * const log = storeChatLog(createChatStore({ maxHistorySize: Infinity }))
 *
 * @since 0.1.0
 * @category integrations
 */
export const storeChatLog = (store: ChatStore): ChatLog => {
  const inTurn = serially()
  return {
    append: (conversationId, records, at) =>
      inTurn(conversationId, async () => {
        const done = await appendAt(
          records,
          at,
          async () => O.match(() => 0, (m: { readonly message_count: number }) => m.message_count)(getConversationMetadata(conversationId)(store.state())),
          async (r, id) => {
            const done = store.submit({ role: 'user', content: r.text, conversation_id: conversationId, metadata: r.data, message_id: id })
            if (E.isRight(done)) return 'done'
            if (done.left.kind === 'duplicate_message') return 'taken'
            throw new Error(`Cannot append to conversation ${JSON.stringify(conversationId)}: ${describe(done.left)}`)
          },
        )
        await store.flush?.()
        return done
      }),
    ...(store.compact === undefined ? {} : {
      compact: (conversationId: string, r: ChatLogRecord, from: number, head: number) =>
        inTurn(conversationId, async () => {
          const done = store.compact?.(conversationId, `r${from}`, `r${head}`, overlaySummary(r))
          if (done === undefined) return false
          if (E.isLeft(done)) {
            if (done.left.kind === 'stale_head') return false
            throw new Error(`Cannot compact conversation ${JSON.stringify(conversationId)}: ${formatStoreFailure(done.left)}`)
          }
          await store.flush?.()
          return true
        }),
    }),
    read: async (conversationId) => {
      const sim = store.simulator()
      return readHeld(conversationId, getConversation(conversationId)(sim.state), overlaysOf(conversationId)(sim))
    },
    conversations: async (prefix) => conversationIds(store.state()).filter((id) => id.startsWith(prefix)),
  }
}

const describe = (
  e: { readonly kind: string; readonly failure?: ReadonlyArray<{ readonly path: string; readonly expected: string; readonly actual: unknown }> },
): string => e.failure === undefined ? e.kind : formatDecodeFailure(e.failure)

/**
 * Options of {@link httpChatLog}: the served store's base URL (`chatfold serve`, a Worker, `deno
 * serve`), its bearer token, and the `fetch` to call (the global one by default).
 *
 * @since 0.1.0
 * @category integrations
 */
export type HttpChatLogOptions = { readonly url: string; readonly token?: string; readonly fetch?: typeof fetch }

/**
 * A `ChatLog` over a served store's HTTP API: `POST /modalities/chat/submit` for each record, `POST
 * /environment/modalities/chat/query` to read, `GET /environment/modalities/chat` to list. Each
 * record carries a key of its own (in its metadata, left out when read): a submit whose answer was
 * lost is sent again, and a 409 is then its own write when the record at that position has its
 * key, or another writer's (the record goes after). A log's appends to one conversation are made
 * one at a time. Any other answer rejects with its status and body.
 *
 * @example
 * import { httpChatLog } from 'chatfold/openai-agents'
 * const log = httpChatLog({ url: 'http://127.0.0.1:8787', token: 'secret' })
 *
 * @since 0.1.0
 * @category integrations
 */
export const httpChatLog = (options: HttpChatLogOptions): ChatLog => {
  const base = options.url.replace(/\/+$/, '')
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ readonly status: number; readonly json: unknown }> => {
    const f = options.fetch ?? fetch
    const r = await f(`${base}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await r.text()
    const parsed = parseJsonText(text)
    // not JSON: kept as text for the error
    return { status: r.status, json: E.isRight(parsed) ? parsed.right : text }
  }
  const fail = (what: string, r: { readonly status: number; readonly json: unknown }): Error =>
    new Error(`Cannot ${what}: the store answered ${r.status} ${JSON.stringify(r.json).slice(0, 500)}`)
  const held = async (conversationId: string): Promise<ReadonlyArray<{ readonly message_id: string; readonly metadata?: JsonRecord }>> => {
    const answer = await call('POST', '/environment/modalities/chat/query', { conversation_id: conversationId })
    if (answer.status !== 200) throw fail(`read conversation ${JSON.stringify(conversationId)}`, answer)
    return (answer.json as { readonly messages?: ReadonlyArray<{ readonly message_id: string; readonly metadata?: JsonRecord }> }).messages ?? []
  }
  /**
   * Submits a record at `id`, its key in its metadata: an answer lost on the way is asked again
   * (the same id and key), and a 409 is the record's own write when the message at `id` has its key.
   */
  const put = async (conversationId: string, r: ChatLogRecord & { readonly key: string }, id: string): Promise<'taken' | 'done'> => {
    const body = { role: 'user', content: r.text, conversation_id: conversationId, metadata: { ...r.data, [KEY_FIELD]: r.key }, message_id: id }
    for (let attempt = 0;; attempt++) {
      let answer: { readonly status: number; readonly json: unknown }
      try {
        answer = await call('POST', '/modalities/chat/submit', body)
      } catch (e) {
        // no answer: the store may or may not have taken it; the same request again tells
        if (attempt >= LOST_ANSWER_TRIES) throw e
        await pause(attempt + 3)
        continue
      }
      if (answer.status === 409) return (await held(conversationId)).some((m) => m.message_id === id && m.metadata?.[KEY_FIELD] === r.key) ? 'done' : 'taken'
      if (answer.status !== 200 && answer.status !== 201) throw fail(`append to conversation ${JSON.stringify(conversationId)}`, answer)
      return 'done'
    }
  }
  const inTurn = serially()
  return {
    append: (conversationId, records, at) =>
      inTurn(conversationId, () =>
        appendAt(
          records.map((r) => ({ ...r, key: newId() })),
          at,
          async () => {
            const answer = await call('POST', '/environment/modalities/chat/query', { conversation_id: conversationId, limit: 1 })
            if (answer.status !== 200) throw fail(`read conversation ${JSON.stringify(conversationId)}`, answer)
            const last = (answer.json as { readonly messages?: ReadonlyArray<{ readonly message_id?: string }> }).messages?.[0]?.message_id
            const at = last === undefined ? -1 : positionOf(last)
            if (at === undefined)
              throw new Error(`Cannot append to conversation ${JSON.stringify(conversationId)}: its last message ${JSON.stringify(last)} is not a log record`)
            return at + 1
          },
          (r, id) => put(conversationId, r, id),
        )),
    compact: async (conversationId, r, from, head) => {
      const answer = await call('POST', '/modalities/chat/compact', {
        conversation_id: conversationId,
        from: `r${from}`,
        head: `r${head}`,
        summary: overlaySummary(r),
      })
      if (answer.status === 201) return true
      if (answer.status === 409 && isObject(answer.json) && isObject(answer.json['error']) && answer.json['error']['code'] === 'stale_head') return false
      throw fail(`compact conversation ${JSON.stringify(conversationId)}`, answer)
    },
    read: async (conversationId) => {
      // the overlays after the messages: one committed in between names a head not read, and is left for the next read
      const messages = await held(conversationId)
      const answer = await call('GET', `/environment/modalities/chat/overlays?conversation_id=${encodeURIComponent(conversationId)}`)
      // a store served before compactions were (404): no overlays
      if (answer.status !== 200 && answer.status !== 404) throw fail(`read the compactions of conversation ${JSON.stringify(conversationId)}`, answer)
      const listed: ReadonlyArray<unknown> = answer.status === 200 && isObject(answer.json) && Array.isArray(answer.json['overlays'])
        ? answer.json['overlays']
        : []
      const overlays = listed.filter(isRange)
      return readHeld(
        conversationId,
        messages.map((m) => ({ id: m.message_id, metadata: m.metadata })),
        overlays,
      )
    },
    conversations: async (prefix) => {
      const answer = await call('GET', '/environment/modalities/chat')
      if (answer.status !== 200) throw fail('list conversations', answer)
      const all = (answer.json as { readonly conversations?: Readonly<Record<string, unknown>> }).conversations ?? {}
      return Object.keys(all).filter((id) => id.startsWith(prefix))
    },
  }
}
