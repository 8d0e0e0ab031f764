/**
 * AI SDK UI messages kept in a chat store (a file under `chatfold serve`, a Durable Object, Deno
 * KV, or a store in memory): `save` on `onFinish`, `load` for `useChat({ messages })`. Each UI
 * message is one store message whose id is the UI message's id, and whose metadata holds the
 * chatfold messages it became (`fromUIMessages`, lossless; `toUIMessages` gives it back), so a save
 * retried after a lost answer stores each message once. A UI message saved again with other
 * content (the AI SDK extends the last assistant message when a turn continues) is kept as a
 * revision of it (`id#2`, `id#3`, …): the store only appends, and `load` gives the latest revision
 * where the first stood. A compaction (`saveCompaction`: a compaction summary message, or a provider
 * compaction boundary) is committed as the store's overlay (compare-and-append on the head the
 * history was loaded at, rebased past what was appended since), loaded back right after the newest
 * message it replaced: the UI sees its summary, and `loadHistory` gives the history with the boundary in
 * place, which `sinceCompaction` cuts to what a model is sent. Messages the store dropped past its
 * history limit are counted (`dropped`), and never stored again behind the newer ones.
 *
 * @module
 */
import type { UIMessage } from 'ai'
import { isInternal } from '../message/accessors.ts'
import { encodeMessages, type Message, type Messages } from '../message/message.ts'
import { isCompactionBoundary } from '../message/part-make.ts'
import { COMPACTION_KEY, isCompactionSummary } from '../message/compaction-mark.ts'
import { lastCompactionBoundary } from '../history/views.ts'
import type { ChatStore } from '../store/store.ts'
import { ChatIdC } from '../store/input.ts'
import { isObject } from '../internal/object.ts'
import { type Held, inProcess, overHttp, type Row } from './_store-backend.ts'
import { commitOverlay } from './_overlay-commit.ts'
import { UIMessageStoreError } from './errors.ts'

import { arrange, compactionOf, contentOf, KEY, messagesOfUI, recordOf, sameJson, type Stored, summaryText, uiOf } from './_ui-records.ts'

/**
 * Where the UI messages are kept: a store served over HTTP (`chatfold serve`, the Cloudflare or
 * Deno entry), its URL and bearer token; `fetch` replaces the global one (a handler in the same
 * process, a client with retries).
 *
 * @since 0.1.0
 * @category ai-sdk
 */
export type HttpStoreOptions = {
  readonly url: string
  readonly token?: string
  readonly conversationId: string
  readonly fetch?: (request: Request) => Promise<Response>
  /**
   * Called with the error of a save `onFinish` could not make, before `onFinish` rejects with it.
   * The AI SDK then ends the response stream with that error, but a client that went away, or a
   * stream read with `consumeStream()`, drops it: log or report it here.
   */
  readonly onError?: (error: unknown) => void
}

/**
 * Where the UI messages are kept: a `ChatStore` in this process (`createChatStore`, or
 * `openDurableStore` on a file, Durable Object or Deno KV storage; a save waits for its `flush`).
 *
 * @since 0.1.0
 * @category ai-sdk
 */
export type InProcessStoreOptions = {
  readonly store: ChatStore
  readonly conversationId: string
  /**
   * Called with the error of a save `onFinish` could not make, before `onFinish` rejects with it.
   * The AI SDK then ends the response stream with that error, but a client that went away, or a
   * stream read with `consumeStream()`, drops it: log or report it here.
   */
  readonly onError?: (error: unknown) => void
}

/**
 * What a save did: the UI message ids stored for the first time, those stored again as a new
 * revision (their content changed), how many were held already as they are, and how many it left
 * out as the oldest, which the store dropped (past its history limit).
 *
 * @since 0.1.0
 * @category ai-sdk
 */
export type SaveReport = {
  readonly added: ReadonlyArray<string>
  readonly revised: ReadonlyArray<string>
  readonly unchanged: number
  readonly skipped: number
}

/**
 * A conversation's UI messages kept in a chat store.
 *
 * @since 0.1.0
 * @category ai-sdk
 */
export type UIMessageStore = {
  readonly conversationId: string
  /** Stores the UI messages not held yet, and a new revision of those whose content changed; idempotent. */
  readonly save: (messages: ReadonlyArray<UIMessage>) => Promise<SaveReport>
  /**
   * Stores a compaction summary message (`compact`'s, or one holding a provider's compaction
   * boundary) as the store's overlay, on the head `loadHistory`/`load` last read (messages saved
   * since are kept; one it stands for saved again since is a `conflict`); idempotent.
   */
  readonly saveCompaction: (summary: Message) => Promise<void>
  /** The UI messages, for `useChat({ messages })`: each compaction as a text message with its summary. */
  readonly load: () => Promise<Array<UIMessage>>
  /** The conversation as a chatfold history, each compaction in place (see `sinceCompaction`). */
  readonly loadHistory: () => Promise<Messages>
  /**
   * How many of the messages saved here the store no longer holds: it keeps at most
   * `maxHistorySize` a conversation, and drops the oldest (`load` gives what it holds).
   */
  readonly dropped: () => Promise<number>
  /**
   * Saves `messages` of a finished stream: pass it as `toUIMessageStreamResponse({ onFinish })`. A
   * save it cannot make goes to the options' `onError`, and rejects (the stream ends with it).
   */
  readonly onFinish: (event: { readonly messages: ReadonlyArray<UIMessage> }) => Promise<void>
}

