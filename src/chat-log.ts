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
import type { ChatStore } from './store/store.ts'
import { getConversation } from './store/query.ts'
import { conversationIds, getConversationMetadata } from './store/state.ts'
import type { JsonRecord } from './internal/json.ts'
import { formatDecodeFailure } from './failure.ts'

/**
 * One record to append: its payload (a JSON object), the text the store shows for it, and an
 * optional id the store refuses to hold twice in the conversation (a retried append is then
 * skipped).
 *
 * @since 0.2.0
 * @category integrations
 */
export type ChatLogRecord = { readonly id?: string; readonly text: string; readonly data: JsonRecord }

/**
 * A log of records per conversation (a conversation of the chat store): append in order, read
 * back in the same order, list the conversations with the time of their last record.
 *
 * @example
 * import { createChatStore } from 'chatfold'
 * import { storeChatLog } from 'chatfold/openai-agents'
 * const log = storeChatLog(createChatStore({ maxHistorySize: Infinity }))
 * await log.append('s-1', [{ text: 'note', data: { n: 1 } }])
 * await log.read('s-1') // [{ n: 1 }]
 *
 * @since 0.2.0
 * @category integrations
 */
export type ChatLog = {
  /** Appends records in order; one whose id the conversation holds already is skipped. */
  readonly append: (conversationId: string, records: ReadonlyArray<ChatLogRecord>) => Promise<void>
  /** The payloads of a conversation's records in order; empty for a conversation never written. Rejects when the store dropped some (its `maxHistorySize`). */
  readonly read: (conversationId: string) => Promise<ReadonlyArray<JsonRecord>>
  /** The ids of the conversations starting with `prefix`. */
  readonly conversations: (prefix: string) => Promise<ReadonlyArray<string>>
}

const truncated = (id: string, held: number, count: number): Error =>
  new Error(`Cannot read conversation ${JSON.stringify(id)}: the store holds ${held} of its ${count} records (open it with maxHistorySize: Infinity)`)

/**
 * A `ChatLog` over a `ChatStore` in this process; each append resolves once the store's `flush`
 * (a durable store's) has. Open the store with `maxHistorySize: Infinity`: a conversation the
 * store has cut is refused on read, never returned in part.
 *
 * @example
 * import { createChatStore } from 'chatfold'
 * import { storeChatLog } from 'chatfold/claude-agent-sdk'
 * const log = storeChatLog(createChatStore({ maxHistorySize: Infinity }))
 *
 * @since 0.2.0
 * @category integrations
 */
export const storeChatLog = (store: ChatStore): ChatLog => ({
  append: async (conversationId, records) => {
    for (const r of records) {
      const done = store.submit({ role: 'user', content: r.text, conversation_id: conversationId, metadata: r.data, ...(r.id === undefined ? {} : { message_id: r.id }) })
      if (E.isLeft(done) && done.left.type !== 'duplicate_message') throw new Error(`Cannot append to conversation ${JSON.stringify(conversationId)}: ${describe(done.left)}`)
    }
    await store.flush?.()
  },
  read: async (conversationId) => {
    const state = store.state()
    const held = getConversation(conversationId)(state)
    const meta = getConversationMetadata(conversationId)(state)
    if (O.isSome(meta) && meta.value.message_count > held.length) throw truncated(conversationId, held.length, meta.value.message_count)
    return held.map((m) => m.metadata ?? {})
  },
  conversations: async (prefix) => conversationIds(store.state()).filter((id) => id.startsWith(prefix)),
})

const describe = (e: { readonly type: string; readonly failure?: ReadonlyArray<{ readonly path: string; readonly expected: string; readonly actual: unknown }> }): string =>
  e.failure === undefined ? e.type : formatDecodeFailure(e.failure)

/**
 * Options of {@link httpChatLog}: the served store's base URL (`chatfold serve`, a Worker, `deno
 * serve`), its bearer token, and the `fetch` to call (the global one by default).
 *
 * @since 0.2.0
 * @category integrations
 */
export type HttpChatLogOptions = { readonly url: string; readonly token?: string; readonly fetch?: typeof fetch }

/**
 * A `ChatLog` over a served store's HTTP API: `POST /modalities/chat/submit` for each record (a
 * 409 for an id held already is a skip), `POST /environment/modalities/chat/query` to read, `GET
 * /environment/modalities/chat` to list. Any other answer rejects with its status and body.
 *
 * @example
 * import { httpChatLog } from 'chatfold/openai-agents'
 * const log = httpChatLog({ url: 'http://127.0.0.1:8787', token: 'secret' })
 *
 * @since 0.2.0
 * @category integrations
 */
export const httpChatLog = (options: HttpChatLogOptions): ChatLog => {
  const base = options.url.replace(/\/+$/, '')
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ readonly status: number; readonly json: unknown }> => {
    const f = options.fetch ?? fetch
    const r = await f(`${base}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await r.text()
    let json: unknown = text
    try {
      json = JSON.parse(text)
    } catch {
      // not JSON: kept as text for the error
    }
    return { status: r.status, json }
  }
  const fail = (what: string, r: { readonly status: number; readonly json: unknown }): Error => new Error(`Cannot ${what}: the store answered ${r.status} ${JSON.stringify(r.json).slice(0, 500)}`)
  return {
    append: async (conversationId, records) => {
      for (const r of records) {
        const answer = await call('POST', '/modalities/chat/submit', { role: 'user', content: r.text, conversation_id: conversationId, metadata: r.data, ...(r.id === undefined ? {} : { message_id: r.id }) })
        if (answer.status !== 200 && answer.status !== 201 && answer.status !== 409) throw fail(`append to conversation ${JSON.stringify(conversationId)}`, answer)
      }
    },
    read: async (conversationId) => {
      const answer = await call('POST', '/environment/modalities/chat/query', { conversation_id: conversationId })
      if (answer.status !== 200) throw fail(`read conversation ${JSON.stringify(conversationId)}`, answer)
      const messages = (answer.json as { readonly messages?: ReadonlyArray<{ readonly metadata?: JsonRecord }> }).messages ?? []
      return messages.map((m) => m.metadata ?? {})
    },
    conversations: async (prefix) => {
      const answer = await call('GET', '/environment/modalities/chat')
      if (answer.status !== 200) throw fail('list conversations', answer)
      const all = (answer.json as { readonly conversations?: Readonly<Record<string, unknown>> }).conversations ?? {}
      return Object.keys(all).filter((id) => id.startsWith(prefix))
    },
  }
}
