/**
 * A whole chat store as a chatfold history, so that it can be saved and loaded as JSONL like any
 * session: a first `metadata`-kind message carries the store's header (limits, counters, every
 * conversation's metadata, pruned messages included), then one message per held message, whose
 * `metadata` wraps what the store keeps beside it (`chat: { input_id, content, metadata }`: the
 * input id, the content exactly as sent, the input's own metadata).
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { DecodeFailure, DecodeIssue } from '../message/failure.ts'
import type { Message, Messages } from '../message/message.ts'
import type { ChatState } from './core.ts'
import * as T from './_tree.ts'
import { fromSnapshot, toSnapshot } from './snapshot.ts'
import { isObject } from '../internal/object.ts'

/**
 * The id of the header message of a store saved as a history.
 *
 * @since 0.1.0
 * @category export
 */
export const STORE_HEADER_ID = 'chatfold-store'

const VERSION = 1

/**
 * The store as a history: a header message, then every held message chronologically, each
 * carrying its input id and content as sent under `metadata.chat`. `fromStoreMessages` reads it
 * back.
 *
 * @example
 * import { emptyState, toStoreMessages } from 'chatfold/store'
 * toStoreMessages(emptyState())[0]?.kind // 'metadata'
 *
 * @since 0.1.0
 * @category export
 */
export const toStoreMessages = (state: ChatState): Messages => {
  const { messages: _messages, modality_type: _modality, ...header } = toSnapshot(state)
  const head: Message = { id: STORE_HEADER_ID, role: 'system', parts: [], kind: 'metadata', metadata: { chatfold_store: { version: VERSION, ...header } } }
  const out: Message[] = [head]
  for (const r of T.values(state.timeline)) {
    const { metadata, ...message } = r.message
    out.push({ ...message, metadata: { chat: { input_id: r.inputId, content: r.content, ...(metadata === undefined ? {} : { metadata }) } } })
  }
  return out
}

const fieldPaths: Readonly<Record<string, string>> = {
  message_id: 'id',
  conversation_id: 'conversationId',
  role: 'role',
  timestamp: 'createdAt',
  input_id: 'metadata.chat.input_id',
  content: 'metadata.chat.content',
  metadata: 'metadata.chat.metadata',
}

/** Maps a snapshot path back to the history: `messages[i].content…` is `[i + 1].metadata.chat.content…`. */
const toHistoryPath = (i: DecodeIssue): DecodeIssue => {
  const m = /^messages\[(\d+)\](?:\.([a-z_]+))?(.*)$/.exec(i.path)
  if (m === null) return { ...i, path: `[0].metadata.chatfold_store.${i.path}` }
  const field = m[2] === undefined ? '' : `.${fieldPaths[m[2]] ?? m[2]}`
  return { ...i, path: `[${Number(m[1]) + 1}]${field}${m[3] ?? ''}` }
}

/**
 * Restores a store from the history `toStoreMessages` made (as `fromJSONL` decodes it from a
 * file), checking every field and every invariant of the state. Paths in the failure point into
 * the history (`[3].metadata.chat.content`), so `[i]` is line `i + 1` of a JSONL file.
 *
 * @example
 * import { emptyState, fromStoreMessages, toStoreMessages } from 'chatfold/store'
 * const state = emptyState()
 * fromStoreMessages(toStoreMessages(state)) // right(state)
 *
 * @since 0.1.0
 * @category codecs
 */
export const fromStoreMessages = (ms: Messages): E.Either<DecodeFailure, ChatState> => {
  const head = ms[0]
  const header = head?.metadata?.['chatfold_store']
  if (head === undefined || head.id !== STORE_HEADER_ID || head.kind !== 'metadata' || !isObject(header)) {
    return E.left([{ path: '[0]', expected: `a chatfold store header (a metadata message with id "${STORE_HEADER_ID}")`, actual: head?.id ?? '(no messages)' }])
  }
  if (header['version'] !== VERSION) return E.left([{ path: '[0].metadata.chatfold_store.version', expected: String(VERSION), actual: header['version'] }])
  const issues: DecodeIssue[] = []
  const messages = ms.slice(1).map((m, i) => {
    const chat = m.metadata?.['chat']
    if (!isObject(chat)) issues.push({ path: `[${i + 1}].metadata.chat`, expected: 'the stored input id and content', actual: chat })
    const c = isObject(chat) ? chat : {}
    return {
      message_id: m.id,
      conversation_id: m.conversationId,
      role: m.role,
      timestamp: m.createdAt,
      input_id: c['input_id'],
      content: c['content'],
      ...(c['metadata'] === undefined ? {} : { metadata: c['metadata'] }),
    }
  })
  if (issues.length > 0) return E.left(issues)
  const { version: _version, ...rest } = header
  return E.mapLeft((f: DecodeFailure) => f.map(toHistoryPath))(fromSnapshot({ ...rest, modality_type: 'chat', messages }))
}