/**
 * A conversation's UI messages kept in a chat store, over HTTP (`{ url, token, conversationId }`)
 * or in this process (`{ store, conversationId }`). `save` is idempotent: each UI message is one
 * store message whose id is the UI message's, a retried save stores nothing twice, and a message
 * saved again with other content is stored as its next revision. A UI message that
 * `fromUIMessages` cannot read, or a store that refuses a message (a 401, a body over its limit),
 * is an error naming it (a `UIMessageStoreError`, whose `code` says why); `onFinish` also hands it to `onError`, since a stream may have no reader
 * left to see it.
 *
 * @example
 * import { createChatStore } from 'chatfold/store'
 * import { uiMessageStore } from 'chatfold/ai-sdk'
 * const chat = uiMessageStore({ store: createChatStore(), conversationId: 'support-42' })
 * await chat.save([{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }])
 * await chat.load() // [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }]
 * // over HTTP: uiMessageStore({ url: 'https://chat.example.com', token, conversationId: 'support-42' })
 *
 * @since 0.1.0
 * @category ai-sdk
 */
export const uiMessageStore = (options: HttpStoreOptions | InProcessStoreOptions): UIMessageStore => {
  const backend = 'store' in options ? inProcess(options.store, options.conversationId) : overHttp(options)
  /** The head of the history last loaded: what a compaction computed from it is committed on. */
  let loadedHead: string | undefined
  const records = async (loading = false): Promise<ReadonlyArray<Stored>> => {
    const held = await backend.list()
    const compactions = await backend.compactions()
    if (loading) loadedHead = held[held.length - 1]?.id
    const seen = new Set<string>()
    // a compaction committed twice (a retry whose answer was lost) is one
    const committed = compactions.flatMap(compactionOf).filter((r) => !seen.has(r.storeId) && seen.add(r.storeId))
    return [...held.map(recordOf), ...committed]
  }
  /** The number of the next message saved here: one past the highest held. */
  const nextNumber = (held: ReadonlyArray<Stored>): number => held.reduce((n, r) => Math.max(n, (r.n ?? -1) + 1), 0)
  /** How many messages saved here the store dropped: the numbers up to the highest that it does not hold. */
  const droppedOf = (held: ReadonlyArray<Stored>): number => nextNumber(held) - new Set(held.flatMap((r) => (r.n === undefined ? [] : [r.n]))).size

  /** Adds a row; an id held already is fine when it holds the same messages (a save whose answer was lost). */
  const add = async (row: Row, wire: unknown): Promise<void> => {
    if ((await backend.add(row)) === 'added') return
    const held = (await records()).find((r) => r.storeId === row.message_id)
    if (held === undefined || !sameJson(held.wire, wire)) {
      throw new UIMessageStoreError('conflict', `Cannot save message ${JSON.stringify(row.message_id)}: the store holds a different message under this id`)
    }
  }

  const save = async (messages: ReadonlyArray<UIMessage>): Promise<SaveReport> => {
    const noId = messages.findIndex((ui) => !ChatIdC.is(ui.id))
    // the AI SDK streams a message without an id unless toUIMessageStreamResponse is given a generateMessageId
    if (noId >= 0)
      throw new UIMessageStoreError(
        'no-id',
        `Cannot save messages[${noId}]: its id ${
          JSON.stringify(messages[noId]?.id)
        } is not a store message id (a non-empty id of at most 256 characters); give toUIMessageStreamResponse a generateMessageId`,
      )
    const latest = new Map<string, Stored>()
    const stored = await records()
    let n = nextNumber(stored)
    for (const r of stored) {
      const key = r.type === 'ui' ? r.uiId : r.storeId
      const was = latest.get(key)
      if (was === undefined || (r.type === 'ui' && was.type === 'ui' && r.revision > was.revision)) latest.set(key, r)
    }
    const added: string[] = []
    const revised: string[] = []
    let unchanged = 0
    let skipped = 0
    // messages before the first one held, when the store dropped some, are those it dropped: stored again, they would follow the newer ones
    const before = droppedOf(stored) > 0 ? messages.findIndex((ui) => latest.has(ui.id)) : -1
    for (const [i, ui] of messages.entries()) {
      if (i < before) {
        skipped++
        continue
      }
      const held = latest.get(ui.id)
      // a compaction loaded into the UI comes back with the next turn: it is held as it is
      if (held?.type === 'compaction') {
        unchanged++
        continue
      }
      const ms = messagesOfUI(ui)
      const wire = encodeMessages(ms)
      if (held !== undefined && sameJson(held.wire, wire)) {
        unchanged++
        continue
      }
      const revision = held?.type === 'ui' ? held.revision + 1 : 1
      const row: Row = {
        message_id: revision === 1 ? ui.id : `${ui.id}#${revision}`,
        role: ui.role === 'assistant' ? 'assistant' : 'user',
        content: contentOf(ms, `(${ui.role} message ${ui.id})`),
        metadata: {
          [KEY]: { ui: ui.id, revision, n, messages: wire, ...(ui.role === 'assistant' && ui.parts[0]?.type !== 'step-start' ? { stepStart: false } : {}) },
        },
      }
      await add(row, wire)
      latest.set(ui.id, { type: 'ui', storeId: row.message_id, uiId: ui.id, revision, n: n++, wire, messages: ms })
      ;(revision === 1 ? added : revised).push(ui.id)
    }
    return { added, revised, unchanged, skipped }
  }

  const saveCompaction = async (summary: Message): Promise<void> => {
    if (!isCompactionSummary(summary) && !summary.parts.some(isCompactionBoundary)) {
      throw new UIMessageStoreError(
        'not-compaction',
        `Cannot save message ${JSON.stringify(summary.id)} as a compaction: it is neither a compaction summary nor holds a compaction boundary`,
      )
    }
    const wire = encodeMessages([summary])
    const held = await records()
    if (held.some((r) => r.storeId === summary.id && sameJson(r.wire, wire))) return
    const info = summary.metadata?.[COMPACTION_KEY]
    const through = isObject(info) && typeof info['through'] === 'string' ? info['through'] : undefined
    const committed = await commitOverlay(backend, {
      // the latest revision holding the newest message it replaced; the head when it names none
      through: (rows) => {
        if (through === undefined) return rows.length - 1
        for (let i = rows.length - 1; i >= 0; i--) if (recordOf(rows[i] as Held).messages.some((m) => m.id === through)) return i
        return -1
      },
      revises: (h, covered) => {
        const r = recordOf(h)
        if (r.type !== 'ui' || r.revision === 1) return false
        return covered.some((c) => {
          const x = recordOf(c)
          return x.type === 'ui' && x.uiId === r.uiId
        })
      },
      head: loadedHead,
      summary: summaryText(summary),
      metadata: { [KEY]: { compaction: true, id: summary.id, messages: wire } },
      name: `compaction ${JSON.stringify(summary.id)}`,
    })
    if (committed) return
    // a store that does not commit compactions: a message of its own, as before
    const metadata = { [KEY]: { compaction: true, n: nextNumber(held), messages: wire } }
    await add({ message_id: summary.id, role: summary.role === 'assistant' ? 'assistant' : 'user', content: summaryText(summary), metadata }, wire)
  }

  const onFinish = async (event: { readonly messages: ReadonlyArray<UIMessage> }): Promise<void> => {
    try {
      await save(event.messages)
    } catch (e) {
      // the stream that called this may have no reader left to see the error: the options' hook does
      options.onError?.(e)
      throw e
    }
  }
  const loadHistory = async (): Promise<Messages> => arrange(await records(true)).flatMap((r) => r.messages)
  const load = async (): Promise<Array<UIMessage>> => arrange(await records(true)).flatMap(uiOf)
  const dropped = async (): Promise<number> => droppedOf(await records())
  return { conversationId: options.conversationId, save, saveCompaction, load, loadHistory, dropped, onFinish }
}

/**
 * What a model is sent of a history with compactions: the system messages, then the last
 * compaction (a compaction summary message, or a provider's compaction boundary) and what follows
 * it; the history itself when it has none. (`forLLM` then sends a provider's boundary from its part
 * on.)
 *
 * @example
 * import { sinceCompaction } from 'chatfold/ai-sdk'
 * import { textMessage } from 'chatfold/message'
 * sinceCompaction([textMessage('system', 'Be brief.'), textMessage('user', 'Hi')]).length // 2
 *
 * @since 0.1.0
 * @category ai-sdk
 */
export const sinceCompaction = (ms: Messages): Messages => {
  let from = lastCompactionBoundary(ms)?.message ?? -1
  for (let i = ms.length - 1; i > from; i--) {
    const m = ms[i] as Message
    if (!isInternal(m) && isCompactionSummary(m)) {
      from = i
      break
    }
  }
  if (from <= 0) return ms
  return [...ms.slice(0, from).filter((m) => m.role === 'system'), ...ms.slice(from)]
}
